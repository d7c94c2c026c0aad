/**
 * A row of `snodo_tasks` as `@effect/sql-pg` returns it (int8 as `bigint`, `json` parsed), decoded
 * into the row `@snodo/tasks/TaskRow` turns into a record: a row the store cannot read is a
 * `TaskStoreError`.
 *
 * @since 0.1.0
 */
import { UnknownObject } from "@snodo/protocol/wire/Json"
import * as TaskRow from "@snodo/tasks/TaskRow"
import { Schema, SchemaTransformation } from "effect"

/** int8 columns arrive as `bigint`; epoch milliseconds fit a double exactly. */
const Int8 = Schema.Union([Schema.BigInt, Schema.Int]).pipe(
  Schema.decodeTo(Schema.Number, SchemaTransformation.transform<number, bigint | number>({ decode: Number, encode: (value) => value }))
)

/**
 * A row as PostgreSQL returns it.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Row: Schema.Codec<TaskRow.Row, unknown> = Schema.Struct({
  task_id: Schema.String,
  principal: Schema.String,
  status: TaskRow.Status,
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

/** Decodes rows into records (`records`), or the one row of a write (`first`). @since 0.1.0 */
export const { first, records } = TaskRow.decoder(Row)
