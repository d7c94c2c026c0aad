/**
 * `Input.elicit` / `Input.sample` / `Input.roots` inside a task: the same handler code as in an
 * MRTR round, with the task's semantics.
 *
 * An input whose key already has an answer (received by `tasks/update`, or carried from the MRTR
 * rounds before the task was created) returns it, validated. Otherwise the task parks: its status
 * becomes `input_required` with every outstanding request in `inputRequests`, and the handler's
 * fiber waits (no round trip, no re-run) until the client's answers are in the store; answers are
 * persisted before the worker sees them, so a worker that dies meanwhile loses nothing (the task
 * runs again and the answers are there). Keys are unique for the task's lifetime: one key asked
 * with two different requests is a defect.
 *
 * A refusal ends the task as `failed` with that error: an answer that does not validate (-32602
 * naming the key), an input whose client capability the creating request did not declare
 * (-32021).
 *
 * @since 0.1.0
 */
import * as AskedKeys from "@snodo/core/extension/AskedKeys"
import * as InputCapabilities from "@snodo/core/extension/InputCapabilities"
import type { Ask, Session } from "@snodo/core/Input"
import * as RequestState from "@snodo/core/extension/RequestState"
import { InvalidParams, type McpError } from "@snodo/core/McpError"
import type { JsonValue } from "@snodo/protocol/wire/Json"
import type { InputRequest } from "@snodo/protocol/wire/Mrtr"
import { Effect, Latch, Result } from "effect"
import type * as Task from "./Task.ts"

/**
 * What the session needs from the worker that runs it.
 *
 * @category models
 * @since 0.1.0
 */
export interface Worker {
  /** Parks the task with these requests outstanding; `undefined` when the worker lost the task. */
  readonly park: (inputRequests: Readonly<Record<string, InputRequest>>) => Effect.Effect<Task.TaskRecord | undefined>
  /** Back to `working` once what it waited for was answered (when the store did not already). */
  readonly resume: Effect.Effect<void>
  /** A new `statusMessage` for the task. */
  readonly note: (statusMessage: string) => Effect.Effect<void>
  /**
   * Runs the wait for the client's answers: the runner gives the task's place back meanwhile and
   * takes one again (fairly) before the handler goes on.
   */
  readonly idle: <A>(waiting: Effect.Effect<A>) => Effect.Effect<A>
}

/**
 * The input session of one run of a task.
 *
 * @category models
 * @since 0.1.0
 */
export class TaskInput implements Session {
  /** Why the task must fail, when a refusal stopped the handler. */
  refusal: McpError | undefined = undefined
  private current: Task.TaskRecord
  private readonly asked = AskedKeys.make()
  private readonly outstanding = new Map<string, InputRequest>()
  private readonly consumed = new Map<string, JsonValue>()
  private readonly states = new Map<string, JsonValue>()
  private readonly latch = Latch.makeUnsafe(false)
  private readonly worker: Worker
  readonly responses: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {}
  readonly requestState: JsonValue | undefined = undefined

  constructor(task: Task.TaskRecord, worker: Worker) {
    this.current = task
    this.worker = worker
  }

  /** Sets the task's `statusMessage` (what `tasks/get` and `notifications/tasks` show next). */
  note(statusMessage: string): Effect.Effect<void> {
    return this.worker.note(statusMessage)
  }

  /** A newer record of the task (a heartbeat, a client's answers): wakes an input waiting for it. */
  observe(task: Task.TaskRecord): void {
    if (task.revision < this.current.revision) return
    this.current = task
    this.latch.openUnsafe()
  }

  private refuse(error: McpError): Effect.Effect<never> {
    if (this.refusal === undefined) this.refusal = error
    return Effect.interrupt
  }

  private answerOf(key: string): JsonValue | undefined {
    return Object.hasOwn(this.current.answers, key) ? this.current.answers[key] : undefined
  }

  ask(asks: ReadonlyArray<Ask<unknown>>): Effect.Effect<ReadonlyArray<unknown>> {
    return Effect.gen({ self: this }, function*() {
      const missing: Array<Ask<unknown>> = []
      for (const input of asks) {
        const conflict = this.asked.note(input)
        if (conflict !== undefined) return yield* Effect.die(conflict)
        if (this.answerOf(input.key) === undefined) missing.push(input)
      }
      if (missing.length > 0) {
        const lacking = missing.flatMap((input) => {
          const fragment = InputCapabilities.missing(input.request, this.current.work.clientCapabilities)
          return fragment === undefined ? [] : [fragment]
        })
        if (lacking.length > 0) return yield* this.refuse(InputCapabilities.refusal(InputCapabilities.merge(lacking)))
        for (const input of missing) this.outstanding.set(input.key, input.request)
        const parked = yield* this.worker.park(Object.fromEntries(this.outstanding))
        if (parked === undefined) return yield* Effect.interrupt
        this.observe(parked)
        const answered = () => missing.every((input) => this.answerOf(input.key) !== undefined)
        if (!answered()) {
          yield* this.worker.idle(Effect.gen({ self: this }, function*() {
            while (!answered()) {
              this.latch.closeUnsafe()
              yield* this.latch.await
            }
          }))
        }
        for (const input of missing) this.outstanding.delete(input.key)
        if (this.outstanding.size === 0 && this.current.status === "input_required") yield* this.worker.resume
      }
      const values: Array<unknown> = []
      for (const input of asks) {
        const decoded = input.decode(this.answerOf(input.key))
        if (Result.isFailure(decoded)) {
          return yield* this.refuse(new InvalidParams({ message: `Invalid input response "${input.key}": ${decoded.failure}` }))
        }
        this.consumed.set(input.key, decoded.success.carry)
        values.push(decoded.success.value)
      }
      return values
    })
  }

  supports(request: InputRequest): boolean {
    return InputCapabilities.missing(request, this.current.work.clientCapabilities) === undefined
  }

  requireCapabilities(required: Readonly<Record<string, unknown>>): Effect.Effect<void> {
    return Effect.suspend(() => {
      const lacking = InputCapabilities.lacking(required, this.current.work.clientCapabilities)
      return lacking === undefined ? Effect.void : this.refuse(InputCapabilities.refusal(lacking))
    })
  }

  getState(key: string): JsonValue | undefined {
    return this.states.get(key)
  }

  setState(key: string, value: JsonValue | undefined): void {
    if (value === undefined) this.states.delete(key)
    else this.states.set(key, value)
  }

  get invalidState(): Effect.Effect<never> {
    return Effect.suspend(() => this.refuse(RequestState.invalid()))
  }

  answers(): Readonly<Record<string, JsonValue>> {
    return Object.fromEntries(this.consumed)
  }
}
