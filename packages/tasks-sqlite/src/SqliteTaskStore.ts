/**
 * The `TaskStore` on SQLite, through any `SqlClient` of the sqlite dialect (this package's
 * `SqliteClient`, or the upstream driver once it supports effect 4.1).
 *
 * - **Every mutation is one `BEGIN IMMEDIATE` transaction**: the write lock is held from its first
 *   read, so a capacity check, a claim or a client's answers never act on a stale read.
 * - **The fence is the `WHERE`** of each worker write (`generation = ? AND status IN ('working',
 *   'input_required')`), with `RETURNING *`: a stale worker's write matches no row and answers
 *   `undefined`.
 * - **The clock is the host's** (`Clock`, epoch ms): one host, one clock, so leases, retry delays
 *   and time to live agree between the processes sharing the file.
 * - **Claims are fair across principals** and read only the head of each principal's queue and its
 *   leased tasks (indexes `_queue` and `_leased`), never the whole backlog.
 * - **Expired tasks are deleted in bounded batches** (`expire(limit)` deletes at most `limit`).
 *
 * The store never migrates: {@link layer} checks the schema first and fails closed on a database of
 * another version (see `Migrations`), then checks the file (`SqliteFile`: not corrupt, writable)
 * and, while it serves, that the file was not deleted or replaced under it.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import * as SqliteClient from "@snodo/tasks-sqlite/SqliteClient"
 * import * as SqliteTaskStore from "@snodo/tasks-sqlite/SqliteTaskStore"
 *
 * const Store = SqliteTaskStore.layer.pipe(Layer.provide(SqliteClient.layer({ filename: "tasks.sqlite" })))
 * ```
 *
 * @since 0.1.0
 */
import { applyResponses, bytesOf, checkLimits, jsonBytes, newRecord, TaskStore, TaskStoreError, type Transition, type Usage } from "@snodo/tasks/TaskStore"
import { Clock, Effect, Layer } from "effect"
import { SqlClient, SqlError, type Statement } from "effect/sql"
import { checkSchema, type SchemaMismatch, tasksTable } from "./Migrations.ts"
import * as SqliteFile from "./SqliteFile.ts"
import { first, json, records } from "./internal/TaskRow.ts"

const failed = (message: string) => (cause: SqlError.SqlError) => new TaskStoreError({ message, cause })

/** Durations become whole milliseconds (the columns are INTEGER). */
const whole = (millis: number): number => Math.ceil(millis)

/**
 * Builds the store on the `SqlClient` in context; with `file`, every write first checks the file is
 * still the one opened (see `SqliteFile`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (file?: SqliteFile.SqliteFile): Effect.Effect<TaskStore["Service"], never, SqlClient.SqlClient> => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const table = sql(tasksTable)
  const live = sql.unsafe("status IN ('working', 'input_required')")
  const now = Clock.currentTimeMillis

  /** A mutation: one BEGIN IMMEDIATE transaction, whatever the client's own BEGIN; SQL failures become TaskStoreError. */
  const ensure = file?.ensure ?? Effect.void
  const mutation = <A, E>(what: string, effect: Effect.Effect<A, E>) =>
    sql.withTransaction(Effect.andThen(ensure, effect)).pipe(
      Effect.provideService(SqlClient.BeginTransaction, "BEGIN IMMEDIATE"),
      Effect.mapError((error) => SqlError.isSqlError(error) ? new TaskStoreError({ message: `Task store: ${what} failed`, cause: error }) : error)
      // TypeScript cannot narrow a generic union by a guard: every SqlError was mapped above.
    ) as Effect.Effect<A, Exclude<E, SqlError.SqlError> | TaskStoreError>

  const read = (taskId: string) => Effect.flatMap(sql`SELECT * FROM ${table} WHERE task_id = ${taskId}`, first)

  /** The SET clause of a worker's transition (besides revision and last_updated_at). */
  const setOf = (transition: Transition, at: number): Statement.Fragment => {
    switch (transition._tag) {
      case "Park":
        return sql`status = 'input_required', input_requests = ${json(transition.inputRequests)}`
      case "Resume":
        return sql`status = 'working', input_requests = '{}'`
      case "Complete":
        return sql`status = 'completed', result = ${json(transition.result)}, bytes = bytes + ${jsonBytes(transition.result)}, input_requests = '{}', lease_owner = NULL, lease_expires_at = NULL`
      case "Fail":
        return sql`status = 'failed', error = ${json(transition.error)}, bytes = bytes + ${jsonBytes(transition.error)}, input_requests = '{}', lease_owner = NULL, lease_expires_at = NULL`
      case "Retry":
        return sql`status = 'working', input_requests = '{}', lease_owner = NULL, lease_expires_at = NULL, next_run_at = ${at + whole(transition.delayMs)}`
      case "Release":
        return sql`lease_owner = NULL, lease_expires_at = NULL`
      case "Note":
        return sql`status_message = ${transition.statusMessage}`
    }
  }

  type Counted = { readonly n: number; readonly bytes: number; readonly soonest: number | null }
  const usageOf = (row: Counted | undefined): Usage => ({ stored: row?.n ?? 0, bytes: row?.bytes ?? 0, soonest: row?.soonest ?? undefined })
  /** Tasks not expired yet: what the stored quotas count. */
  const unexpired = (at: number) => sql`(expires_at IS NULL OR expires_at > ${at})`

  const create: TaskStore["Service"]["create"] = (task, limits, lease) =>
    mutation("create", Effect.gen(function*() {
      const at = yield* now
      const principal = task.work.principal.id
      const [all] = yield* sql<Counted>`SELECT count(*) AS n, coalesce(sum(bytes), 0) AS bytes, min(expires_at) AS soonest FROM ${table} WHERE ${unexpired(at)}`
      const [mine] = yield* sql<Counted>`SELECT count(*) AS n, coalesce(sum(bytes), 0) AS bytes, min(expires_at) AS soonest FROM ${table}
WHERE principal = ${principal} AND ${unexpired(at)}`
      const [active] = yield* sql<{ readonly n: number }>`SELECT count(*) AS n FROM ${table} WHERE principal = ${principal} AND ${live}`
      const bytes = bytesOf({ ...task, result: undefined, error: undefined })
      const refused = checkLimits(limits, bytes, { all: usageOf(all), principal: usageOf(mine), active: active?.n ?? 0 }, at)
      if (refused !== undefined) return yield* refused
      const record = newRecord({ ...task, ttlMs: task.ttlMs === null ? null : whole(task.ttlMs) }, at, lease === undefined ? undefined : { owner: lease.owner, leaseMs: whole(lease.leaseMs) })
      const rows = yield* sql`INSERT INTO ${table} (
  task_id, principal, status, status_message, created_at, last_updated_at, ttl_ms, expires_at, poll_interval_ms,
  work, input_requests, answers, result, error, revision, generation, attempt, lease_owner, lease_expires_at, next_run_at, bytes
) VALUES (
  ${record.taskId}, ${record.principal}, ${record.status}, NULL, ${record.createdAt}, ${record.lastUpdatedAt}, ${record.ttlMs},
  ${record.ttlMs === null ? null : record.createdAt + record.ttlMs}, ${whole(record.pollIntervalMs)},
  ${json(record.work)}, '{}', ${json(record.answers)}, NULL, NULL, ${record.revision}, ${record.generation}, ${record.attempt},
  ${record.leaseOwner ?? null}, ${record.leaseExpiresAt ?? null}, ${record.nextRunAt}, ${bytes}
) RETURNING *`.pipe(
        Effect.catchIf(
          (error) => error.reason._tag === "UniqueViolation" || error.reason._tag === "ConstraintError",
          (cause) => Effect.fail(new TaskStoreError({ message: `Task id ${task.taskId} already exists`, cause }))
        )
      )
      const created = yield* first(rows)
      if (created === undefined) return yield* new TaskStoreError({ message: "Task store: the insert returned no row" })
      return created
    }))

  // A fair claim without reading the whole backlog: the principals with working tasks (a skip
  // scan of an index), then for each its running count (leased tasks) and its first `limit`
  // claimable tasks; the `limit` of least share among those are taken. The best `limit` overall
  // are among each principal's first `limit`, so this is the full ranking's answer, at a cost of
  // principals x limit rows instead of every due task.
  const claim: TaskStore["Service"]["claim"] = (owner, leaseMs, limit) =>
    mutation("claim", Effect.gen(function*() {
      const at = yield* now
      const most = Math.max(0, Math.floor(limit))
      const rows = yield* sql`WITH RECURSIVE principals(principal) AS (
  SELECT principal FROM (SELECT queued.principal FROM ${table} AS queued WHERE queued.status = 'working' ORDER BY queued.principal LIMIT 1)
  UNION ALL
  SELECT (
    SELECT queued.principal FROM ${table} AS queued
    WHERE queued.status = 'working' AND queued.principal > principals.principal
    ORDER BY queued.principal LIMIT 1
  ) FROM principals WHERE principals.principal IS NOT NULL
), running AS (
  SELECT principals.principal, (
    SELECT count(*) FROM ${table} AS leased
    WHERE leased.principal = principals.principal AND leased.status = 'working' AND leased.lease_owner IS NOT NULL
      AND leased.lease_expires_at > ${at}
  ) AS n
  FROM principals WHERE principals.principal IS NOT NULL
), ranked AS (
  SELECT candidate.task_id, candidate.next_run_at,
    running.n + row_number() OVER (PARTITION BY running.principal ORDER BY candidate.next_run_at) AS share
  FROM running JOIN ${table} AS candidate ON candidate.task_id IN (
    SELECT waiting.task_id FROM ${table} AS waiting
    WHERE waiting.principal = running.principal AND waiting.status = 'working' AND waiting.next_run_at <= ${at}
      AND (waiting.lease_expires_at IS NULL OR waiting.lease_expires_at <= ${at})
      AND (waiting.lease_owner IS NULL OR waiting.lease_owner <> ${owner})
    ORDER BY waiting.next_run_at
    LIMIT ${most}
  )
)
UPDATE ${table}
SET generation = generation + 1, attempt = attempt + 1, lease_owner = ${owner}, lease_expires_at = ${at + whole(leaseMs)},
  revision = revision + 1, last_updated_at = ${at}
WHERE task_id IN (SELECT ranked.task_id FROM ranked ORDER BY ranked.share, ranked.next_run_at LIMIT ${most})
RETURNING *`
      return yield* records(rows)
    }))

  const heartbeat: TaskStore["Service"]["heartbeat"] = (taskId, generation, leaseMs) =>
    mutation("heartbeat", Effect.gen(function*() {
      const at = yield* now
      // Not a change the client sees: revision and last_updated_at stay.
      return yield* first(yield* sql`UPDATE ${table} SET lease_expires_at = ${at + whole(leaseMs)}
WHERE task_id = ${taskId} AND generation = ${generation} AND ${live}
RETURNING *`)
    }))

  const transition: TaskStore["Service"]["transition"] = (taskId, generation, change) =>
    mutation("transition", Effect.gen(function*() {
      const at = yield* now
      return yield* first(yield* sql`UPDATE ${table} SET ${setOf(change, at)}, revision = revision + 1, last_updated_at = ${at}
WHERE task_id = ${taskId} AND generation = ${generation} AND ${live}
RETURNING *`)
    }))

  const respond: TaskStore["Service"]["respond"] = (taskId, responses) =>
    mutation("respond", Effect.gen(function*() {
      const task = yield* read(taskId)
      if (task === undefined) return undefined
      const next = applyResponses(task, responses, yield* now)
      if (next === task) return task
      return yield* first(yield* sql`UPDATE ${table}
SET status = ${next.status}, input_requests = ${json(next.inputRequests)}, answers = ${json(next.answers)},
  bytes = bytes + ${jsonBytes(next.answers) - jsonBytes(task.answers)}, revision = ${next.revision}, last_updated_at = ${next.lastUpdatedAt}
WHERE task_id = ${taskId} AND revision = ${task.revision}
RETURNING *`)
    }))

  const cancel: TaskStore["Service"]["cancel"] = (taskId) =>
    mutation("cancel", Effect.gen(function*() {
      const at = yield* now
      const cancelled = yield* first(yield* sql`UPDATE ${table}
SET status = 'cancelled', input_requests = '{}', generation = generation + 1, lease_owner = NULL, lease_expires_at = NULL,
  revision = revision + 1, last_updated_at = ${at}
WHERE task_id = ${taskId} AND ${live}
RETURNING *`)
      // A terminal task (or none) is answered as it is.
      return cancelled ?? (yield* read(taskId))
    }))

  const expire: TaskStore["Service"]["expire"] = (limit) =>
    mutation("expire", Effect.gen(function*() {
      const at = yield* now
      const deleted = yield* sql`DELETE FROM ${table} WHERE task_id IN (
  SELECT task_id FROM ${table} WHERE expires_at IS NOT NULL AND expires_at <= ${at} LIMIT ${Math.max(0, Math.floor(limit))}
) RETURNING task_id`
      return deleted.length
    }))

  return TaskStore.of({
    now,
    create,
    get: (taskId) => Effect.catchTag(read(taskId), "SqlError", (error) => Effect.fail(failed("Task store: get failed")(error))),
    claim,
    heartbeat,
    transition,
    respond,
    cancel,
    expire
  })
})

/**
 * The store as a Layer, on the `SqlClient` in context: fails closed (`SchemaMismatch`) unless the
 * database holds exactly this version's migrations, and (`SqliteFileUnusable`) on a corrupt or
 * read-only file.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<TaskStore, SchemaMismatch | SqliteFile.SqliteFileUnusable | SqlError.SqlError, SqlClient.SqlClient> =
  Layer.effect(
    TaskStore,
    Effect.andThen(checkSchema, Effect.flatMap(SqliteFile.check, make))
  )
