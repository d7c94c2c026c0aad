/**
 * A row of `snodo_tasks` and the record it stores: the row is decoded with a Schema (a row the
 * store cannot read is a `TaskStoreError`, never a half-read task), JSON columns from their text.
 *
 * @since 0.1.0
 */
import type { Task } from "@snodo/tasks"
import { UnknownObject } from "@snodo/core/wire/Json"
import { TaskStoreError } from "@snodo/tasks/TaskStore"
import { Effect, Schema } from "effect"

// JSON.parse only ever yields JSON: the columns need no deeper check than "an object".
const JsonObjectText = Schema.fromJsonString(UnknownObject)
const Millis = Schema.Finite

/** A row as SQLite returns it. @since 0.1.0 */
export const Row = Schema.Struct({
  task_id: Schema.String,
  principal: Schema.String,
  status: Schema.Literals(["working", "input_required", "completed", "failed", "cancelled"]),
  status_message: Schema.NullOr(Schema.String),
  created_at: Millis,
  last_updated_at: Millis,
  ttl_ms: Schema.NullOr(Millis),
  poll_interval_ms: Millis,
  work: JsonObjectText,
  input_requests: JsonObjectText,
  answers: JsonObjectText,
  result: Schema.NullOr(JsonObjectText),
  error: Schema.NullOr(JsonObjectText),
  revision: Schema.Int,
  generation: Schema.Int,
  attempt: Schema.Int,
  lease_owner: Schema.NullOr(Schema.String),
  lease_expires_at: Schema.NullOr(Millis),
  next_run_at: Millis
})

const decodeRows = Schema.decodeUnknownEffect(Schema.Array(Row))

/** The record a decoded row holds. @since 0.1.0 */
export const toRecord = (row: typeof Row.Type): Task.TaskRecord => ({
  taskId: row.task_id,
  principal: row.principal,
  status: row.status,
  statusMessage: row.status_message ?? undefined,
  createdAt: row.created_at,
  lastUpdatedAt: row.last_updated_at,
  ttlMs: row.ttl_ms,
  pollIntervalMs: row.poll_interval_ms,
  // The store wrote these columns from the record's own fields.
  work: row.work as unknown as Task.Work,
  inputRequests: row.input_requests as unknown as Task.TaskRecord["inputRequests"],
  answers: row.answers as Task.TaskRecord["answers"],
  result: row.result === null ? undefined : row.result as Task.TaskRecord["answers"],
  error: row.error === null ? undefined : row.error as unknown as Task.TaskError,
  revision: row.revision,
  generation: row.generation,
  attempt: row.attempt,
  leaseOwner: row.lease_owner ?? undefined,
  leaseExpiresAt: row.lease_expires_at ?? undefined,
  nextRunAt: row.next_run_at
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

/** The JSON text of a column. @since 0.1.0 */
export const json = (value: unknown): string => JSON.stringify(value)
