/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on snodo's extension seam.
 *
 * Added to a server by the application (`McpServer.make(...).extend(Tasks.extension(options))`)
 * with a `TaskStore` Layer; advertised in `server/discover` as `extensions[name] = {}` and
 * negotiated per request: only a request whose `clientCapabilities.extensions` names it may get a
 * task, or use `tasks/get`, `tasks/update`, `tasks/cancel` (any other is refused with -32021 before
 * its task id is looked up) or the `taskIds` key of `subscriptions/listen`.
 *
 * - `tools/call` of a tool whose {@link Policy} allows it answers a flat `CreateTaskResult` once the
 *   task is durable (a `tasks/get` right after resolves). A legacy `params.task` is ignored.
 * - `tasks/get` answers the `DetailedTask`: `working`; `input_required` with every outstanding
 *   `inputRequests`; `completed` with the whole `CallToolResult` (an `isError` result is
 *   completed); `failed` with the JSON-RPC `error`; `cancelled`.
 * - `tasks/update` records answers to outstanding requests before it acknowledges (other keys are
 *   ignored, unvalidated; a partial set leaves the rest pending); `tasks/cancel` cancels (and
 *   acknowledges a finished task too). Both answer `{ resultType: "complete" }`.
 * - An unknown task, an expired one and another principal's are all -32602: every read, update,
 *   cancel and subscription is scoped to the request's principal. `tasks/list` and `tasks/result`
 *   (removed from the extension) are -32601.
 * - `subscriptions/listen` with `notifications.taskIds` receives `notifications/tasks` carrying the
 *   same `DetailedTask` as `tasks/get`, for the principal's own tasks. Notifications are
 *   observations; the store is the truth.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { McpServer } from "@snodo/core"
 * import * as Tasks from "@snodo/tasks"
 *
 * const Server = McpServer.make({ name: "jobs", version: "1.0.0" })
 *   .add(slowCompute)
 *   .extend(Tasks.extension({ tools: { slow_compute: Tasks.optional() } }))
 *
 * const Runtime = Server.layer.pipe(Layer.provide(Tasks.TaskStore.layerMemory()))
 * ```
 *
 * @since 0.1.0
 */
import { SubscriptionHub } from "@snodo/core"
import { Extension } from "@snodo/core/extension"
import { ConfigurationError } from "@snodo/core/ConfigurationError"
import { McpInput } from "@snodo/core/Input"
import { InvalidParams, type McpError, ServerBusy } from "@snodo/core/McpError"
import * as Route from "@snodo/core/extension/Route"
import * as ToolCall from "@snodo/core/extension/ToolCall"
import type { Principal } from "@snodo/core/Principal"
import * as Methods from "@snodo/protocol/methods/Methods"
import type { JsonValue } from "@snodo/protocol/wire/Json"
import { Effect, Exit, Option } from "effect"
import { TaskPhase } from "./Phase.ts"
import type { Policy } from "./Policy.ts"
import * as Runner from "./Runner.ts"
import * as Task from "./Task.ts"
import * as TaskObservability from "./TaskObservability.ts"
import { TaskSignals } from "./TaskSignals.ts"
import * as TaskSignalsModule from "./TaskSignals.ts"
import { type Limits, type TaskLimitReached, TaskStore, type TaskStoreError } from "./TaskStore.ts"
import * as WorkExecutor from "./WorkExecutor.ts"

/**
 * The extension's identifier.
 *
 * @category constants
 * @since 0.1.0
 */
export const name = "io.modelcontextprotocol/tasks"

/**
 * The listen topic of one task's notifications.
 *
 * @category combinators
 * @since 0.1.0
 */
export const topicOf = (taskId: string): string => `${name}/${taskId}`

/**
 * Extension options; every limit has a default.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The tools that may run as tasks, by name, with their policy (others: never). */
  readonly tools: Readonly<Record<string, Policy>>
  /** Time to live of a task from creation, in ms; `null` for unlimited. Default 1 h. */
  readonly ttlMs?: number | null
  /** The polling interval suggested to clients. Default 250 ms. */
  readonly pollIntervalMs?: number
  /** Tasks stored at once, any status, until they expire. Default 10,000. */
  readonly maxStored?: number
  /** Tasks of one principal stored at once, any status, until they expire. Default 1,000. */
  readonly maxStoredPerPrincipal?: number
  /** Bytes of JSON stored at once (work, answers, results, errors), until the tasks expire. Default 512 MiB. */
  readonly maxStoredBytes?: number
  /** Bytes of JSON of one principal's tasks stored at once. Default 32 MiB. */
  readonly maxStoredBytesPerPrincipal?: number
  /** Non-terminal tasks of one principal. Default 100. */
  readonly maxActivePerPrincipal?: number
  /** Largest arguments of a task, and answers of one `tasks/update`, in bytes of JSON. Default 256 KiB. */
  readonly maxInputBytes?: number
  /** Task ids one listen stream may follow. Default 1,000. */
  readonly maxListenTaskIds?: number
  readonly runner?: Partial<Runner.Options>
}

/**
 * The defaults.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults = {
  ttlMs: 3_600_000,
  pollIntervalMs: 250,
  maxStored: 10_000,
  maxStoredPerPrincipal: 1_000,
  maxStoredBytes: 512 * 1024 * 1024,
  maxStoredBytesPerPrincipal: 32 * 1024 * 1024,
  maxActivePerPrincipal: 100,
  /** The `Retry-After` of a refusal whose end the store cannot tell (an outage, the active limit). */
  retryAfterMs: 1_000,
  maxInputBytes: 256 * 1024,
  maxListenTaskIds: 1_000
} as const

const notFound = new InvalidParams({ message: "Failed to retrieve task: Task not found" })
const expired = new InvalidParams({ message: "Failed to retrieve task: Task has expired" })

/**
 * A store that cannot answer (a database restarting, a failover, a full disk) is the server's
 * backend being unavailable, not the client's fault and not a defect: the call is refused as
 * retryable (-32603 `ServerBusy`, HTTP 503 with `Retry-After`), and nothing was committed.
 */
const storeFailed = (error: TaskStoreError): Effect.Effect<never, McpError> =>
  Effect.logError("task store failed", error).pipe(Effect.andThen(Effect.fail(
    new ServerBusy({
      message: "Server busy: the task store is unavailable",
      data: { retryable: true, retryAfterMs: defaults.retryAfterMs }
    })
  )))

const limitMessages: Readonly<Record<TaskLimitReached["limit"], string>> = {
  stored: "too many tasks stored",
  storedPerPrincipal: "too many tasks stored for this caller",
  storedBytes: "too many bytes of tasks stored",
  storedBytesPerPrincipal: "too many bytes of tasks stored for this caller",
  activePerPrincipal: "too many active tasks for this caller"
}

/** A refused create as the client sees it: when room is expected, if the store could tell. */
const limitReached = (refused: TaskLimitReached): ServerBusy =>
  new ServerBusy({
    message: `Server busy: ${limitMessages[refused.limit]}`,
    data: { retryable: true, limit: refused.max, retryAfterMs: Math.max(defaults.retryAfterMs, refused.retryAfterMs ?? 0) }
  })

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), "utf8")

/** Fails with -32602 (the limit in `data`) when `value` is larger than `limit` bytes of JSON. */
const within = (value: unknown, limit: number, what: string): Effect.Effect<void, InvalidParams> =>
  bytesOf(value) > limit
    ? Effect.fail(new InvalidParams({ message: `Invalid params: ${what} exceed ${limit} bytes`, data: { limit } }))
    : Effect.void

/** JSON only: a principal's claims or arguments as they survive a store. */
const asJson = <A>(value: A): Readonly<Record<string, JsonValue>> => JSON.parse(JSON.stringify(value ?? {})) as Readonly<Record<string, JsonValue>>

/**
 * The Tasks extension, for a server whose application provides a `TaskStore` (and optionally
 * `TaskSignals` and a `WorkExecutor`).
 *
 * @category combinators
 * @since 0.1.0
 */
export const extension = (options: Options): Extension.Extension<TaskStore> =>
  Extension.make({
    name,
    settings: {},
    make: (environment) =>
      Effect.gen(function*() {
        for (const tool of Object.keys(options.tools)) {
          if (!environment.catalog.tools.has(tool)) {
            return yield* new ConfigurationError({ message: `Tasks: a policy names the tool "${tool}", which the server does not have` })
          }
        }
        const store = yield* TaskStore
        const signals = Option.getOrElse(yield* Effect.serviceOption(TaskSignals), TaskSignalsModule.makeMemory)
        const executor = Option.getOrElse(yield* Effect.serviceOption(WorkExecutor.WorkExecutor), () => WorkExecutor.forTools(environment))
        const ttlMs = options.ttlMs === undefined ? defaults.ttlMs : options.ttlMs
        const pollIntervalMs = options.pollIntervalMs ?? defaults.pollIntervalMs
        const maxInputBytes = options.maxInputBytes ?? defaults.maxInputBytes
        const maxListenTaskIds = options.maxListenTaskIds ?? defaults.maxListenTaskIds
        const limits: Limits = {
          maxStored: options.maxStored ?? defaults.maxStored,
          maxStoredPerPrincipal: options.maxStoredPerPrincipal ?? defaults.maxStoredPerPrincipal,
          maxStoredBytes: options.maxStoredBytes ?? defaults.maxStoredBytes,
          maxStoredBytesPerPrincipal: options.maxStoredBytesPerPrincipal ?? defaults.maxStoredBytesPerPrincipal,
          maxActivePerPrincipal: options.maxActivePerPrincipal ?? defaults.maxActivePerPrincipal
        }
        const runnerOptions: Runner.Options = { ...Runner.defaults, ...options.runner }

        const hub = environment.hub
        const publish = (task: Task.TaskRecord): Effect.Effect<void> =>
          hub === undefined ? Effect.void : hub.publish(SubscriptionHub.topic({
            topic: topicOf(task.taskId),
            method: "notifications/tasks",
            params: Task.detailed(task),
            principal: task.principal
          }))

        const observability = yield* TaskObservability.make
        const runner = yield* Runner.make(runnerOptions, publish, observability).pipe(
          Effect.provideService(TaskStore, store),
          Effect.provideService(TaskSignals, signals),
          Effect.provideService(WorkExecutor.WorkExecutor, executor)
        )

        /** The task, when it exists, has not expired and is the principal's; else the -32602 to answer. */
        const owned = (taskId: string, principal: Principal["Service"]) =>
          Effect.gen(function*() {
            const task = yield* store.get(taskId)
            if (task === undefined || task.principal !== principal.id) return yield* Effect.fail(notFound)
            if (Task.isExpired(task, yield* store.now)) return yield* Effect.fail(expired)
            return task
          }).pipe(Effect.catchTag("TaskStoreError", storeFailed))

        const announce = (before: Task.TaskRecord, after: Task.TaskRecord | undefined) =>
          after === undefined || after.revision === before.revision
            ? Effect.void
            : Effect.andThen(
              Effect.sync(() => {
                if (after.status !== before.status) observability.entered(after.status)
                runner.changed(after.taskId)
              }),
              Effect.andThen(signals.changed(after.taskId), publish(after))
            )

        const get = Route.make({
          method: Methods.TasksGet,
          run: (call) => Effect.map(owned(call.params.taskId, call.principal), (task) => Route.result(Task.detailed(task)))
        })

        const update = Route.make({
          method: Methods.TasksUpdate,
          run: (call) =>
            Effect.gen(function*() {
              const task = yield* owned(call.params.taskId, call.principal)
              yield* within(call.params.inputResponses, maxInputBytes, "inputResponses")
              const responses = asJson(call.params.inputResponses)
              const updated = yield* store.respond(task.taskId, responses).pipe(Effect.catchTag("TaskStoreError", storeFailed))
              yield* announce(task, updated)
              return Route.acknowledged
            })
        })

        const cancel = Route.make({
          method: Methods.TasksCancel,
          run: (call) =>
            Effect.gen(function*() {
              const task = yield* owned(call.params.taskId, call.principal)
              const cancelled = yield* store.cancel(task.taskId).pipe(Effect.catchTag("TaskStoreError", storeFailed))
              yield* announce(task, cancelled)
              return Route.acknowledged
            })
        })

        /** Creates the task of a call and answers its `CreateTaskResult` once it is durable. */
        const create = (call: Route.Call<ToolCall.Params>, target: ToolCall.Target, answers: Readonly<Record<string, JsonValue>>) =>
          Effect.gen(function*() {
            yield* within(target.arguments, maxInputBytes, "the arguments of a task")
            const trace = observability.origin(call.transport.span)
            const work: Task.Work = {
              tool: target.tool.tool.name,
              arguments: asJson(target.arguments),
              principal: { id: call.principal.id, claims: asJson(call.principal.claims) },
              protocolVersion: call.meta.protocolVersion,
              clientCapabilities: asJson(call.meta.clientCapabilities),
              clientInfo: call.meta.clientInfo,
              ...(trace === undefined ? {} : { trace })
            }
            const lease = runner.hasCapacity() ? { owner: runner.owner, leaseMs: runnerOptions.leaseMs } : undefined
            const task = yield* store.create({ taskId: Task.makeId(), work, ttlMs, pollIntervalMs, answers }, limits, lease).pipe(
              Effect.catchTags({
                TaskLimitReached: (refused) => Effect.fail(limitReached(refused)),
                TaskStoreError: storeFailed
              })
            )
            observability.entered(task.status)
            if (lease === undefined) yield* signals.work
            else yield* runner.start(task)
            return Route.result(Task.created(task))
          })

        /** Runs the handler in the request until it yields `Tasks.detach`, then creates the task there. */
        const untilDetach = (call: Route.Call<ToolCall.Params>, target: ToolCall.Target) =>
          Effect.gen(function*() {
            let carried: Readonly<Record<string, JsonValue>> | undefined
            const phase = TaskPhase.of({
              phase: "request",
              taskId: undefined,
              note: () => Effect.void,
              detach: Effect.flatMap(Effect.serviceOption(McpInput), (session) => {
                carried = Option.isSome(session) ? session.value.answers() : {}
                return Effect.interrupt
              })
            })
            const exit = yield* Effect.exit(ToolCall.run(target, (effect) => call.provide(Effect.provideService(effect, TaskPhase, phase))))
            if (carried !== undefined) return yield* create(call, target, carried)
            return Exit.isSuccess(exit) ? Route.result(exit.value) : yield* Effect.failCause(exit.cause)
          })

        const toolCall = Extension.wrap(ToolCall.route, (route) => ({
          ...route,
          run: (call, target) => {
            const policy = options.tools[target.tool.tool.name]
            if (policy === undefined || policy._tag === "Never") return route.run(call, target)
            if (!call.negotiated(name)) {
              return policy._tag === "Required"
                ? Effect.fail(Extension.required(name, "Missing required client capability: this tool runs as a task"))
                : route.run(call, target)
            }
            if (policy._tag === "Optional" && !policy.when(target.arguments)) return route.run(call, target)
            return policy.detach ? untilDetach(call, target) : create(call, target, {})
          }
        }))

        const taskIds: Extension.ListenFilter = {
          key: "taskIds",
          honour: (requested, principal) =>
            Effect.gen(function*() {
              if (!Array.isArray(requested) || !requested.every((id) => typeof id === "string")) {
                return yield* new InvalidParams({ message: "Invalid params: notifications.taskIds must be a list of task ids" })
              }
              const ids = [...new Set(requested as ReadonlyArray<string>)]
              if (ids.length > maxListenTaskIds) {
                return yield* new InvalidParams({ message: `Invalid params: at most ${maxListenTaskIds} taskIds per stream` })
              }
              const now = yield* store.now
              const mine: Array<string> = []
              for (const id of ids) {
                const task = yield* store.get(id)
                if (task !== undefined && task.principal === principal.id && !Task.isExpired(task, now)) mine.push(id)
              }
              return { topics: mine.map(topicOf), acknowledged: mine }
            }).pipe(Effect.catchTag("TaskStoreError", storeFailed))
        }

        return {
          routes: [get, update, cancel],
          removed: ["tasks/list", "tasks/result"],
          wraps: [toolCall],
          listen: [taskIds]
        } satisfies Extension.Contribution
      })
  })
