/**
 * The runner: claims tasks from the store and runs their work, at least once, on this instance.
 *
 * - **Leases.** A task runs only under a lease (default 30 s) that its worker renews every third of
 *   it. The claim gives the task a new generation; every write of the worker is fenced by it, so a
 *   worker that lost its task (another instance recovered it after the lease ran out, or a client
 *   cancelled it) learns so at its next write or heartbeat and stops.
 * - **Recovery.** Tasks whose lease expired (their worker died) are claimable again: any instance's
 *   claim loop picks them up and runs them again from the top (the task id is the idempotency key
 *   for the work's side effects). Answers already given are in the store and are reused.
 * - **Retries.** A run that dies of a defect is retried after the next delay of an exact list
 *   (default 1 s, 5 s, 30 s, measured on the store's clock); after the last one the task fails
 *   with -32603. A protocol error fails the task at once (`failed`, with that error), an `isError`
 *   result completes it.
 * - **Cancellation** is interruption: a cancelled task's worker is interrupted (at once on this
 *   instance, at its next signal or heartbeat elsewhere), its finalizers run, and its late writes
 *   are refused by the store. The fiber is the runner's, detached from the request that created the
 *   task: a client that goes away does not cancel its task.
 * - **Limits.** At most `maxRunning` tasks run here at once (a task waiting for input holds its
 *   place); one run lasts at most `maxRunMs` (then `failed`, -32603).
 *
 * Closing the runner's scope (the server shutting down) interrupts every local run and gives its
 * lease back, so another instance continues at once.
 *
 * @since 0.1.0
 */
import { InternalError, internalErrorOfDefect, isMcpError, type McpError, toWire } from "@snodo/core/McpError"
import type { JsonValue } from "@snodo/core/wire/Json"
import { Cause, Duration, Effect, Exit, FiberMap, Latch, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import { hostname } from "node:os"
import * as Task from "./Task.ts"
import * as TaskObservability from "./TaskObservability.ts"
import { TaskInput } from "./TaskInput.ts"
import { TaskSignals } from "./TaskSignals.ts"
import { TaskStore, type Transition } from "./TaskStore.ts"
import { WorkExecutor } from "./WorkExecutor.ts"

/**
 * Runner options.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Tasks running on this instance at once. */
  readonly maxRunning: number
  /** How long a claim lasts without a heartbeat. */
  readonly leaseMs: number
  /** How long one run may last. */
  readonly maxRunMs: number
  /** The delay before each retry of a run that died; its length is the number of retries. */
  readonly retryDelaysMs: ReadonlyArray<number>
  /** How often an idle runner looks for claimable tasks (signals wake it sooner). */
  readonly claimIntervalMs: number
  /** How often expired tasks are deleted, and at most how many per batch. */
  readonly reapIntervalMs: number
  readonly reapBatch: number
}

/**
 * Defaults: 32 running, 30 s lease, 1 h per run, retries after 1 s, 5 s, 30 s.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults: Options = {
  maxRunning: 32,
  leaseMs: 30_000,
  maxRunMs: 3_600_000,
  retryDelaysMs: [1_000, 5_000, 30_000],
  claimIntervalMs: 1_000,
  reapIntervalMs: 60_000,
  reapBatch: 100
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Runner {
  /** This instance's lease owner name. */
  readonly owner: string
  /** Whether a place is free, so a task created here can be leased to this instance at once. */
  readonly hasCapacity: () => boolean
  /** Runs a task leased to this instance (at its creation). */
  readonly start: (task: Task.TaskRecord) => Effect.Effect<void>
  /** A task changed (a client answered or cancelled it): its local worker looks again. */
  readonly changed: (taskId: string) => void
  /** Tasks running here. */
  readonly running: () => number
}

const timedOut = (maxRunMs: number): InternalError =>
  new InternalError({ message: `Task exceeded its maximum run time (${Duration.format(Duration.millis(maxRunMs))})` })

/** The transitions that move a task to another state (a release or a retry leaves it `working`). */
const entersState: Readonly<Record<Transition["_tag"], boolean>> = {
  Park: true,
  Resume: true,
  Complete: true,
  Fail: true,
  Note: false,
  Release: false,
  Retry: false
}

type Outcome =
  | { readonly _tag: "Done"; readonly exit: Exit.Exit<Readonly<Record<string, JsonValue>>, McpError> }
  | { readonly _tag: "TimedOut" }
  | { readonly _tag: "Fenced" }

/**
 * Starts a runner in the current scope. `publish` is told every change a worker makes (for
 * `notifications/tasks`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(
  options: Options,
  publish: (task: Task.TaskRecord) => Effect.Effect<void>,
  observability: TaskObservability.TaskObservability = TaskObservability.none
): Effect.fn.Return<Runner, never, TaskStore | TaskSignals | WorkExecutor | Scope.Scope> {
  const store = yield* TaskStore
  const signals = yield* TaskSignals
  const executor = yield* WorkExecutor
  const owner = `${hostname()}/${process.pid}/${randomBytes(6).toString("base64url")}`
  const fibers = yield* FiberMap.make<string, void, never>()
  /** Wakes the watch loop of a task running here. */
  const watchers = new Map<string, () => void>()
  const claimWake = Latch.makeUnsafe(false)
  let running = 0
  const heartbeatMs = Math.max(1, Math.floor(options.leaseMs / 3))

  const changed = (taskId: string) => watchers.get(taskId)?.()
  yield* signals.listen({ changed, work: () => claimWake.openUnsafe() })

  const logged = <A>(what: string, effect: Effect.Effect<A, unknown>): Effect.Effect<A | undefined> =>
    effect.pipe(Effect.catchCause((cause) => Effect.as(Effect.logError(what, cause), undefined)))

  const write = (task: Task.TaskRecord, transition: Transition) =>
    logged(`task ${task.taskId}: store write failed`, store.transition(task.taskId, task.generation, transition)).pipe(
      Effect.tap((written) => {
        if (written === undefined) return Effect.void
        if (entersState[transition._tag]) observability.entered(written.status)
        return publish(written)
      })
    )

  /** Heartbeats until the worker is fenced (then completes), waking early on a signal. */
  const watch = (task: Task.TaskRecord, input: TaskInput): Effect.Effect<void> =>
    Effect.gen(function*() {
      const wake = Latch.makeUnsafe(false)
      watchers.set(task.taskId, () => wake.openUnsafe())
      yield* Effect.addFinalizer(() => Effect.sync(() => watchers.delete(task.taskId)))
      for (;;) {
        yield* Effect.timeoutOrElse(wake.await, { duration: Duration.millis(heartbeatMs), orElse: () => Effect.void })
        wake.closeUnsafe()
        const current = yield* logged(`task ${task.taskId}: heartbeat failed`, store.heartbeat(task.taskId, task.generation, options.leaseMs))
        // A failed heartbeat is retried at the next beat; a fenced one ends the run. A store that
        // cannot answer (a database restarting) is not a fence: the run goes on, and if the lease
        // runs out meanwhile, the next heartbeat finds the task claimed elsewhere.
        if (current === undefined) {
          const fresh = yield* Effect.exit(store.get(task.taskId))
          if (Exit.isFailure(fresh)) {
            yield* Effect.logError(`task ${task.taskId}: read failed`, fresh.cause)
            continue
          }
          if (fresh.value === undefined || fresh.value.generation !== task.generation || Task.isTerminal(fresh.value.status)) return
          continue
        }
        input.observe(current)
      }
    }).pipe(Effect.scoped)

  const settle = (task: Task.TaskRecord, input: TaskInput, outcome: Outcome): Effect.Effect<void> => {
    switch (outcome._tag) {
      case "Fenced":
        return Effect.logDebug(`task ${task.taskId}: the worker lost its task (cancelled or recovered elsewhere)`)
      case "TimedOut":
        return Effect.asVoid(write(task, { _tag: "Fail", error: wireOf(timedOut(options.maxRunMs)) }))
      case "Done": {
        const exit = outcome.exit
        if (Exit.isSuccess(exit)) return Effect.asVoid(write(task, { _tag: "Complete", result: exit.value }))
        if (input.refusal !== undefined) return Effect.asVoid(write(task, { _tag: "Fail", error: wireOf(input.refusal) }))
        const failure = Cause.findError(exit.cause)
        if (failure._tag === "Success" && isMcpError(failure.success)) {
          return Effect.asVoid(write(task, { _tag: "Fail", error: wireOf(failure.success) }))
        }
        if (Cause.hasInterruptsOnly(exit.cause)) return Effect.asVoid(write(task, { _tag: "Release" }))
        const delay = options.retryDelaysMs[task.attempt - 1]
        return Effect.logError(`task ${task.taskId}: attempt ${task.attempt} died`, exit.cause).pipe(
          Effect.andThen(
            delay === undefined
              ? write(task, { _tag: "Fail", error: wireOf(internalErrorOfDefect()) })
              : write(task, { _tag: "Retry", delayMs: delay })
          ),
          Effect.asVoid
        )
      }
    }
  }

  const run = (task: Task.TaskRecord): Effect.Effect<void> => {
    const input: TaskInput = new TaskInput(task, {
      park: (inputRequests) => write(task, { _tag: "Park", inputRequests }),
      resume: Effect.asVoid(write(task, { _tag: "Resume" })),
      note: (statusMessage) => Effect.asVoid(write(task, { _tag: "Note", statusMessage }))
    })
    const work = observability.run(task, executor.execute(task, input)).pipe(
      Effect.exit,
      Effect.map((exit): Outcome => ({ _tag: "Done", exit })),
      Effect.timeoutOrElse({ duration: Duration.millis(options.maxRunMs), orElse: () => Effect.succeed<Outcome>({ _tag: "TimedOut" }) })
    )
    const fenced = Effect.as(watch(task, input), { _tag: "Fenced" } as Outcome)
    return Effect.raceFirst(work, fenced).pipe(
      Effect.flatMap((outcome) => settle(task, input, outcome)),
      // Interrupted from outside (the runner's scope closing): the lease goes back at once.
      Effect.onInterrupt(() => Effect.asVoid(logged(`task ${task.taskId}: release failed`, store.transition(task.taskId, task.generation, { _tag: "Release" })))),
      Effect.ensuring(Effect.sync(() => {
        running--
        claimWake.openUnsafe()
      }))
    )
  }

  const start = (task: Task.TaskRecord): Effect.Effect<void> =>
    Effect.suspend(() => {
      running++
      return Effect.asVoid(FiberMap.run(fibers, task.taskId, run(task)))
    })

  const claimLoop = Effect.gen(function*() {
    for (;;) {
      const free = options.maxRunning - running
      if (free > 0) {
        const claimed = yield* logged("claiming tasks failed", store.claim(owner, options.leaseMs, free))
        for (const task of claimed ?? []) yield* start(task)
      }
      yield* Effect.timeoutOrElse(claimWake.await, { duration: Duration.millis(options.claimIntervalMs), orElse: () => Effect.void })
      claimWake.closeUnsafe()
    }
  })

  const reapLoop = Effect.gen(function*() {
    for (;;) {
      yield* Effect.sleep(Duration.millis(options.reapIntervalMs))
      // bounded batches, at most 100 per pass: a backlog is worked off over several passes
      for (let batch = 0; batch < 100; batch++) {
        const deleted = yield* logged("reaping expired tasks failed", store.expire(options.reapBatch))
        if (deleted === undefined || deleted < options.reapBatch) break
      }
    }
  })

  yield* Effect.forkScoped(claimLoop)
  yield* Effect.forkScoped(reapLoop)

  return {
    owner,
    hasCapacity: () => running < options.maxRunning,
    start,
    changed,
    running: () => running
  }
})

/**
 * A protocol error as a failed task carries it.
 *
 * @category combinators
 * @since 0.1.0
 */
export const wireOf = (error: McpError): Task.TaskError => toWire(error) as Task.TaskError
