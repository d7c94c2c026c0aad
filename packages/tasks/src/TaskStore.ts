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
 * host), `@snodo/tasks-postgres` (many instances). Each passes the contract suite in
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
import type { JsonValue } from "@snodo/core/wire/Json"
import type { InputRequest } from "@snodo/core/wire/Mrtr"
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
 * A task was refused because a capacity limit is reached (stored tasks, or active tasks of one
 * principal).
 *
 * @category errors
 * @since 0.1.0
 */
export class TaskLimitReached extends Schema.TaggedError<TaskLimitReached>()("TaskLimitReached", {
  limit: Schema.Literals(["stored", "activePerPrincipal"]),
  max: Schema.Number
}) {}

/**
 * Capacity limits checked at creation.
 *
 * @category models
 * @since 0.1.0
 */
export interface Limits {
  /** Tasks stored at once (any status, until reaped). */
  readonly maxStored: number
  /** Non-terminal tasks of one principal. */
  readonly maxActivePerPrincipal: number
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
   * lease expired: recovery of a worker that died): each gets a new generation, an attempt more,
   * and a lease to `owner`. Two claimers never get the same task.
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
  const now = Clock.currentTimeMillis
  const put = (task: Task.TaskRecord) => {
    tasks.set(task.taskId, task)
    return task
  }
  return TaskStore.of({
    now,
    create: (task, limits, lease) =>
      Effect.flatMap(now, (at): Effect.Effect<Task.TaskRecord, TaskStoreError | TaskLimitReached> => {
        if (tasks.size >= limits.maxStored) return Effect.fail(new TaskLimitReached({ limit: "stored", max: limits.maxStored }))
        let active = 0
        for (const stored of tasks.values()) {
          if (stored.principal === task.work.principal.id && !Task.isTerminal(stored.status)) active++
        }
        if (active >= limits.maxActivePerPrincipal) {
          return Effect.fail(new TaskLimitReached({ limit: "activePerPrincipal", max: limits.maxActivePerPrincipal }))
        }
        if (tasks.has(task.taskId)) return Effect.fail(new TaskStoreError({ message: `Task id ${task.taskId} already exists` }))
        return Effect.succeed(put(newRecord(task, at, lease)))
      }),
    get: (taskId) => Effect.sync(() => tasks.get(taskId)),
    claim: (owner, leaseMs, limit) =>
      Effect.map(now, (at) => {
        const claimed: Array<Task.TaskRecord> = []
        for (const task of tasks.values()) {
          if (claimed.length >= limit) break
          if (task.status !== "working" || task.nextRunAt > at) continue
          if (task.leaseExpiresAt !== undefined && task.leaseExpiresAt > at) continue
          claimed.push(put(changed(task, at, {
            generation: task.generation + 1,
            attempt: task.attempt + 1,
            leaseOwner: owner,
            leaseExpiresAt: at + leaseMs
          })))
        }
        return claimed
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
