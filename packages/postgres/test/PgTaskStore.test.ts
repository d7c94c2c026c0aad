/**
 * The PostgreSQL store beyond the contract, on the real database in a random schema: the fence is
 * the database's (a stale worker's write blocked behind a claim is refused once the claim
 * commits), three instances' pools claim concurrently without sharing a task, the ledger hook,
 * a released task announced on the signals channel, the database's clock, and migrations (only
 * when asked, fail closed, safe from several instances at once).
 */
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import type { Task } from "@snodo/tasks"
import { TaskStore } from "@snodo/tasks/TaskStore"
import * as TasksPostgres from "@snodo/postgres"
import { Context, Deferred, Effect, Fiber, Layer, Queue } from "effect"
import { client, randomName, testSchema } from "./Database.ts"

const schema = testSchema()
const n = TasksPostgres.PgNames.names(schema)
const limits = { maxStored: 100_000, maxActivePerPrincipal: 100_000 }

const newTask = (taskId = randomName("task")): Task.NewTask => ({
  taskId,
  work: {
    tool: "slow_compute",
    arguments: { seconds: 1 },
    principal: { id: "alice", claims: {} },
    protocolVersion: "2026-07-28",
    clientCapabilities: {},
    clientInfo: undefined
  },
  ttlMs: 60_000,
  pollIntervalMs: 250,
  answers: {}
})

/** A schema of this test's own, dropped when the test ends, whatever its outcome. */
const scratchSchema = (prefix: string) =>
  Effect.acquireRelease(
    Effect.succeed(randomName(prefix)),
    (made) => Effect.ignore(Effect.flatMap(Effect.service(PgClient.PgClient), (sql) => sql.unsafe(`DROP SCHEMA IF EXISTS ${made} CASCADE`)))
  )

const storeLayer = (options: TasksPostgres.PgTaskStore.Options = {}) =>
  TasksPostgres.PgTaskStore.layer({ schema, ...options }).pipe(Layer.provideMerge(client()))

describe("PostgreSQL task store", () => {
  it.live("a stale worker's write that waited behind a claim is refused by the database when the claim commits", () =>
    Effect.gen(function*() {
      const store = yield* TaskStore
      const sql = yield* PgClient.PgClient
      const task = yield* store.create(newTask(), limits, { owner: "stale", leaseMs: 60_000 })
      const locked = yield* Deferred.make<void>()
      const commit = yield* Deferred.make<void>()
      // Another instance recovers the task: its transaction holds the row until we let it commit.
      const recovery = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`UPDATE ${sql(n.tasks)} SET generation = generation + 1, lease_owner = 'rescuer' WHERE task_id = ${task.taskId}`
        yield* Deferred.succeed(locked, undefined)
        yield* Deferred.await(commit)
      })).pipe(Effect.forkChild)
      yield* Deferred.await(locked)
      const stale = yield* store.transition(task.taskId, task.generation, { _tag: "Complete", result: { content: [] } }).pipe(Effect.forkChild)
      yield* Effect.sleep("200 millis")
      // The stale write is blocked on the row lock, not refused by a read it made earlier.
      expect(stale.pollUnsafe()).toBeUndefined()
      yield* Deferred.succeed(commit, undefined)
      yield* Fiber.join(recovery)
      expect(yield* Fiber.join(stale)).toBeUndefined()
      expect(yield* store.get(task.taskId)).toMatchObject({ status: "working", generation: task.generation + 1, leaseOwner: "rescuer" })
    }).pipe(Effect.provide(storeLayer())))

  it.live("three instances' pools claiming at once share no task and miss none", () =>
    Effect.gen(function*() {
      const stores = yield* Effect.all([0, 1, 2].map(() => Effect.map(Layer.build(storeLayer()), Context.get(TaskStore))))
      const ids = new Set<string>()
      const tasks = yield* Effect.all(Array.from({ length: 60 }, (_, i) => stores[i % 3]!.create(newTask(), limits)), { concurrency: 6 })
      for (const task of tasks) ids.add(task.taskId)
      const rounds = yield* Effect.all(
        Array.from({ length: 12 }, (_, i) => stores[i % 3]!.claim(`instance-${i % 3}`, 60_000, 4)),
        { concurrency: "unbounded" }
      )
      const claimed = rounds.flat().map((task) => task.taskId).filter((id) => ids.has(id))
      expect(new Set(claimed).size).toBe(claimed.length)
      const rest = (yield* Effect.all(stores.map((store, i) => store.claim(`instance-${i}`, 60_000, 1_000)))).flat()
        .map((task) => task.taskId).filter((id) => ids.has(id))
      expect(new Set([...claimed, ...rest])).toEqual(ids)
      expect(claimed.length + rest.length).toBe(ids.size)
    }).pipe(Effect.scoped))

  it.live("the ledger hook records each terminal commit in the same statement, and nothing for a fenced one", () =>
    Effect.gen(function*() {
      const store = yield* TaskStore
      const sql = yield* PgClient.PgClient
      const done = yield* store.create(newTask(), limits, { owner: "w", leaseMs: 60_000 })
      yield* store.transition(done.taskId, done.generation, { _tag: "Note", statusMessage: "not terminal" })
      yield* store.transition(done.taskId, done.generation, { _tag: "Complete", result: { content: [] } })
      yield* store.transition(done.taskId, done.generation, { _tag: "Complete", result: { content: [] } })
      const failed = yield* store.create(newTask(), limits, { owner: "w", leaseMs: 60_000 })
      yield* store.cancel(failed.taskId)
      expect(yield* store.transition(failed.taskId, failed.generation, { _tag: "Fail", error: { code: -32603, message: "late" } })).toBeUndefined()
      const rows = yield* sql<{ readonly task_id: string; readonly status: string; readonly generation: bigint }>`SELECT task_id, status, generation
FROM ${sql(n.ledger)} WHERE task_id IN (${done.taskId}, ${failed.taskId})`
      expect(rows).toEqual([{ task_id: done.taskId, status: "completed", generation: 1n }])
    }).pipe(Effect.provide(storeLayer({ ledger: true }))))

  it.live("instances with the ledger hook start at once (its table is created one at a time)", () =>
    Effect.gen(function*() {
      const fresh = yield* scratchSchema("snodo_ledger")
      yield* Effect.provide(TasksPostgres.migrate({ schema: fresh }), client({ maxConnections: 1 }))
      const started = yield* Effect.all(
        Array.from({ length: 5 }, () => Effect.exit(Effect.scoped(Layer.build(TasksPostgres.PgTaskStore.layer({ schema: fresh, ledger: true }).pipe(Layer.provide(client({ maxConnections: 1 }))))))),
        { concurrency: "unbounded" }
      )
      expect(started.map((exit) => exit._tag)).toEqual(["Success", "Success", "Success", "Success", "Success"])
    }).pipe(Effect.scoped, Effect.provide(client())))

  it.live("a released task is announced on the signals channel, and times are the database's", () =>
    Effect.gen(function*() {
      const store = yield* TaskStore
      const sql = yield* PgClient.PgClient
      const notifications = yield* sql.listen(n.signalsChannel)
      const task = yield* store.create(newTask(), limits, { owner: "leaving", leaseMs: 60_000 })
      const [db] = yield* sql<{ readonly ms: number }>`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms`
      expect(Math.abs(task.createdAt - db!.ms)).toBeLessThan(1_000)
      expect(task.leaseExpiresAt! - task.createdAt).toBe(60_000)
      expect(Math.abs((yield* store.now) - db!.ms)).toBeLessThan(1_000)
      yield* store.transition(task.taskId, task.generation, { _tag: "Release" })
      const notification = yield* Queue.take(notifications).pipe(Effect.timeout("5 seconds"))
      expect(notification.payload).toBe("store|w")
    }).pipe(Effect.scoped, Effect.provide(storeLayer())))

  it.live("migrations: only when asked, fail closed, safe from several instances at once", () =>
    Effect.gen(function*() {
      const fresh = yield* scratchSchema("snodo_migrate")
      const refused = yield* Effect.flip(Effect.provide(Effect.service(TaskStore), TasksPostgres.PgTaskStore.layer({ schema: fresh })))
      expect(refused).toMatchObject({ _tag: "SchemaMismatch", found: [], expected: ["1_create_tasks", "2_stored_quotas", "3_sessions", "4_fair_claim_indexes", "5_session_limit_keys", "6_dpop_proofs", "7_session_readers"] })
      const [exists] = yield* Effect.flatMap(Effect.service(PgClient.PgClient), (sql) =>
        sql<{ readonly found: boolean }>`SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = ${fresh}) AS found`)
      expect(exists?.found).toBe(false)
      // Three instances start at once, each told to migrate.
      const ran = yield* Effect.all(
        [0, 1, 2].map(() => Effect.provide(TasksPostgres.migrate({ schema: fresh }), client({ maxConnections: 2 }))),
        { concurrency: "unbounded" }
      )
      expect(ran.map((run) => run.length).toSorted()).toEqual([0, 0, 7])
      yield* Effect.provide(TasksPostgres.checkSchema({ schema: fresh }), client())
      yield* Effect.flatMap(Effect.service(PgClient.PgClient), (sql) =>
        sql.unsafe(`INSERT INTO ${fresh}.snodo_tasks_migrations (migration_id, name) VALUES (8, 'from_the_future')`))
      const newer = yield* Effect.flip(Effect.provide(Effect.service(TaskStore), TasksPostgres.layer({ schema: fresh, migrate: true })))
      expect(newer).toMatchObject({ _tag: "SchemaMismatch", found: ["1_create_tasks", "2_stored_quotas", "3_sessions", "4_fair_claim_indexes", "5_session_limit_keys", "6_dpop_proofs", "7_session_readers", "8_from_the_future"] })
    }).pipe(Effect.scoped, Effect.provide(client())))
})
