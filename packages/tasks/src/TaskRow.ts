/**
 * A row of a SQL store's `snodo_tasks` table and the record it stores, for the store packages
 * (`@snodo/tasks-sqlite`, `@snodo/postgres`, or a store of your own on the same table).
 *
 * A store decodes what its driver returns with a Schema of its own (its column types: `bigint`
 * or number, JSON parsed or as text) into a {@link Row}; this module turns rows into records, and
 * a row the Schema refuses into a `TaskStoreError`, never a half-read task.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import * as TaskRow from "@snodo/tasks/TaskRow"
 *
 * declare const MyRow: Schema.Codec<TaskRow.Row, unknown>
 * const { records, first } = TaskRow.decoder(MyRow)
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import type * as Task from "./Task.ts"
import { TaskStoreError } from "./TaskStore.ts"

/**
 * A decoded row: the table's columns, times in epoch milliseconds, JSON columns as objects.
 *
 * @category models
 * @since 0.1.0
 */
export interface Row {
  readonly task_id: string
  readonly principal: string
  readonly status: Task.Status
  readonly status_message: string | null
  readonly created_at: number
  readonly last_updated_at: number
  readonly ttl_ms: number | null
  readonly poll_interval_ms: number
  readonly work: Readonly<Record<string, unknown>>
  readonly input_requests: Readonly<Record<string, unknown>>
  readonly answers: Readonly<Record<string, unknown>>
  readonly result: Readonly<Record<string, unknown>> | null
  readonly error: Readonly<Record<string, unknown>> | null
  readonly revision: number
  readonly generation: number
  readonly attempt: number
  readonly lease_owner: string | null
  readonly lease_expires_at: number | null
  readonly next_run_at: number
}

/**
 * The statuses a `status` column holds.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Status = Schema.Literals(["working", "input_required", "completed", "failed", "cancelled"])

/**
 * The record a decoded row holds.
 *
 * @category combinators
 * @since 0.1.0
 */
export const toRecord = (row: Row): Task.TaskRecord => ({
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
 * What a store reads its rows with.
 *
 * @category models
 * @since 0.1.0
 */
export interface Decoder {
  /** Decodes rows into records. */
  readonly records: (rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<Task.TaskRecord>, TaskStoreError>
  /** The one record of a write that returned at most one row. */
  readonly first: (rows: ReadonlyArray<unknown>) => Effect.Effect<Task.TaskRecord | undefined, TaskStoreError>
}

/**
 * Reads rows with a store's row Schema (compiled once).
 *
 * @category combinators
 * @since 0.1.0
 */
export const decoder = (row: Schema.Codec<Row, unknown>): Decoder => {
  const decodeRows = Schema.decodeUnknownEffect(Schema.Array(row))
  const records = (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<Task.TaskRecord>, TaskStoreError> =>
    decodeRows(rows).pipe(
      Effect.map((decoded) => decoded.map(toRecord)),
      Effect.mapError((cause) => new TaskStoreError({ message: "A task row could not be read", cause }))
    )
  return { records, first: (rows) => Effect.map(records(rows), (decoded) => decoded[0]) }
}
