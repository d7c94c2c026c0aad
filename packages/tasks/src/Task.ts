/**
 * A task as the store keeps it, and as the wire shows it.
 *
 * A {@link TaskRecord} is the durable truth about one task: its status and what the client sees
 * (`createdAt`, `ttlMs`, the outstanding `inputRequests`, the `result` or `error`), the
 * serializable {@link Work} it runs (a tool name, its arguments, the principal and the creating
 * request's protocol context: never a closure or a transport), and the runner's bookkeeping: a
 * `revision` that every change bumps, a `generation` that every claim bumps (a worker's writes are
 * accepted only while the generation is still its own), the lease and the attempt count.
 *
 * {@link detailed} and {@link created} turn a record into the `DetailedTask` of `tasks/get` and
 * `notifications/tasks`, and the flat `CreateTaskResult`.
 *
 * @since 0.1.0
 */
import type { JsonValue } from "@snodo/protocol/wire/Json"
import type { InputRequest } from "@snodo/protocol/wire/Mrtr"
import { randomBytes } from "node:crypto"

/**
 * The five statuses; the last three are terminal and never change.
 *
 * @category models
 * @since 0.1.0
 */
export type Status = "working" | "input_required" | "completed" | "failed" | "cancelled"

/**
 * Whether a status is terminal.
 *
 * @category guards
 * @since 0.1.0
 */
export const isTerminal = (status: Status): boolean => status === "completed" || status === "failed" || status === "cancelled"

/**
 * A JSON-RPC error as a failed task carries it.
 *
 * @category models
 * @since 0.1.0
 */
export interface TaskError {
  readonly code: number
  readonly message: string
  readonly data?: JsonValue
}

/**
 * What a task runs: everything a worker on any instance needs, as JSON.
 *
 * @category models
 * @since 0.1.0
 */
export interface Work {
  /** The tool (only `tools/call` creates tasks). */
  readonly tool: string
  readonly arguments: Readonly<Record<string, JsonValue>>
  /** The principal that created the task (its id scopes every read, update and cancel). */
  readonly principal: { readonly id: string; readonly claims: Readonly<Record<string, JsonValue>> }
  /** The creating request's protocol context. */
  readonly protocolVersion: string
  readonly clientCapabilities: Readonly<Record<string, JsonValue>>
  readonly clientInfo: { readonly name: string; readonly version: string } | undefined
  /** The span of the creating request, when it was traced: a task's runs link to it. */
  readonly trace?: { readonly traceId: string; readonly spanId: string; readonly sampled: boolean } | undefined
}

/**
 * A task as stored. Times are epoch milliseconds of the store's clock.
 *
 * @category models
 * @since 0.1.0
 */
export interface TaskRecord {
  readonly taskId: string
  /** `work.principal.id`, kept beside it for the store's own checks and indexes. */
  readonly principal: string
  readonly status: Status
  readonly statusMessage: string | undefined
  readonly createdAt: number
  readonly lastUpdatedAt: number
  /** Time to live from creation; `null` for unlimited. */
  readonly ttlMs: number | null
  readonly pollIntervalMs: number
  readonly work: Work
  /** The requests waiting for the client, by key (non-empty exactly when `input_required`). */
  readonly inputRequests: Readonly<Record<string, InputRequest>>
  /**
   * Every answer received, by key (from `tasks/update`, or carried from the MRTR rounds before the
   * task was created), persisted before the worker sees it. Keys are never reused.
   */
  readonly answers: Readonly<Record<string, JsonValue>>
  readonly result: Readonly<Record<string, JsonValue>> | undefined
  readonly error: TaskError | undefined
  /** Bumped by every change. */
  readonly revision: number
  /** Bumped by every claim (and by a cancel): the fence of a worker's writes. */
  readonly generation: number
  /** Claims so far (the first run is attempt 1). */
  readonly attempt: number
  readonly leaseOwner: string | undefined
  readonly leaseExpiresAt: number | undefined
  /** When the task may be claimed (a retry waits for its delay). */
  readonly nextRunAt: number
}

/**
 * What a store needs to create a task.
 *
 * @category models
 * @since 0.1.0
 */
export interface NewTask {
  readonly taskId: string
  readonly work: Work
  readonly ttlMs: number | null
  readonly pollIntervalMs: number
  /** Answers carried from the MRTR rounds of the creating request. */
  readonly answers: Readonly<Record<string, JsonValue>>
}

/**
 * Bytes of randomness in a task id (base64url: 32 characters).
 *
 * @category constants
 * @since 0.1.0
 */
export const idBytes = 24

/**
 * A fresh, unguessable task id: 24 random bytes, base64url.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeId = (): string => randomBytes(idBytes).toString("base64url")

/**
 * Whether the task's time to live has passed at `now`.
 *
 * @category guards
 * @since 0.1.0
 */
export const isExpired = (task: TaskRecord, now: number): boolean => task.ttlMs !== null && task.createdAt + task.ttlMs <= now

const iso = (millis: number): string => new Date(millis).toISOString()

const base = (task: TaskRecord): Record<string, unknown> => {
  const wire: Record<string, unknown> = {
    taskId: task.taskId,
    status: task.status,
    createdAt: iso(task.createdAt),
    lastUpdatedAt: iso(task.lastUpdatedAt),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs
  }
  if (task.statusMessage !== undefined) wire["statusMessage"] = task.statusMessage
  return wire
}

/**
 * The `DetailedTask` of a record: what `tasks/get` answers (before shaping) and what
 * `notifications/tasks` carries.
 *
 * @category combinators
 * @since 0.1.0
 */
export const detailed = (task: TaskRecord): Record<string, unknown> => {
  const wire = base(task)
  switch (task.status) {
    case "input_required":
      wire["inputRequests"] = task.inputRequests
      break
    case "completed":
      if (task.result !== undefined) wire["result"] = task.result
      break
    case "failed":
      if (task.error !== undefined) wire["error"] = task.error
      break
    case "working":
    case "cancelled":
      break
  }
  return wire
}

/**
 * The flat `CreateTaskResult` of a new task (before shaping): `resultType: "task"` and the task's
 * fields, nothing else.
 *
 * @category combinators
 * @since 0.1.0
 */
export const created = (task: TaskRecord): Record<string, unknown> => ({ resultType: "task", ...base(task) })
