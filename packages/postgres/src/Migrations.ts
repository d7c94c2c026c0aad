/**
 * The PostgreSQL backend's schema: its migrations (effect's `Migrator`, in the configured schema),
 * run only when the application asks ({@link migrate}), and the check the store and the hub run
 * before they serve ({@link checkSchema}).
 *
 * Several instances may start at once and all ask to migrate: the schema is created under an
 * advisory lock and `Migrator` takes `LOCK TABLE ... ACCESS EXCLUSIVE` on its table, so one runs
 * the migrations and the others find them done. A database is served only when the migrations
 * recorded in it are exactly the ones this version knows (not migrated, or migrated by a newer
 * version: {@link SchemaMismatch}).
 *
 * @example
 * ```ts
 * import { PgClient } from "@effect/sql-pg"
 * import { Effect, Redacted } from "effect"
 * import * as Migrations from "@snodo/postgres/Migrations"
 *
 * // a deploy step: migrate, then check
 * const program = Migrations.migrate({ schema: "snodo" }).pipe(
 *   Effect.andThen(Migrations.checkSchema({ schema: "snodo" })),
 *   Effect.provide(PgClient.layer({ url: Redacted.make("postgres://postgres@db:5432/app") }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { PgClient } from "@effect/sql-pg"
import { Migrator, SqlClient, type SqlError } from "effect/sql"
import { type Names, names } from "./PgNames.ts"

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

/**
 * Where the backend lives.
 *
 * @category models
 * @since 0.1.0
 */
export interface SchemaOptions {
  /** The PostgreSQL schema of the tables (created by {@link migrate}). Default `public`. */
  readonly schema?: string | undefined
}

const statuses = "'working', 'input_required', 'completed', 'failed', 'cancelled'"

/**
 * The migrations of one schema, by `<id>_<name>`. Never edit one that was released: add the next.
 *
 * @category combinators
 * @since 0.1.0
 */
export const migrations = (n: Names): Record<string, Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient>> => ({
  "0001_create_tasks": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Times are epoch milliseconds of the database's clock (clock_timestamp()); `json` keeps the
    // record's JSON text as written (key order included), since nothing queries inside it.
    yield* sql.unsafe(`CREATE TABLE ${n.tasks} (
  task_id text PRIMARY KEY,
  principal text NOT NULL,
  status text NOT NULL CHECK (status IN (${statuses})),
  status_message text,
  created_at bigint NOT NULL,
  last_updated_at bigint NOT NULL,
  ttl_ms bigint,
  expires_at bigint,
  poll_interval_ms integer NOT NULL,
  work json NOT NULL,
  input_requests json NOT NULL,
  answers json NOT NULL,
  result json,
  error json,
  revision bigint NOT NULL,
  generation bigint NOT NULL,
  attempt integer NOT NULL,
  lease_owner text,
  lease_expires_at bigint,
  next_run_at bigint NOT NULL
) WITH (fillfactor = 70)`)
    // Free room in every page: a claim, a heartbeat or a note changes no indexed column, so it can be
    // a HOT update (no new index entries) when the new row version fits beside the old one.
    yield* sql.unsafe(`CREATE INDEX snodo_tasks_due ON ${n.tasks} (next_run_at) WHERE status = 'working'`)
    yield* sql.unsafe(`CREATE INDEX snodo_tasks_active ON ${n.tasks} (principal) WHERE status IN ('working', 'input_required')`)
    yield* sql.unsafe(`CREATE INDEX snodo_tasks_expiry ON ${n.tasks} (expires_at) WHERE expires_at IS NOT NULL`)
    yield* sql.unsafe(`CREATE TABLE ${n.hubPayloads} (
  id bigserial PRIMARY KEY,
  payload text NOT NULL,
  created_at bigint NOT NULL
)`)
    yield* sql.unsafe(`CREATE INDEX snodo_hub_payloads_created ON ${n.hubPayloads} (created_at)`)
  }),
  "0002_stored_quotas": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Bytes of JSON a task stores (work, answers, result, error: TaskStore.bytesOf), for the byte
    // budgets; rows of 0001 are measured once here.
    yield* sql.unsafe(`ALTER TABLE ${n.tasks} ADD COLUMN bytes bigint NOT NULL DEFAULT 0`)
    yield* sql.unsafe(`UPDATE ${n.tasks} SET bytes = octet_length(work::text) + octet_length(answers::text)
  + coalesce(octet_length(result::text), 0) + coalesce(octet_length(error::text), 0)`)
    // What a principal's stored quota counts (any status).
    yield* sql.unsafe(`CREATE INDEX snodo_tasks_principal ON ${n.tasks} (principal, expires_at)`)
  }),
  "0003_sessions": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // The initialize-era HTTP sessions (PgSessionStore): times in epoch milliseconds of the
    // database's clock; `expires_at` is recomputed whenever the session is used or changed.
    yield* sql.unsafe(`CREATE TABLE ${n.sessions} (
  id text PRIMARY KEY,
  principal text NOT NULL,
  state json NOT NULL,
  initialized boolean NOT NULL DEFAULT false,
  created_at bigint NOT NULL,
  last_seen bigint NOT NULL,
  expires_at bigint NOT NULL
) WITH (fillfactor = 70)`)
    yield* sql.unsafe(`CREATE INDEX snodo_sessions_principal ON ${n.sessions} (principal, expires_at)`)
    yield* sql.unsafe(`CREATE INDEX snodo_sessions_expiry ON ${n.sessions} (expires_at)`)
  }),
  "0004_fair_claim_indexes": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // A fair claim reads each principal's queue from its head (principal, then next_run_at) and
    // counts its running tasks from the leased ones alone, never the whole backlog. The queue
    // replaces snodo_tasks_due (next_run_at alone), which only the claim read. A claim sets
    // lease_owner, which the leased index names, so a claim is no longer a HOT update; a
    // heartbeat (lease_expires_at only) still is.
    yield* sql.unsafe(`CREATE INDEX snodo_tasks_queue ON ${n.tasks} (principal, next_run_at) WHERE status = 'working'`)
    yield* sql.unsafe(`CREATE INDEX snodo_tasks_leased ON ${n.tasks} (principal) WHERE status = 'working' AND lease_owner IS NOT NULL`)
    yield* sql.unsafe(`DROP INDEX ${n.schema}.snodo_tasks_due`)
  }),
  "0005_session_limit_keys": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // What sessions.maxPerPrincipal counts a session by: its principal, or, for an anonymous
    // caller, its source address (@snodo/http's Sessions.limitKey). NULL on rows written before.
    yield* sql.unsafe(`ALTER TABLE ${n.sessions} ADD COLUMN limit_key text`)
    yield* sql.unsafe(`CREATE INDEX snodo_sessions_limit_key ON ${n.sessions} (limit_key, expires_at)`)
  }),
  "0006_dpop_proofs": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // The DPoP proofs every instance accepted (PgDpopReplay): the key's thumbprint and the proof's
    // jti, remembered until the proof could no longer pass the iat window (epoch milliseconds).
    yield* sql.unsafe(`CREATE TABLE ${n.dpopProofs} (
  proof text PRIMARY KEY,
  expires_at bigint NOT NULL
)`)
    yield* sql.unsafe(`CREATE INDEX snodo_dpop_proofs_expiry ON ${n.dpopProofs} (expires_at)`)
  }),
  "0007_session_readers": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // The instances that answer sessions from a cached copy (PgSessionStore), each while its lease
    // lives: `heard_at` is when (the database's clock) it last heard itself on the sessions channel,
    // `expires_at` when its lease ends unless renewed. A change waits for every live one.
    yield* sql.unsafe(`CREATE TABLE ${n.sessionReaders} (
  reader text PRIMARY KEY,
  heard_at bigint NOT NULL,
  expires_at bigint NOT NULL
)`)
  })
})

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
export const expected: ReadonlyArray<string> = Object.keys(migrations(names())).toSorted().map(normalize)

/**
 * Creates the schema if needed and runs the migrations it has not run yet (in one transaction);
 * answers the ones it ran. Safe to run from several instances at once.
 *
 * @category combinators
 * @since 0.1.0
 */
export const migrate = (options?: SchemaOptions): Effect.Effect<ReadonlyArray<readonly [id: number, name: string]>, Migrator.MigrationError | SqlError.SqlError, PgClient.PgClient> =>
  Effect.gen(function*() {
    const n = names(options?.schema)
    const sql = yield* PgClient.PgClient
    // CREATE SCHEMA IF NOT EXISTS races with itself (a unique violation): one at a time.
    yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(hashtext(${n.migrationLock}))`
      yield* sql.unsafe(`CREATE SCHEMA IF NOT EXISTS ${n.schema}`)
    }))
    return yield* Migrator.make({})({ loader: Migrator.fromRecord(migrations(n)), table: n.migrations }).pipe(
      Effect.provideService(SqlClient.SqlClient, sql)
    )
  })

/**
 * Succeeds when the schema holds exactly this version's migrations; fails closed with
 * {@link SchemaMismatch} otherwise.
 *
 * @category combinators
 * @since 0.1.0
 */
export const checkSchema = (options?: SchemaOptions): Effect.Effect<void, SchemaMismatch | SqlError.SqlError, PgClient.PgClient> =>
  Effect.gen(function*() {
    const n = names(options?.schema)
    const sql = yield* PgClient.PgClient
    const [table] = yield* sql<{ readonly found: boolean }>`SELECT to_regclass(${n.migrations}) IS NOT NULL AS found`
    const found = table?.found === true
      ? (yield* sql<{ readonly migration_id: number; readonly name: string }>`SELECT migration_id, name FROM ${sql(n.migrations)} ORDER BY migration_id`)
        .map((row) => `${row.migration_id}_${row.name}`)
      : []
    if (found.length === expected.length && found.every((id, at) => id === expected[at])) return
    const where = `schema ${n.schema}`
    const message = found.length === 0
      ? `The PostgreSQL task store (${where}) is not migrated: run TasksPostgres.migrate first`
      : found.length < expected.length && found.every((id, at) => id === expected[at])
      ? `The PostgreSQL task store (${where}) needs migrations (${expected.slice(found.length).join(", ")}): run TasksPostgres.migrate`
      : `The PostgreSQL task store (${where}) was migrated by another version of @snodo/postgres (found ${found.join(", ")}; this version knows ${expected.join(", ")})`
    return yield* new SchemaMismatch({ message, expected, found })
  })
