/**
 * A task the server made of a request (the Tasks extension, `io.modelcontextprotocol/tasks`): a
 * `tools/call` answered with `resultType: "task"` becomes a handle with the task's status as a
 * `Stream` (woken by `notifications/tasks` on a listen stream, `tasks/get` the authority), `await`
 * for the result (answering `input_required` through `tasks/update` with the application's
 * {@link InputHandlers}), and `cancel`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpClient } from "@snodo/client"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* McpClient
 *   const started = yield* client.startTool("slow_compute", { seconds: 2 })
 *   if (started._tag === "Task") return yield* started.task.await
 *   return started.result
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Duration, Effect, Option, Predicate, type Scope, Stream } from "effect"
import * as Methods from "@snodo/protocol/methods/Methods"
import * as Tasks from "@snodo/protocol/wire/Tasks"
import type * as Tools from "@snodo/protocol/wire/Tools"
import { type McpClientError, RpcError, TaskCancelled, TooManyRounds, TransportError } from "./McpClientError.ts"

/**
 * The extension's identifier.
 *
 * @category constants
 * @since 0.1.0
 */
export const extensionId = Tasks.extensionId

/**
 * A task's state as `tasks/get` (or `notifications/tasks`) reports it.
 *
 * @category models
 * @since 0.1.0
 */
export interface TaskState {
  readonly taskId: string
  readonly status: "working" | "input_required" | "completed" | "cancelled" | "failed"
  readonly statusMessage?: string
  readonly pollIntervalMs?: number
  readonly inputRequests?: Readonly<Record<string, unknown>>
  readonly result?: Readonly<Record<string, unknown>>
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown }
  readonly [key: string]: unknown
}

/**
 * @category models
 * @since 0.1.0
 */
export interface TaskHandle {
  readonly taskId: string
  /** The state the task was created with. */
  readonly created: TaskState
  /** `tasks/get`. */
  readonly get: Effect.Effect<TaskState, McpClientError>
  /**
   * The task's states until a terminal one (included), each distinct status once: woken by
   * `notifications/tasks`, confirmed by `tasks/get`, polled at `pollIntervalMs` otherwise. An
   * `input_required` state is answered through `tasks/update` with the client's handlers.
   */
  readonly status: Stream.Stream<TaskState, McpClientError>
  /** Waits for the result: `completed` → the `CallToolResult`; `failed` → its error; `cancelled` → {@link TaskCancelled}. */
  readonly await: Effect.Effect<Tools.CallToolResult, McpClientError>
  /** `tasks/cancel` (cooperative: the server acknowledges, the task may still finish). */
  readonly cancel: Effect.Effect<void, McpClientError>
}

/**
 * What a task handle needs of its client.
 *
 * @category models
 * @since 0.1.0
 */
export interface Driver {
  readonly request: (method: string, params: Readonly<Record<string, unknown>>) => Effect.Effect<Readonly<Record<string, unknown>>, McpClientError>
  /** Answers input requests by key with the application's handlers. */
  readonly answer: (requests: Readonly<Record<string, unknown>>) => Effect.Effect<Readonly<Record<string, unknown>>, McpClientError>
  /** Completes when a `notifications/tasks` for the task arrives (or never). */
  readonly changed: (taskId: string) => Effect.Effect<void>
  /** Asks the server for the task's `notifications/tasks` for the scope's lifetime (a listen stream). */
  readonly watch: (taskId: string) => Effect.Effect<void, never, Scope.Scope>
  /** `tasks/update` rounds answered before the task fails with {@link TooManyRounds} (default 10). */
  readonly maxRounds?: number
  /** How long `await` waits for a terminal state before cancelling the task (default: no bound). */
  readonly timeout?: Duration.Input
}

const terminal = new Set(["completed", "cancelled", "failed"])

const stateOf = (value: Readonly<Record<string, unknown>>): TaskState => value as unknown as TaskState

/**
 * A handle on the task `created` describes.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (driver: Driver, created: Readonly<Record<string, unknown>>): TaskHandle => {
  const first = stateOf(created)
  const taskId = first.taskId
  const get = Effect.map(driver.request(Methods.TasksGet.name, { taskId }), stateOf)
  const answered = new Set<string>()
  const maxRounds = driver.maxRounds ?? 10
  let rounds = 0

  /** Answers the input requests not answered yet. */
  const fulfil = (state: TaskState) =>
    Effect.gen(function*() {
      const pending = Object.fromEntries(Object.entries(state.inputRequests ?? {}).filter(([key]) => !answered.has(key)))
      if (Object.keys(pending).length === 0) return
      if (++rounds > maxRounds) {
        yield* Effect.ignore(driver.request(Methods.TasksCancel.name, { taskId }))
        return yield* new TooManyRounds({
          method: Methods.ToolsCall.name,
          rounds: maxRounds,
          message: `Task ${taskId} still asked for input after ${maxRounds} rounds (maxRounds); it was cancelled`
        })
      }
      const responses = yield* driver.answer(pending)
      for (const key of Object.keys(pending)) answered.add(key)
      yield* driver.request(Methods.TasksUpdate.name, { taskId, inputResponses: responses })
    })

  const pause = (state: TaskState) =>
    Effect.raceFirst(driver.changed(taskId), Effect.sleep(Duration.millis(Math.max(20, state.pollIntervalMs ?? 500))))

  const polled: Stream.Stream<TaskState, McpClientError> = Stream.paginate(
    undefined as string | undefined,
    (last) =>
      Effect.gen(function*() {
        const state = yield* get
        if (state.status === "input_required") yield* fulfil(state)
        const emit = state.status === last ? [] : [state]
        if (terminal.has(state.status)) return [emit, Option.none()] as const
        yield* pause(state)
        return [emit, Option.some(state.status)] as const
      })
  )
  const status = Stream.unwrap(Effect.as(driver.watch(taskId), polled))

  const awaitResult = Effect.flatMap(Stream.runLast(status), (last): Effect.Effect<Tools.CallToolResult, McpClientError> => {
    const state = Option.getOrElse(last, () => first)
    switch (state.status) {
      case "completed":
        return Effect.succeed(
          (Predicate.isObject(state.result) ? { resultType: "complete", ...state.result } : { resultType: "complete", content: [] }) as Tools.CallToolResult
        )
      case "failed":
        return Effect.fail(
          new RpcError({
            method: Methods.ToolsCall.name,
            code: state.error?.code ?? -32603,
            message: state.error?.message ?? "The task failed",
            ...(state.error?.data === undefined ? {} : { data: state.error.data })
          })
        )
      default:
        return Effect.fail(new TaskCancelled({ taskId, message: state.statusMessage ?? `Task ${taskId} was cancelled` }))
    }
  })

  const bounded = driver.timeout === undefined ? awaitResult : Effect.suspend(() => {
    const millis = Duration.toMillis(Duration.fromInputUnsafe(driver.timeout!))
    return Effect.timeoutOrElse(awaitResult, {
      duration: millis,
      orElse: () =>
        Effect.andThen(
          Effect.ignore(driver.request(Methods.TasksCancel.name, { taskId })),
          Effect.fail(new TransportError({ reason: "Timeout", message: `Task ${taskId} did not finish within ${millis} ms (taskTimeout); it was cancelled` }))
        )
    })
  })

  return {
    taskId,
    created: first,
    get,
    status,
    await: bounded,
    cancel: Effect.asVoid(driver.request(Methods.TasksCancel.name, { taskId }))
  }
}
