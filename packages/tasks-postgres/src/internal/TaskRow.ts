/**
 * A row of `snodo_tasks` as `@effect/sql-pg` returns it (int8 as `bigint`, `json` parsed) and the
 * record it stores. Decoded with a Schema: a row the store cannot read is a `TaskStoreError`.
 *
 * @since 0.1.0
 */
import type { Task } from "@snodo/tasks"
import { UnknownObject } from "@snodo/core/wire/Json"
import { TaskStoreError } from "@snodo/tasks/TaskStore"
import { Effect, Schema } from "effect"

/** int8 columns arrive as `bigint`; epoch milliseconds fit a double exactly. */
const Int8 = Schema.Union([Schema.BigInt, Schema.Int])

/** A row as PostgreSQL returns it. @since 0.1.0 */
export const Row = Schema.Struct({
  task_id: Schema.String,
  principal: Schema.String,
  status: Schema.Literals(["working", "input_required", "completed", "failed", "cancelled"]),
  status_message: Schema.NullOr(Schema.String),
  created_at: Int8,
  last_updated_at: Int8,
  ttl_ms: Schema.NullOr(Int8),
  poll_interval_ms: Schema.Int,
  // The driver parsed these from json: they need no deeper check than "an object".
  work: UnknownObject,
  input_requests: UnknownObject,
  answers: UnknownObject,
  result: Schema.NullOr(UnknownObject),
  error: Schema.NullOr(UnknownObject),
  revision: Int8,
  generation: Int8,
  attempt: Schema.Int,
  lease_owner: Schema.NullOr(Schema.String),
  lease_expires_at: Schema.NullOr(Int8),
  next_run_at: Int8
})

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))

/** The record a decoded row holds. @since 0.1.0 */
export const toRecord = (row: typeof Row.Type): Task.TaskRecord => ({
  taskId: row.task_id,
  principal: row.principal,
  status: row.status,
  statusMessage: row.status_message ?? undefined,
  createdAt: Number(row.created_at),
  lastUpdatedAt: Number(row.last_updated_at),
  ttlMs: row.ttl_ms === null ? null : Number(row.ttl_ms),
  pollIntervalMs: row.poll_interval_ms,
  // The store wrote these columns from the record's own fields.
  work: row.work as unknown as Task.Work,
  inputRequests: row.input_requests as unknown as Task.TaskRecord["inputRequests"],
  answers: row.answers as Task.TaskRecord["answers"],
  result: row.result === null ? undefined : row.result as Task.TaskRecord["answers"],
  error: row.error === null ? undefined : row.error as unknown as Task.TaskError,
  revision: Number(row.revision),
  generation: Number(row.generation),
  attempt: row.attempt,
  leaseOwner: row.lease_owner ?? undefined,
  leaseExpiresAt: row.lease_expires_at === null ? undefined : Number(row.lease_expires_at),
  nextRunAt: Number(row.next_run_at)
})

/**
 * Decodes rows into records.
 *
 * @since 0.1.0
 */
export const records = (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<Task.TaskRecord>, TaskStoreError> =>
  decodeRows(rows).pipe(
    Effect.map((decoded) => decoded.map(toRecord)),
    Effect.mapError((cause) => new TaskStoreError({ message: "A task row could not be read", cause }))
  )

/** The one record of a write that returned at most one row. @since 0.1.0 */
export const first = (rows: ReadonlyArray<unknown>): Effect.Effect<Task.TaskRecord | undefined, TaskStoreError> =>
  Effect.map(records(rows), (decoded) => decoded[0])
