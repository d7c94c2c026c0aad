/**
 * The durable half of the Tasks extension: where tasks live, as a service chosen by Layer.
 *
 * Every operation is atomic. Two kinds of writers meet here, and the store keeps them apart:
 *
 * - **workers** (the runner) write through {@link Transition}s fenced by the task's `generation`:
 *   a write whose generation is no longer the task's (another worker claimed it, or it was
 *   cancelled) changes nothing and answers `undefined`, so a stale worker learns it must stop. In a
 *   SQL store the fence is the `WHERE` of the update: the database refuses the stale commit.
 * - **clients** (`tasks/update`, `tasks/cancel`) write by key and status, never by generation.
 *
 * Every change bumps the task's `revision`. Times come from the store's clock (the memory store's
 * `Clock`, a database's own clock), so leases, retry delays and time to live agree across
 * instances sharing the store. Terminal tasks never change again.
 *
 * Stores: {@link layerMemory} here (one process; tests), `@snodo/tasks-sqlite` (embedded, one
 * host), `@snodo/postgres` (many instances). Each passes the contract suite in
 * `@snodo/tasks/TaskStoreContract`.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import * as TaskStore from "@snodo/tasks/TaskStore"
 *
 * const Store = TaskStore.layerMemory()
 * ```
 *
 * @since 0.1.0
 */
import type { JsonValue } from "@snodo/protocol/wire/Json"
import type { InputRequest } from "@snodo/protocol/wire/Mrtr"
import { Clock, Context, Effect, Layer, Schema } from "effect"
import * as Task from "./Task.ts"

/**
 * The store failed (a database error, a corrupt row): infrastructure, not a protocol answer.
 *
 * @category errors
 * @since 0.1.0
 */
export class TaskStoreError extends Schema.TaggedError<TaskStoreError>()("TaskStoreError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {}

/**
 * A task was refused because a capacity limit is reached: stored tasks (in all, or of its
 * principal), their bytes (in all, or of its principal), or active tasks of its principal.
 * `retryAfterMs`, when set, is when the first of the tasks counted expires (room is not expected
 * before); the active limit has none (a task ends when its work does).
 *
 * @category errors
 * @since 0.1.0
 */
export class TaskLimitReached extends Schema.TaggedError<TaskLimitReached>()("TaskLimitReached", {
  limit: Schema.Literals(["stored", "storedPerPrincipal", "storedBytes", "storedBytesPerPrincipal", "activePerPrincipal"]),
  max: Schema.Number,
  retryAfterMs: Schema.optional(Schema.Number)
}) {}

/**
 * Capacity limits checked at creation.
 *
 * @category models
 * @since 0.1.0
 */
export interface Limits {
  /** Tasks stored at once (any status, until they expire). */
  readonly maxStored: number
  /** Tasks of one principal stored at once (any status, until they expire). None when absent. */
  readonly maxStoredPerPrincipal?: number | undefined
  /** Bytes stored at once, as {@link bytesOf} counts them (until the tasks expire). None when absent. */
  readonly maxStoredBytes?: number | undefined
  /** Bytes of one principal's tasks stored at once. None when absent. */
  readonly maxStoredBytesPerPrincipal?: number | undefined
  /** Non-terminal tasks of one principal. */
  readonly maxActivePerPrincipal: number
}

/**
 * Bytes of JSON a task stores for its principal: its work (the arguments), its answers, its result
 * and its error. What the byte budgets count.
 *
 * @category combinators
 * @since 0.1.0
 */
export const bytesOf = (task: Pick<Task.TaskRecord, "work" | "answers" | "result" | "error">): number =>
  jsonBytes(task.work) + jsonBytes(task.answers) + (task.result === undefined ? 0 : jsonBytes(task.result)) +
  (task.error === undefined ? 0 : jsonBytes(task.error))

/**
 * Bytes of a value's JSON text.
 *
 * @category combinators
 * @since 0.1.0
 */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), "utf8")

/**
 * What a store counted for one scope (all tasks, or one principal's) at a create.
 *
 * @category models
 * @since 0.1.0
 */
export interface Usage {
  readonly stored: number
  readonly bytes: number
  /** The earliest expiry among the tasks counted (epoch ms), if any expires. */
  readonly soonest: number | undefined
}

/**
 * The limit a new task of `bytes` would pass, given what is stored (tasks not expired yet) in all
 * and for its principal, and its principal's active tasks; `undefined` when it fits. The checks
 * run in this order: the principal's own limits first.
 *
 * @category combinators
 * @since 0.1.0
 */
export const checkLimits = (
  limits: Limits,
  bytes: number,
  usage: { readonly all: Usage; readonly principal: Usage; readonly active: number },
  now: number
): TaskLimitReached | undefined => {
  const perPrincipal = limits.maxStoredPerPrincipal ?? Infinity
  const bytesPerPrincipal = limits.maxStoredBytesPerPrincipal ?? Infinity
  const allBytes = limits.maxStoredBytes ?? Infinity
  const after = (soonest: number | undefined) => soonest === undefined ? {} : { retryAfterMs: Math.max(0, soonest - now) }
  if (usage.active >= limits.maxActivePerPrincipal) return new TaskLimitReached({ limit: "activePerPrincipal", max: limits.maxActivePerPrincipal })
  if (usage.principal.stored >= perPrincipal) {
    return new TaskLimitReached({ limit: "storedPerPrincipal", max: perPrincipal, ...after(usage.principal.soonest) })
  }
  if (usage.principal.bytes + bytes > bytesPerPrincipal) {
    return new TaskLimitReached({ limit: "storedBytesPerPrincipal", max: bytesPerPrincipal, ...after(usage.principal.soonest) })
  }
  if (usage.all.stored >= limits.maxStored) return new TaskLimitReached({ limit: "stored", max: limits.maxStored, ...after(usage.all.soonest) })
  if (usage.all.bytes + bytes > allBytes) {
    return new TaskLimitReached({ limit: "storedBytes", max: allBytes, ...after(usage.all.soonest) })
  }
  return undefined
}

/**
 * A lease to take at creation, so the creating instance runs the task at once.
 *
 * @category models
 * @since 0.1.0
 */
export interface Lease {
  readonly owner: string
  readonly leaseMs: number
}

/**
 * A worker's write, fenced by the generation it claimed.
 *
 * @category models
 * @since 0.1.0
 */
export type Transition =
  /** Waits for the client: `input_required` with these requests outstanding (replacing any). */
  | { readonly _tag: "Park"; readonly inputRequests: Readonly<Record<string, InputRequest>> }
  /** Back to `working` (the answers it waited for arrived). */
  | { readonly _tag: "Resume" }
  /** Terminal: the `CallToolResult` (an `isError` result is still completed). */
  | { readonly _tag: "Complete"; readonly result: Readonly<Record<string, JsonValue>> }
  /** Terminal: a JSON-RPC error. */
  | { readonly _tag: "Fail"; readonly error: Task.TaskError }
  /** The attempt failed transiently: the lease is given up and the task runs again after `delayMs`. */
  | { readonly _tag: "Retry"; readonly delayMs: number }
  /** The lease is given up (shutdown): another worker may claim the task at once. */
  | { readonly _tag: "Release" }
  /** A new `statusMessage`. */
  | { readonly _tag: "Note"; readonly statusMessage: string }

/**
 * @category services
 * @since 0.1.0
 */
export class TaskStore extends Context.Service<TaskStore, {
  /** The store's clock, in epoch milliseconds. */
  readonly now: Effect.Effect<number, TaskStoreError>
  /**
   * Stores a new `working` task, durably (a `get` right after resolves), and leases it to
   * `lease.owner` when given. Refused when a limit is reached.
   */
  readonly create: (task: Task.NewTask, limits: Limits, lease?: Lease) => Effect.Effect<Task.TaskRecord, TaskStoreError | TaskLimitReached>
  /** The task, whatever its status (time to live and principal are the caller's to check). */
  readonly get: (taskId: string) => Effect.Effect<Task.TaskRecord | undefined, TaskStoreError>
  /**
   * Claims up to `limit` tasks that are `working`, due (`nextRunAt` passed) and not leased (or whose
   * lease expired: recovery of a worker that died, never one of `owner`'s own, which is alive and
   * still finishing it): each gets a new generation, an attempt more, and a lease to `owner`. Two
   * claimers never get the same task. Fair across principals: the next task is the due one whose
   * principal would then have the fewest running (leased and `working`, on any instance), oldest
   * first, so one principal's backlog never delays another principal's first task.
   */
  readonly claim: (owner: string, leaseMs: number, limit: number) => Effect.Effect<ReadonlyArray<Task.TaskRecord>, TaskStoreError>
  /** Extends the lease of the worker holding `generation`; `undefined` when fenced (stop). */
  readonly heartbeat: (taskId: string, generation: number, leaseMs: number) => Effect.Effect<Task.TaskRecord | undefined, TaskStoreError>
  /** A worker's write; `undefined` when fenced (another generation, or a terminal task). */
  readonly transition: (taskId: string, generation: number, transition: Transition) => Effect.Effect<Task.TaskRecord | undefined, TaskStoreError>
  /**
   * Records the client's answers to outstanding requests (other keys, answered or never asked, are
   * ignored) before acknowledging; a task whose requests are all answered is `working` again.
   * `undefined` for an unknown task.
   */
  readonly respond: (taskId: string, responses: Readonly<Record<string, JsonValue>>) => Effect.Effect<Task.TaskRecord | undefined, TaskStoreError>
  /**
   * Cancels a task that is not terminal (a new generation fences its worker); a terminal task is
   * returned unchanged. `undefined` for an unknown task.
   */
  readonly cancel: (taskId: string) => Effect.Effect<Task.TaskRecord | undefined, TaskStoreError>
  /** Deletes up to `limit` tasks whose time to live has passed; how many. */
  readonly expire: (limit: number) => Effect.Effect<number, TaskStoreError>
}>()("@snodo/tasks/TaskStore") {}

/**
 * The record after a change: revision bumped, `lastUpdatedAt` the store's now.
 *
 * @category combinators
 * @since 0.1.0
 */
export const changed = (task: Task.TaskRecord, now: number, patch: Partial<Task.TaskRecord>): Task.TaskRecord => ({
  ...task,
  ...patch,
  revision: task.revision + 1,
  lastUpdatedAt: now
})

/**
 * A transition applied to a record (for stores that compute it outside the database). The caller
 * checks the fence first: the generation is the task's and the task is not terminal.
 *
 * @category combinators
 * @since 0.1.0
 */
export const applyTransition = (task: Task.TaskRecord, transition: Transition, now: number): Task.TaskRecord => {
  switch (transition._tag) {
    case "Park":
      return changed(task, now, { status: "input_required", inputRequests: transition.inputRequests })
    case "Resume":
      return changed(task, now, { status: "working", inputRequests: {} })
    case "Complete":
      return changed(task, now, { status: "completed", result: transition.result, inputRequests: {}, leaseOwner: undefined, leaseExpiresAt: undefined })
    case "Fail":
      return changed(task, now, { status: "failed", error: transition.error, inputRequests: {}, leaseOwner: undefined, leaseExpiresAt: undefined })
    case "Retry":
      return changed(task, now, {
        status: "working",
        inputRequests: {},
        leaseOwner: undefined,
        leaseExpiresAt: undefined,
        nextRunAt: now + transition.delayMs
      })
    case "Release":
      return changed(task, now, { leaseOwner: undefined, leaseExpiresAt: undefined })
    case "Note":
      return changed(task, now, { statusMessage: transition.statusMessage })
  }
}

/**
 * What recording `responses` does to a record: answers to outstanding keys are kept, the rest
 * ignored; the record is unchanged (same object) when nothing applied.
 *
 * @category combinators
 * @since 0.1.0
 */
export const applyResponses = (task: Task.TaskRecord, responses: Readonly<Record<string, JsonValue>>, now: number): Task.TaskRecord => {
  if (task.status !== "input_required") return task
  const outstanding: Record<string, InputRequest> = { ...task.inputRequests }
  const answers: Record<string, JsonValue> = { ...task.answers }
  let applied = false
  for (const [key, response] of Object.entries(responses)) {
    if (!Object.hasOwn(outstanding, key) || Object.hasOwn(answers, key)) continue
    answers[key] = response
    delete outstanding[key]
    applied = true
  }
  if (!applied) return task
  const done = Object.keys(outstanding).length === 0
  return changed(task, now, { answers, inputRequests: outstanding, status: done ? "working" : "input_required" })
}

/**
 * What cancelling does to a record (terminal: unchanged).
 *
 * @category combinators
 * @since 0.1.0
 */
export const applyCancel = (task: Task.TaskRecord, now: number): Task.TaskRecord =>
  Task.isTerminal(task.status)
    ? task
    : changed(task, now, {
      status: "cancelled",
      inputRequests: {},
      generation: task.generation + 1,
      leaseOwner: undefined,
      leaseExpiresAt: undefined
    })

/**
 * A new record, as every store creates it.
 *
 * @category combinators
 * @since 0.1.0
 */
export const newRecord = (task: Task.NewTask, now: number, lease: Lease | undefined): Task.TaskRecord => ({
  taskId: task.taskId,
  principal: task.work.principal.id,
  status: "working",
  statusMessage: undefined,
  createdAt: now,
  lastUpdatedAt: now,
  ttlMs: task.ttlMs,
  pollIntervalMs: task.pollIntervalMs,
  work: task.work,
  inputRequests: {},
  answers: task.answers,
  result: undefined,
  error: undefined,
  revision: 1,
  generation: lease === undefined ? 0 : 1,
  attempt: lease === undefined ? 0 : 1,
  leaseOwner: lease?.owner,
  leaseExpiresAt: lease === undefined ? undefined : now + lease.leaseMs,
  nextRunAt: now
})

/**
 * An in-memory store for one process (and tests): a `Map`, with the `Clock` service as its clock,
 * so `TestClock` drives leases, retries and time to live.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeMemory = (): TaskStore["Service"] => {
  const tasks = new Map<string, Task.TaskRecord>()
  /** Bytes each task stores (bytesOf), kept beside it so a create does not measure every task again. */
  const sizes = new Map<string, number>()
  const now = Clock.currentTimeMillis
  const put = (task: Task.TaskRecord) => {
    const before = tasks.get(task.taskId)
    tasks.set(task.taskId, task)
    if (before === undefined || before.result !== task.result || before.error !== task.error || before.answers !== task.answers) {
      sizes.set(task.taskId, bytesOf(task))
    }
    return task
  }
  const usage = (principal: string, at: number) => {
    const all = { stored: 0, bytes: 0, soonest: undefined as number | undefined }
    const mine = { stored: 0, bytes: 0, soonest: undefined as number | undefined }
    let active = 0
    for (const stored of tasks.values()) {
      const own = stored.principal === principal
      if (own && !Task.isTerminal(stored.status)) active++
      if (Task.isExpired(stored, at)) continue
      const bytes = sizes.get(stored.taskId) ?? 0
      const expiry = stored.ttlMs === null ? undefined : stored.createdAt + stored.ttlMs
      for (const scope of own ? [all, mine] : [all]) {
        scope.stored++
        scope.bytes += bytes
        if (expiry !== undefined && (scope.soonest === undefined || expiry < scope.soonest)) scope.soonest = expiry
      }
    }
    return { all, principal: mine, active }
  }
  return TaskStore.of({
    now,
    create: (task, limits, lease) =>
      Effect.flatMap(now, (at): Effect.Effect<Task.TaskRecord, TaskStoreError | TaskLimitReached> => {
        const record = newRecord(task, at, lease)
        const refused = checkLimits(limits, bytesOf(record), usage(task.work.principal.id, at), at)
        if (refused !== undefined) return Effect.fail(refused)
        if (tasks.has(task.taskId)) return Effect.fail(new TaskStoreError({ message: `Task id ${task.taskId} already exists` }))
        return Effect.succeed(put(record))
      }),
    get: (taskId) => Effect.sync(() => tasks.get(taskId)),
    claim: (owner, leaseMs, limit) =>
      Effect.map(now, (at) => {
        const running = new Map<string, number>()
        const due: Array<Task.TaskRecord> = []
        for (const task of tasks.values()) {
          if (task.status !== "working") continue
          if (task.leaseExpiresAt !== undefined && task.leaseExpiresAt > at) {
            running.set(task.principal, (running.get(task.principal) ?? 0) + 1)
            continue
          }
          if (task.nextRunAt > at || (task.leaseOwner !== undefined && task.leaseOwner === owner)) continue
          due.push(task)
        }
        // Fair share: a principal's k-th due task ranks as its (running + k)-th; ties, oldest first.
        due.sort((a, b) => a.nextRunAt - b.nextRunAt)
        const rank = new Map<string, number>()
        const ranked = due.map((task) => {
          const share = (running.get(task.principal) ?? 0) + (rank.get(task.principal) ?? 0) + 1
          rank.set(task.principal, (rank.get(task.principal) ?? 0) + 1)
          return { task, share }
        })
        ranked.sort((a, b) => a.share - b.share || a.task.nextRunAt - b.task.nextRunAt)
        return ranked.slice(0, Math.max(0, Math.floor(limit))).map(({ task }) =>
          put(changed(task, at, {
            generation: task.generation + 1,
            attempt: task.attempt + 1,
            leaseOwner: owner,
            leaseExpiresAt: at + leaseMs
          }))
        )
      }),
    heartbeat: (taskId, generation, leaseMs) =>
      Effect.map(now, (at) => {
        const task = tasks.get(taskId)
        if (task === undefined || task.generation !== generation || Task.isTerminal(task.status)) return undefined
        // A heartbeat is not a change the client sees: revision and lastUpdatedAt stay.
        return put({ ...task, leaseExpiresAt: at + leaseMs })
      }),
    transition: (taskId, generation, transition) =>
      Effect.map(now, (at) => {
        const task = tasks.get(taskId)
        if (task === undefined || task.generation !== generation || Task.isTerminal(task.status)) return undefined
        return put(applyTransition(task, transition, at))
      }),
    respond: (taskId, responses) =>
      Effect.map(now, (at) => {
        const task = tasks.get(taskId)
        return task === undefined ? undefined : put(applyResponses(task, responses, at))
      }),
    cancel: (taskId) =>
      Effect.map(now, (at) => {
        const task = tasks.get(taskId)
        return task === undefined ? undefined : put(applyCancel(task, at))
      }),
    expire: (limit) =>
      Effect.map(now, (at) => {
        let deleted = 0
        for (const task of tasks.values()) {
          if (deleted >= limit) break
          if (Task.isExpired(task, at)) {
            tasks.delete(task.taskId)
            sizes.delete(task.taskId)
            deleted++
          }
        }
        return deleted
      })
  })
}

/**
 * The in-memory store as a Layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMemory = (): Layer.Layer<TaskStore> => Layer.sync(TaskStore, makeMemory)
