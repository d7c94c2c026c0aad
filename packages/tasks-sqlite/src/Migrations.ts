/**
 * The SQLite store's schema: its migrations (effect's `Migrator`), run only when the application
 * asks ({@link migrate}), and the check every store runs before it serves ({@link checkSchema}).
 *
 * A database is served only when the migrations recorded in it are exactly the ones this version
 * knows: an empty database (not migrated yet) and one migrated by a newer version (which may have
 * changed what a row means) are both refused with {@link SchemaMismatch}, rather than read wrongly.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Migrations from "@snodo/tasks-sqlite/Migrations"
 * import * as SqliteClient from "@snodo/tasks-sqlite/SqliteClient"
 *
 * // a deploy step, or the application at start
 * const program = Migrations.migrate.pipe(
 *   Effect.andThen(Migrations.checkSchema),
 *   Effect.provide(SqliteClient.layer({ filename: "tasks.sqlite" }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { Migrator, SqlClient, type SqlError } from "effect/sql"

/**
 * The table of tasks.
 *
 * @category constants
 * @since 0.1.0
 */
export const tasksTable = "snodo_tasks"

/**
 * The table where `Migrator` records the migrations it ran.
 *
 * @category constants
 * @since 0.1.0
 */
export const migrationsTable = "snodo_tasks_migrations"

/**
 * The database was not migrated to exactly this version's schema.
 *
 * @category errors
 * @since 0.1.0
 */
export class SchemaMismatch extends Schema.TaggedError<SchemaMismatch>()("SchemaMismatch", {
  message: Schema.String,
  /** The migrations this version knows, as `<id>_<name>`. */
  expected: Schema.Array(Schema.String),
  /** The migrations recorded in the database. */
  found: Schema.Array(Schema.String)
}) {}

const statuses = "'working', 'input_required', 'completed', 'failed', 'cancelled'"

/**
 * The migrations, by `<id>_<name>`. Never edit one that was released: add the next.
 *
 * @category constants
 * @since 0.1.0
 */
export const migrations: Record<string, Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient>> = {
  "0001_create_tasks": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Times are epoch milliseconds; JSON columns hold the record's JSON text as written.
    yield* sql.unsafe(`CREATE TABLE ${tasksTable} (
  task_id TEXT PRIMARY KEY NOT NULL,
  principal TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN (${statuses})),
  status_message TEXT,
  created_at INTEGER NOT NULL,
  last_updated_at INTEGER NOT NULL,
  ttl_ms INTEGER,
  expires_at INTEGER,
  poll_interval_ms INTEGER NOT NULL,
  work TEXT NOT NULL,
  input_requests TEXT NOT NULL,
  answers TEXT NOT NULL,
  result TEXT,
  error TEXT,
  revision INTEGER NOT NULL,
  generation INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  lease_owner TEXT,
  lease_expires_at INTEGER,
  next_run_at INTEGER NOT NULL
) STRICT`)
    // What claim, the capacity check and the reaper look for.
    yield* sql.unsafe(`CREATE INDEX ${tasksTable}_due ON ${tasksTable} (next_run_at) WHERE status = 'working'`)
    yield* sql.unsafe(`CREATE INDEX ${tasksTable}_active ON ${tasksTable} (principal) WHERE status IN ('working', 'input_required')`)
    yield* sql.unsafe(`CREATE INDEX ${tasksTable}_expiry ON ${tasksTable} (expires_at) WHERE expires_at IS NOT NULL`)
  }),
  "0002_stored_quotas": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Bytes of JSON a task stores (work, answers, result, error: TaskStore.bytesOf), for the byte
    // budgets; rows of 0001 are measured once here.
    yield* sql.unsafe(`ALTER TABLE ${tasksTable} ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0`)
    yield* sql.unsafe(`UPDATE ${tasksTable} SET bytes = length(CAST(work AS BLOB)) + length(CAST(answers AS BLOB))
  + coalesce(length(CAST(result AS BLOB)), 0) + coalesce(length(CAST(error AS BLOB)), 0)`)
    // What a principal's stored quota counts (any status).
    yield* sql.unsafe(`CREATE INDEX ${tasksTable}_principal ON ${tasksTable} (principal, expires_at)`)
  }),
  "0003_fair_claim_indexes": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // A fair claim reads each principal's queue from its head (principal, then next_run_at) and
    // counts its running tasks from the leased ones alone, never the whole backlog. The queue
    // replaces the due index (next_run_at alone), which only the claim read.
    yield* sql.unsafe(`CREATE INDEX ${tasksTable}_queue ON ${tasksTable} (principal, next_run_at) WHERE status = 'working'`)
    yield* sql.unsafe(`CREATE INDEX ${tasksTable}_leased ON ${tasksTable} (principal) WHERE status = 'working' AND lease_owner IS NOT NULL`)
    yield* sql.unsafe(`DROP INDEX ${tasksTable}_due`)
  })
}

/** `<id>_<name>` as `Migrator` records it (the id as a number: `0001_x` is `1_x`). */
const normalize = (key: string): string => {
  const match = /^(\d+)_(.+)$/.exec(key)
  return match === null ? key : `${Number(match[1])}_${match[2]}`
}

/**
 * The migrations this version knows, as `<id>_<name>`, in order.
 *
 * @category constants
 * @since 0.1.0
 */
export const expected: ReadonlyArray<string> = Object.keys(migrations).toSorted().map(normalize)

/**
 * Runs the migrations the database has not run yet, in one `BEGIN IMMEDIATE` transaction; answers
 * the ones it ran.
 *
 * @category constants
 * @since 0.1.0
 */
export const migrate: Effect.Effect<ReadonlyArray<readonly [id: number, name: string]>, Migrator.MigrationError | SqlError.SqlError, SqlClient.SqlClient> =
  Migrator.make({})({ loader: Migrator.fromRecord(migrations), table: migrationsTable }).pipe(
    Effect.provideService(SqlClient.BeginTransaction, "BEGIN IMMEDIATE")
  )

/**
 * Succeeds when the database holds exactly this version's migrations; fails closed with
 * {@link SchemaMismatch} otherwise (not migrated, partly migrated, or migrated by another version).
 *
 * @category constants
 * @since 0.1.0
 */
export const checkSchema: Effect.Effect<void, SchemaMismatch | SqlError.SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const table = yield* sql<{ readonly name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ${migrationsTable}`
  const found = table.length === 0
    ? []
    : (yield* sql<{ readonly migration_id: number; readonly name: string }>`SELECT migration_id, name FROM ${sql(migrationsTable)} ORDER BY migration_id`)
      .map((row) => `${row.migration_id}_${row.name}`)
  if (found.length === expected.length && found.every((id, at) => id === expected[at])) return
  const message = found.length === 0
    ? "The SQLite task store is not migrated: run TasksSqlite.migrate first"
    : found.length < expected.length && found.every((id, at) => id === expected[at])
    ? `The SQLite task store needs migrations (${expected.slice(found.length).join(", ")}): run TasksSqlite.migrate`
    : `The SQLite task store was migrated by another version of @snodo/tasks-sqlite (found ${found.join(", ")}; this version knows ${expected.join(", ")})`
  return yield* new SchemaMismatch({ message, expected, found })
})
