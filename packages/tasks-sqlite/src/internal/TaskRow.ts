/**
 * A row of `snodo_tasks` as SQLite returns it (JSON columns as text), decoded into the row
 * `@snodo/tasks/TaskRow` turns into a record: a row the store cannot read is a `TaskStoreError`,
 * never a half-read task.
 *
 * @since 0.1.0
 */
import { UnknownObject } from "@snodo/protocol/wire/Json"
import * as TaskRow from "@snodo/tasks/TaskRow"
import { Schema } from "effect"

// JSON.parse only ever yields JSON: the columns need no deeper check than "an object".
const JsonObjectText = Schema.fromJsonString(UnknownObject)
const Millis = Schema.Finite

/**
 * A row as SQLite returns it.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Row: Schema.Codec<TaskRow.Row, unknown> = Schema.Struct({
  task_id: Schema.String,
  principal: Schema.String,
  status: TaskRow.Status,
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

/** Decodes rows into records (`records`), or the one row of a write (`first`). @since 0.1.0 */
export const { first, records } = TaskRow.decoder(Row)

/**
 * The JSON text of a column.
 *
 * @category combinators
 * @since 0.1.0
 */
export const json = (value: unknown): string => JSON.stringify(value)
