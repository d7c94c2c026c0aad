/**
 * Task claim+complete throughput of the durable stores, beside a bare loop doing the same work
 * with plain SQL in the same run: how much the `TaskStore` costs over the database itself.
 *
 * One round on a backend: `tasks` tasks are created (untimed), then `workers` workers drain them,
 * each claiming up to `batch` at a time and completing each claimed task with a result. The figure
 * is tasks per second from the first claim to the last completion.
 *
 * - **PostgreSQL** (`@snodo/postgres` in a fresh schema, dropped afterwards): each worker is
 *   an instance of its own (its own pool and store). The bare loop is what a hand-written queue on
 *   `@effect/sql-pg` does: `UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED LIMIT n)`
 *   to claim, `UPDATE ... WHERE id = $1 AND owner = $2` to complete, on a table of the same shape
 *   (JSON columns, indexes on what it looks up).
 * - **SQLite** (`@snodo/tasks-sqlite` on a fresh file, WAL, `synchronous = FULL`): the workers are
 *   fibers of one process on one client (SQLite has one writer; the store is for one host). The
 *   bare loop runs the same claim and complete as `BEGIN IMMEDIATE` transactions on the same client.
 *
 * Rounds alternate store and bare loop; the best round of each is kept.
 *
 *   npx node bench/stores.ts                         # both backends, 1 and 3 workers; JSON on stdout
 *   npx node bench/stores.ts --tasks 500 --rounds 1 --backends sqlite
 *
 * The bench runner runs it in a process of its own (`npm run bench -- --scenarios stores`).
 */
import { PgClient } from "@effect/sql-pg"
import type { Task } from "@snodo/tasks"
import { TaskStore } from "@snodo/tasks/TaskStore"
import * as TasksPostgres from "@snodo/postgres"
import * as TasksSqlite from "@snodo/tasks-sqlite"
import { Context, Effect, Layer, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

export type Backend = "postgres" | "sqlite"

export interface StoreBenchOptions {
  readonly backends?: ReadonlyArray<Backend>
  readonly workerCounts?: ReadonlyArray<number>
  /** Tasks drained per round (default 2,000). */
  readonly tasks?: number
  /** Claimed at once by a worker (default 8). */
  readonly batch?: number
  /** Rounds of each (default 2). */
  readonly rounds?: number
  readonly pgUrl?: string
  readonly verbose?: boolean
}

/** Tasks per second: the store, and the bare loop of the same run. */
export interface Measured {
  readonly store: number
  readonly bare: number
}

export type StoreBenchResult = Readonly<Record<Backend, Readonly<Record<number, Measured>> | { readonly error: string }>>

const limits = { maxStored: 1_000_000, maxActivePerPrincipal: 1_000_000 }
const result = { resultType: "complete", content: [{ type: "text", text: "done" }], isError: false }
const resultJson = JSON.stringify(result)

const newTask = (): Task.NewTask => ({
  taskId: randomBytes(18).toString("base64url"),
  work: {
    tool: "bench",
    arguments: { n: 1, label: "bench" },
    principal: { id: "bench", claims: {} },
    protocolVersion: "2026-07-28",
    clientCapabilities: {},
    clientInfo: { name: "bench", version: "1" }
  },
  ttlMs: 3_600_000,
  pollIntervalMs: 250,
  answers: {}
})

/** Drains with `workers` loops; answers tasks/s. */
const drain = (workers: number, count: number, loop: (worker: number) => Effect.Effect<number, unknown>) =>
  Effect.gen(function*() {
    const started = performance.now()
    const done = yield* Effect.all(Array.from({ length: workers }, (_, worker) => loop(worker)), { concurrency: "unbounded" })
    const seconds = (performance.now() - started) / 1000
    const total = done.reduce((sum, n) => sum + n, 0)
    if (total !== count) return yield* Effect.die(new Error(`drained ${total} of ${count} tasks`))
    return count / seconds
  })

/** A store worker: claim a batch, complete each, until nothing is left. */
const storeLoop = (store: TaskStore["Service"], owner: string, batch: number) =>
  Effect.gen(function*() {
    let done = 0
    for (;;) {
      const claimed = yield* store.claim(owner, 60_000, batch)
      if (claimed.length === 0) return done
      for (const task of claimed) {
        const written = yield* store.transition(task.taskId, task.generation, { _tag: "Complete", result })
        if (written === undefined) return yield* Effect.die(new Error("a claimed task was fenced"))
        done++
      }
    }
  })

// ---- PostgreSQL ---------------------------------------------------------------------------------

const pgPool = (url: string) => PgClient.layer({ url: Redacted.make(url), maxConnections: 2 })

const pgStoreRound = (url: string, workers: number, count: number, batch: number) =>
  Effect.gen(function*() {
    const schema = `snodo_bench_${randomBytes(5).toString("hex")}`
    const admin = yield* Layer.build(pgPool(url))
    const sql = Context.get(admin, PgClient.PgClient)
    yield* Effect.provide(TasksPostgres.migrate({ schema }), admin)
    return yield* Effect.gen(function*() {
      const seeder = Context.get(yield* Layer.build(TasksPostgres.PgTaskStore.layer({ schema }).pipe(Layer.provide(pgPool(url)))), TaskStore)
      yield* Effect.all(Array.from({ length: count }, () => seeder.create(newTask(), limits)), { concurrency: 4, discard: true })
      const stores = yield* Effect.all(Array.from({ length: workers }, () =>
        Effect.map(Layer.build(TasksPostgres.PgTaskStore.layer({ schema }).pipe(Layer.provide(pgPool(url)))), Context.get(TaskStore))))
      return yield* drain(workers, count, (worker) => storeLoop(stores[worker]!, `worker-${worker}`, batch))
    }).pipe(Effect.ensuring(Effect.ignore(sql.unsafe(`DROP SCHEMA ${schema} CASCADE`))))
  }).pipe(Effect.scoped)

const pgBareRound = (url: string, workers: number, count: number, batch: number) =>
  Effect.gen(function*() {
    const table = `public.snodo_bench_bare_${randomBytes(5).toString("hex")}`
    const admin = Context.get(yield* Layer.build(pgPool(url)), PgClient.PgClient)
    yield* admin.unsafe(`CREATE TABLE ${table} (
  id bigserial PRIMARY KEY, status text NOT NULL, owner text, attempt integer NOT NULL DEFAULT 0,
  payload json NOT NULL, result json, created_at bigint NOT NULL
)`)
    return yield* Effect.gen(function*() {
      yield* admin.unsafe(`CREATE INDEX ON ${table} (id) WHERE status = 'pending'`)
      const payload = JSON.stringify(newTask().work)
      yield* admin`INSERT INTO ${admin(table)} (status, payload, created_at)
SELECT 'pending', ${payload}::json, 0 FROM generate_series(1, ${count})`
      const pools = yield* Effect.all(Array.from({ length: workers }, () => Effect.map(Layer.build(pgPool(url)), Context.get(PgClient.PgClient))))
      return yield* drain(workers, count, (worker) =>
        Effect.gen(function*() {
          const pg = pools[worker]!
          const owner = `worker-${worker}`
          let done = 0
          for (;;) {
            const claimed = yield* pg<{ readonly id: bigint }>`UPDATE ${pg(table)} SET status = 'running', owner = ${owner}, attempt = attempt + 1
WHERE id IN (SELECT id FROM ${pg(table)} WHERE status = 'pending' ORDER BY id LIMIT ${batch} FOR UPDATE SKIP LOCKED)
RETURNING id`
            if (claimed.length === 0) return done
            for (const row of claimed) {
              yield* pg`UPDATE ${pg(table)} SET status = 'done', result = ${resultJson}::json WHERE id = ${row.id} AND owner = ${owner}`
              done++
            }
          }
        }))
    }).pipe(Effect.ensuring(Effect.ignore(admin.unsafe(`DROP TABLE ${table}`))))
  }).pipe(Effect.scoped)

// ---- SQLite -------------------------------------------------------------------------------------

const sqliteStoreRound = (dir: string, workers: number, count: number, batch: number) =>
  Effect.gen(function*() {
    const filename = join(dir, `store-${randomBytes(4).toString("hex")}.sqlite`)
    const store = Context.get(yield* Layer.build(TasksSqlite.layer({ filename, migrate: true })), TaskStore)
    for (let i = 0; i < count; i++) yield* store.create(newTask(), limits)
    return yield* drain(workers, count, (worker) => storeLoop(store, `worker-${worker}`, batch))
  }).pipe(Effect.scoped)

const sqliteBareRound = (dir: string, workers: number, count: number, batch: number) =>
  Effect.gen(function*() {
    const filename = join(dir, `bare-${randomBytes(4).toString("hex")}.sqlite`)
    const sql = Context.get(yield* Layer.build(TasksSqlite.SqliteClient.layer({ filename })), SqlClient.SqlClient)
    yield* sql`CREATE TABLE jobs (
  id INTEGER PRIMARY KEY, status TEXT NOT NULL, owner TEXT, attempt INTEGER NOT NULL DEFAULT 0,
  payload TEXT NOT NULL, result TEXT, created_at INTEGER NOT NULL
) STRICT`
    yield* sql`CREATE INDEX jobs_pending ON jobs (id) WHERE status = 'pending'`
    const payload = JSON.stringify(newTask().work)
    for (let i = 0; i < count; i++) yield* sql.withTransaction(sql`INSERT INTO jobs (status, payload, created_at) VALUES ('pending', ${payload}, 0)`)
    return yield* drain(workers, count, (worker) =>
      Effect.gen(function*() {
        const owner = `worker-${worker}`
        let done = 0
        for (;;) {
          const claimed = yield* sql.withTransaction(sql<{ readonly id: number }>`UPDATE jobs SET status = 'running', owner = ${owner}, attempt = attempt + 1
WHERE id IN (SELECT id FROM jobs WHERE status = 'pending' ORDER BY id LIMIT ${batch}) RETURNING id`)
          if (claimed.length === 0) return done
          for (const row of claimed) {
            yield* sql.withTransaction(sql`UPDATE jobs SET status = 'done', result = ${resultJson} WHERE id = ${row.id} AND owner = ${owner}`)
            done++
          }
        }
      }))
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer))

// ---- run ----------------------------------------------------------------------------------------

/** Runs the rounds; a backend that cannot run is reported with its error. */
export const runStoreBench = async (options: StoreBenchOptions = {}): Promise<StoreBenchResult> => {
  const backends = options.backends ?? ["postgres", "sqlite"]
  const workerCounts = options.workerCounts ?? [1, 3]
  const count = options.tasks ?? 2_000
  const batch = options.batch ?? 8
  const rounds = options.rounds ?? 2
  const pgUrl = options.pgUrl ?? process.env["SNODO_BENCH_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
  const log = (line: string) => options.verbose === false ? undefined : process.stderr.write(`${line}\n`)
  const dir = mkdtempSync(join(tmpdir(), "snodo-bench-stores-"))
  const out: Record<string, Record<number, Measured> | { readonly error: string }> = {}
  try {
    for (const backend of backends) {
      const measured: Record<number, Measured> = {}
      try {
        for (const workers of workerCounts) {
          let store = 0
          let bare = 0
          for (let round = 0; round < rounds; round++) {
            const storeRound = backend === "postgres" ? pgStoreRound(pgUrl, workers, count, batch) : sqliteStoreRound(dir, workers, count, batch)
            const bareRound = backend === "postgres" ? pgBareRound(pgUrl, workers, count, batch) : sqliteBareRound(dir, workers, count, batch)
            // Alternate which goes first, so neither always runs on a warmer machine.
            const [first, second] = round % 2 === 0 ? [storeRound, bareRound] : [bareRound, storeRound]
            const a = await Effect.runPromise(first)
            const b = await Effect.runPromise(second)
            const [s, r] = round % 2 === 0 ? [a, b] : [b, a]
            store = Math.max(store, s)
            bare = Math.max(bare, r)
            log(`   ${backend}, ${workers} worker(s), round ${round + 1}: store ${s.toFixed(0)} tasks/s, bare loop ${r.toFixed(0)} tasks/s (${(s / r).toFixed(2)}×)`)
          }
          measured[workers] = { store, bare }
        }
        out[backend] = measured
      } catch (error) {
        out[backend] = { error: error instanceof Error ? error.message : String(error) }
        log(`   ${backend}: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return out as StoreBenchResult
}

if (import.meta.main) {
  const argv = process.argv.slice(2)
  const value = (name: string) => {
    const at = argv.indexOf(name)
    return at >= 0 ? argv[at + 1] : undefined
  }
  const numberOf = (name: string) => value(name) === undefined ? undefined : Number(value(name))
  const backends = value("--backends")?.split(",") as ReadonlyArray<Backend> | undefined
  const tasks = numberOf("--tasks")
  const rounds = numberOf("--rounds")
  const measured = await runStoreBench({
    ...(backends === undefined ? {} : { backends }),
    ...(tasks === undefined ? {} : { tasks }),
    ...(rounds === undefined ? {} : { rounds })
  })
  process.stdout.write(`${JSON.stringify(measured, null, 2)}\n`)
  process.exit(0)
}
