/**
 * The `TaskStore` on PostgreSQL (`@effect/sql-pg`), shared by every instance of a deployment.
 *
 * - **Claims** take due, unleased (or expired) tasks with `FOR UPDATE SKIP LOCKED`: concurrent
 *   claimers on any number of instances never wait for each other and never get the same task.
 *   They are fair across principals and read only the head of each principal's queue and its
 *   leased tasks (indexes `snodo_tasks_queue` and `snodo_tasks_leased`), never the whole backlog.
 * - **The fence is in the database**: every worker write (transition, heartbeat) is one `UPDATE`
 *   whose `WHERE` names the generation the worker claimed. Under READ COMMITTED a write that waited
 *   for a concurrent claim or cancel re-checks that `WHERE` against the committed row, so a stale
 *   worker's commit matches nothing and answers `undefined`, wherever it runs.
 * - **Time is the database's**: `clock_timestamp()` sets every lease, retry delay and creation
 *   time, and is `now`, so instances with skewed clocks still agree on when a lease ran out.
 * - **Capacity** is counted at create inside a transaction holding a transaction-scoped advisory
 *   lock (`pg_advisory_xact_lock`), so concurrent creates on several instances cannot pass a limit
 *   together.
 * - A released task (an instance shutting down) is announced on the `TaskSignals` channel, so an
 *   idle instance claims it at once rather than at its next poll.
 * - Expired tasks are deleted in bounded batches (`expire(limit)`), concurrent reapers skipping
 *   each other's rows.
 *
 * The store never migrates: {@link layer} checks the schema first (see `Migrations`).
 *
 * @example
 * ```ts
 * import { PgClient } from "@effect/sql-pg"
 * import { Layer, Redacted } from "effect"
 * import * as PgTaskStore from "@snodo/postgres/PgTaskStore"
 *
 * const Store = PgTaskStore.layer({ schema: "snodo" }).pipe(
 *   Layer.provide(PgClient.layer({ url: Redacted.make("postgres://postgres@db:5432/app") }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { applyResponses, bytesOf, checkLimits, jsonBytes, newRecord, TaskStore, TaskStoreError, type Transition, type Usage } from "@snodo/tasks/TaskStore"
import { Effect, Layer, Schema } from "effect"
import { SqlError, type Statement } from "effect/sql"
import { checkSchema, type SchemaMismatch } from "./Migrations.ts"
import { names } from "./PgNames.ts"
import { first, records } from "./internal/TaskRow.ts"

/**
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The PostgreSQL schema of the tables. Default `public`. */
  readonly schema?: string | undefined
  /**
   * Test hook: every terminal write (complete, fail) also inserts a row into
   * `<schema>.snodo_task_ledger` in the same statement, so a test can count how often each task's
   * outcome was committed. The table is created when the store is built. Default false.
   */
  readonly ledger?: boolean | undefined
}

/** The database's clock in epoch milliseconds, read once per statement. */
const nowMs = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

const whole = (millis: number): number => Math.ceil(millis)

const json = (value: unknown): string => JSON.stringify(value)

const Int8 = Schema.Union([Schema.BigInt, Schema.Int, Schema.NumberFromString])
const Counts = Schema.Struct({
  now: Int8,
  stored: Int8,
  bytes: Int8,
  soonest: Schema.NullOr(Int8),
  mine: Int8,
  mine_bytes: Int8,
  mine_soonest: Schema.NullOr(Int8),
  active: Int8
})
const decodeCounts = Schema.decodeUnknownEffect(Counts)

/**
 * Builds the store on the `PgClient` in context.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options?: Options): Effect.Effect<TaskStore["Service"], SqlError.SqlError, PgClient.PgClient> =>
  Effect.gen(function*() {
    const sql = yield* PgClient.PgClient
    const n = names(options?.schema)
    const table = sql(n.tasks)
    const live = sql.unsafe("t.status IN ('working', 'input_required')")
    const clock = sql.unsafe(`now AS (SELECT ${nowMs} AS ms)`)
    const ledger = options?.ledger === true
    if (ledger) {
      // CREATE TABLE IF NOT EXISTS races with itself (instances starting at once): one at a time.
      yield* sql.withTransaction(Effect.andThen(
        sql`SELECT pg_advisory_xact_lock(hashtext(${n.migrationLock}))`,
        sql.unsafe(`CREATE TABLE IF NOT EXISTS ${n.ledger} (
  id bigserial PRIMARY KEY,
  task_id text NOT NULL,
  generation bigint NOT NULL,
  status text NOT NULL,
  committed_at bigint NOT NULL
)`)
      ))
    }

    const storeError = (what: string) => (cause: unknown) => new TaskStoreError({ message: `Task store: ${what} failed`, cause })
    /** SQL failures become TaskStoreError. */
    const guarded = <A, E>(what: string, effect: Effect.Effect<A, E>) =>
      Effect.mapError(effect, (error) => SqlError.isSqlError(error) ? storeError(what)(error) : error) as Effect.Effect<
        A,
        Exclude<E, SqlError.SqlError> | TaskStoreError
      >

    const read = (taskId: string) => Effect.flatMap(sql`SELECT * FROM ${table} WHERE task_id = ${taskId}`, first)

    /** The SET clause of a worker's transition (besides revision and last_updated_at). */
    const setOf = (transition: Transition): Statement.Fragment => {
      switch (transition._tag) {
        case "Park":
          return sql`status = 'input_required', input_requests = ${json(transition.inputRequests)}::json`
        case "Resume":
          return sql`status = 'working', input_requests = '{}'::json`
        case "Complete":
          return sql`status = 'completed', result = ${json(transition.result)}::json, bytes = t.bytes + ${jsonBytes(transition.result)}, input_requests = '{}'::json, lease_owner = NULL, lease_expires_at = NULL`
        case "Fail":
          return sql`status = 'failed', error = ${json(transition.error)}::json, bytes = t.bytes + ${jsonBytes(transition.error)}, input_requests = '{}'::json, lease_owner = NULL, lease_expires_at = NULL`
        case "Retry":
          return sql`status = 'working', input_requests = '{}'::json, lease_owner = NULL, lease_expires_at = NULL, next_run_at = now.ms + ${whole(transition.delayMs)}`
        case "Release":
          return sql`lease_owner = NULL, lease_expires_at = NULL`
        case "Note":
          return sql`status_message = ${transition.statusMessage}`
      }
    }

    const now = guarded("reading the clock", Effect.map(sql<{ readonly ms: bigint }>`SELECT ${sql.unsafe(nowMs)} AS ms`, (rows) => Number(rows[0]?.ms)))

    const create: TaskStore["Service"]["create"] = (task, limits, lease) => {
      const ttlMs = task.ttlMs === null ? null : whole(task.ttlMs)
      // What newRecord would build, with the database's clock (now.ms) for every time.
      const template = newRecord({ ...task, ttlMs }, 0, lease === undefined ? undefined : { owner: lease.owner, leaseMs: whole(lease.leaseMs) })
      const principal = task.work.principal.id
      const bytes = bytesOf({ ...task, result: undefined, error: undefined })
      const unexpired = sql.unsafe("(expires_at IS NULL OR expires_at > now.ms)")
      const counts = sql`all_tasks AS (SELECT count(*) AS stored, coalesce(sum(bytes), 0) AS bytes, min(expires_at) AS soonest FROM ${table}, now WHERE ${unexpired}),
mine AS (SELECT count(*) AS stored, coalesce(sum(bytes), 0) AS bytes, min(expires_at) AS soonest FROM ${table}, now WHERE principal = ${principal} AND ${unexpired}),
active AS (SELECT count(*) AS n FROM ${table} AS t WHERE t.principal = ${principal} AND ${live})`
      const most = (limit: number | undefined) => limit === undefined || !Number.isFinite(limit) ? Number.MAX_SAFE_INTEGER : limit
      return guarded("create", sql.withTransaction(Effect.gen(function*() {
        // Held until commit: creates on every instance count and insert one at a time. The
        // statements after it see every task committed before it was granted.
        yield* sql`SELECT pg_advisory_xact_lock(hashtext(${n.capacityLock}))`
        // One statement while the lock is held: counted and inserted when every limit holds.
        const rows = yield* sql`WITH ${clock}, ${counts}
INSERT INTO ${table} (
  task_id, principal, status, status_message, created_at, last_updated_at, ttl_ms, expires_at, poll_interval_ms,
  work, input_requests, answers, result, error, revision, generation, attempt, lease_owner, lease_expires_at, next_run_at, bytes
)
SELECT ${template.taskId}, ${template.principal}, ${template.status}, NULL, now.ms, now.ms, ${ttlMs},
  ${ttlMs === null ? null : sql`now.ms + ${ttlMs}`}, ${whole(template.pollIntervalMs)},
  ${json(template.work)}::json, '{}'::json, ${json(template.answers)}::json, NULL, NULL, ${template.revision}, ${template.generation},
  ${template.attempt}, ${template.leaseOwner ?? null}, ${lease === undefined ? null : sql`now.ms + ${whole(lease.leaseMs)}`}, now.ms, ${bytes}
FROM now, all_tasks, mine, active
WHERE active.n < ${most(limits.maxActivePerPrincipal)} AND mine.stored < ${most(limits.maxStoredPerPrincipal)}
  AND mine.bytes + ${bytes} <= ${most(limits.maxStoredBytesPerPrincipal)} AND all_tasks.stored < ${most(limits.maxStored)}
  AND all_tasks.bytes + ${bytes} <= ${most(limits.maxStoredBytes)}
RETURNING *`.pipe(
          Effect.catchIf(
            (error) => error.reason._tag === "UniqueViolation" || error.reason._tag === "ConstraintError",
            (cause) => Effect.fail(new TaskStoreError({ message: `Task id ${task.taskId} already exists`, cause }))
          )
        )
        const created = yield* first(rows)
        if (created !== undefined) return created
        // Refused: say which limit, and when room is expected (still under the lock: the counts the insert saw).
        const [raw] = yield* sql`WITH ${clock}, ${counts}
SELECT now.ms AS now, all_tasks.stored, all_tasks.bytes, all_tasks.soonest, mine.stored AS mine, mine.bytes AS mine_bytes,
  mine.soonest AS mine_soonest, active.n AS active
FROM now, all_tasks, mine, active`
        const counted = yield* Effect.mapError(decodeCounts(raw), storeError("counting tasks"))
        const usage = (stored: bigint | number, used: bigint | number, soonest: bigint | number | null): Usage => ({
          stored: Number(stored),
          bytes: Number(used),
          soonest: soonest === null ? undefined : Number(soonest)
        })
        const refused = checkLimits(limits, bytes, {
          all: usage(counted.stored, counted.bytes, counted.soonest),
          principal: usage(counted.mine, counted.mine_bytes, counted.mine_soonest),
          active: Number(counted.active)
        }, Number(counted.now))
        return yield* refused ?? new TaskStoreError({ message: "Task store: the insert returned no row" })
      })))
    }

    // A fair claim without reading the whole backlog: the principals with working tasks (a skip
    // scan of an index), then for each its running count (leased tasks) and its first `limit`
    // claimable tasks, locked; the `limit` of least share among those are taken. The best `limit`
    // overall are among each principal's first `limit`, so this is the full ranking's answer, at a
    // cost of principals x limit rows instead of every due task. Locked rows not taken are let go
    // when the statement commits.
    const claim: TaskStore["Service"]["claim"] = (owner, leaseMs, limit) => {
      const most = Math.max(0, Math.floor(limit))
      return guarded("claim", Effect.flatMap(
        sql`WITH RECURSIVE ${clock}, principals AS (
  (SELECT queued.principal FROM ${table} AS queued WHERE queued.status = 'working' ORDER BY queued.principal LIMIT 1)
  UNION ALL
  SELECT (
    SELECT queued.principal FROM ${table} AS queued
    WHERE queued.status = 'working' AND queued.principal > principals.principal
    ORDER BY queued.principal LIMIT 1
  ) FROM principals WHERE principals.principal IS NOT NULL
), ranked AS (
  SELECT waiting.task_id, waiting.next_run_at,
    running.n + row_number() OVER (PARTITION BY principals.principal ORDER BY waiting.next_run_at) AS share
  FROM principals CROSS JOIN now
  CROSS JOIN LATERAL (
    SELECT count(*) AS n FROM ${table} AS leased
    WHERE leased.principal = principals.principal AND leased.status = 'working' AND leased.lease_owner IS NOT NULL
      AND leased.lease_expires_at > now.ms
  ) AS running
  CROSS JOIN LATERAL (
    SELECT candidate.task_id, candidate.next_run_at FROM ${table} AS candidate
    WHERE candidate.principal = principals.principal AND candidate.status = 'working' AND candidate.next_run_at <= now.ms
      AND (candidate.lease_expires_at IS NULL OR candidate.lease_expires_at <= now.ms)
      AND (candidate.lease_owner IS NULL OR candidate.lease_owner <> ${owner})
    ORDER BY candidate.next_run_at
    LIMIT ${most}
    FOR UPDATE OF candidate SKIP LOCKED
  ) AS waiting
  WHERE principals.principal IS NOT NULL
), due AS (
  SELECT ranked.task_id FROM ranked ORDER BY ranked.share, ranked.next_run_at LIMIT ${most}
)
UPDATE ${table} AS t
SET generation = t.generation + 1, attempt = t.attempt + 1, lease_owner = ${owner}, lease_expires_at = now.ms + ${whole(leaseMs)},
  revision = t.revision + 1, last_updated_at = now.ms
FROM due, now
WHERE t.task_id = due.task_id
RETURNING t.*`,
        records
      ))
    }

    const heartbeat: TaskStore["Service"]["heartbeat"] = (taskId, generation, leaseMs) =>
      // Not a change the client sees: revision and last_updated_at stay.
      guarded("heartbeat", Effect.flatMap(
        sql`WITH ${clock}
UPDATE ${table} AS t SET lease_expires_at = now.ms + ${whole(leaseMs)}
FROM now
WHERE t.task_id = ${taskId} AND t.generation = ${generation} AND ${live}
RETURNING t.*`,
        first
      ))

    const wakeOthers = sql`SELECT pg_notify(${n.signalsChannel}, ${"store|w"})`

    const transition: TaskStore["Service"]["transition"] = (taskId, generation, change) => {
      const update = sql`UPDATE ${table} AS t SET ${setOf(change)}, revision = t.revision + 1, last_updated_at = now.ms
FROM now
WHERE t.task_id = ${taskId} AND t.generation = ${generation} AND ${live}
RETURNING t.*`
      const terminal = change._tag === "Complete" || change._tag === "Fail"
      const statement = ledger && terminal
        // The ledger row is written by the same statement as the outcome, or not at all.
        ? sql`WITH ${clock}, done AS (${update}), logged AS (
  INSERT INTO ${sql(n.ledger)} (task_id, generation, status, committed_at)
  SELECT task_id, generation, status, last_updated_at FROM done
)
SELECT * FROM done`
        : sql`WITH ${clock} ${update}`
      return guarded("transition", Effect.gen(function*() {
        const written = yield* first(yield* statement)
        if (written !== undefined && change._tag === "Release") yield* wakeOthers
        return written
      }))
    }

    const respond: TaskStore["Service"]["respond"] = (taskId, responses) =>
      guarded("respond", sql.withTransaction(Effect.gen(function*() {
        const [locked] = yield* sql`SELECT * FROM ${table} WHERE task_id = ${taskId} FOR UPDATE`
        const task = yield* first(locked === undefined ? [] : [locked])
        if (task === undefined) return undefined
        const next = applyResponses(task, responses, 0)
        if (next === task) return task
        return yield* first(yield* sql`WITH ${clock}
UPDATE ${table} AS t
SET status = ${next.status}, input_requests = ${json(next.inputRequests)}::json, answers = ${json(next.answers)}::json,
  bytes = t.bytes + ${jsonBytes(next.answers) - jsonBytes(task.answers)}, revision = t.revision + 1, last_updated_at = now.ms
FROM now
WHERE t.task_id = ${taskId}
RETURNING t.*`)
      })))

    const cancel: TaskStore["Service"]["cancel"] = (taskId) =>
      guarded("cancel", Effect.gen(function*() {
        const cancelled = yield* first(yield* sql`WITH ${clock}
UPDATE ${table} AS t
SET status = 'cancelled', input_requests = '{}'::json, generation = t.generation + 1, lease_owner = NULL, lease_expires_at = NULL,
  revision = t.revision + 1, last_updated_at = now.ms
FROM now
WHERE t.task_id = ${taskId} AND ${live}
RETURNING t.*`)
        // A terminal task (or none) is answered as it is: terminal tasks never change again.
        return cancelled ?? (yield* read(taskId))
      }))

    const expire: TaskStore["Service"]["expire"] = (limit) =>
      guarded("expire", Effect.map(
        sql<{ readonly n: bigint }>`WITH ${clock}, gone AS (
  DELETE FROM ${table} WHERE task_id IN (
    SELECT expired.task_id FROM ${table} AS expired, now
    WHERE expired.expires_at IS NOT NULL AND expired.expires_at <= now.ms
    LIMIT ${Math.max(0, Math.floor(limit))}
    FOR UPDATE OF expired SKIP LOCKED
  ) RETURNING 1
)
SELECT count(*) AS n FROM gone`,
        (rows) => Number(rows[0]?.n ?? 0)
      ))

    return TaskStore.of({
      now,
      create,
      get: (taskId) => guarded("get", read(taskId)),
      claim,
      heartbeat,
      transition,
      respond,
      cancel,
      expire
    })
  })

/**
 * The store as a Layer, on the `PgClient` in context: fails closed (`SchemaMismatch`) unless the
 * schema holds exactly this version's migrations.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: Options): Layer.Layer<TaskStore, SchemaMismatch | SqlError.SqlError, PgClient.PgClient> =>
  Layer.effect(TaskStore, Effect.andThen(checkSchema(options), make(options)))
