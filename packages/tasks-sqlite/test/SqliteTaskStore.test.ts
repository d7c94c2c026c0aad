/**
 * The SQLite store beyond the contract: migrations only when asked, a schema check that fails
 * closed, durability across a reopen of the file, and two clients on one file (as two processes
 * would be) that never claim the same task.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Task } from "@snodo/tasks"
import { TaskStore } from "@snodo/tasks/TaskStore"
import * as TasksSqlite from "@snodo/tasks-sqlite"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"

const dir = mkdtempSync(join(tmpdir(), "snodo-sqlite-store-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0
const file = () => join(dir, `tasks-${files++}.sqlite`)

const limits = { maxStored: 1_000, maxActivePerPrincipal: 1_000 }
const newTask = (taskId: string): Task.NewTask => ({
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

const client = (filename: string) => TasksSqlite.SqliteClient.layer({ filename })

describe("SQLite task store", () => {
  it.effect("the store refuses a database that is not migrated, and migrating is what the application asks for", () => {
    const filename = file()
    return Effect.gen(function*() {
      const refused = yield* Effect.flip(Effect.provide(Effect.service(TaskStore), TasksSqlite.layer({ filename })))
      expect(refused).toBeInstanceOf(TasksSqlite.SchemaMismatch)
      expect(refused).toMatchObject({ found: [], expected: ["1_create_tasks", "2_stored_quotas", "3_fair_claim_indexes"] })
      // Building the refused store created no table: nothing migrates by itself.
      const tables = yield* Effect.provide(
        Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) => sql<{ readonly name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`),
        client(filename)
      )
      expect(tables).toEqual([])
      const ran = yield* Effect.provide(TasksSqlite.migrate, client(filename))
      expect(ran).toEqual([[1, "create_tasks"], [2, "stored_quotas"], [3, "fair_claim_indexes"]])
      expect(yield* Effect.provide(TasksSqlite.migrate, client(filename))).toEqual([])
      yield* Effect.provide(TasksSqlite.checkSchema, client(filename))
      const store = yield* Effect.provide(Effect.service(TaskStore), TasksSqlite.layer({ filename }))
      expect(typeof store.create).toBe("function")
    })
  })

  it.effect("a database migrated by another version is refused, even with migrate: true", () => {
    const filename = file()
    return Effect.gen(function*() {
      yield* Effect.provide(
        Effect.gen(function*() {
          yield* TasksSqlite.migrate
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO ${sql(TasksSqlite.migrationsTable)} (migration_id, name) VALUES (4, 'from_the_future')`
        }),
        client(filename)
      )
      const refused = yield* Effect.flip(Effect.provide(Effect.service(TaskStore), TasksSqlite.layer({ filename, migrate: true })))
      expect(refused).toMatchObject({ _tag: "SchemaMismatch", found: ["1_create_tasks", "2_stored_quotas", "3_fair_claim_indexes", "4_from_the_future"] })
      expect(refused.message).toContain("another version")
    })
  })

  it.effect("a task survives closing and reopening the file, exactly", () => {
    const filename = file()
    const layer = TasksSqlite.layer({ filename, migrate: true })
    return Effect.gen(function*() {
      const created = yield* Effect.provide(
        Effect.gen(function*() {
          const store = yield* TaskStore
          const task = yield* store.create(newTask("durable-1"), limits, { owner: "first", leaseMs: 60_000 })
          return yield* store.transition(task.taskId, task.generation, { _tag: "Note", statusMessage: "half way" })
        }),
        layer
      )
      const reopened = yield* Effect.provide(Effect.flatMap(Effect.service(TaskStore), (store) => store.get("durable-1")), layer)
      expect(reopened).toEqual(created)
      expect(reopened).toMatchObject({ statusMessage: "half way", leaseOwner: "first", generation: 1 })
    })
  })

  it.live("two clients on one file (as two processes) claim disjoint sets and miss none", () => {
    const filename = file()
    return Effect.gen(function*() {
      yield* Effect.provide(TasksSqlite.migrate, client(filename))
      const one = yield* Layer.build(TasksSqlite.layer({ filename }))
      const two = yield* Layer.build(TasksSqlite.layer({ filename }))
      const a = yield* Effect.provide(Effect.service(TaskStore), one)
      const b = yield* Effect.provide(Effect.service(TaskStore), two)
      const ids = new Set<string>()
      for (let i = 0; i < 30; i++) ids.add((yield* (i % 2 === 0 ? a : b).create(newTask(`shared-${i}`), limits)).taskId)
      const rounds = yield* Effect.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).claim(i % 2 === 0 ? "a" : "b", 60_000, 4)),
        { concurrency: "unbounded" }
      )
      const claimed = rounds.flat().map((task) => task.taskId)
      expect(new Set(claimed).size).toBe(claimed.length)
      const rest = [...yield* a.claim("a", 60_000, 100), ...yield* b.claim("b", 60_000, 100)].map((task) => task.taskId)
      expect(new Set([...claimed, ...rest])).toEqual(ids)
      expect(claimed.length + rest.length).toBe(ids.size)
    }).pipe(Effect.scoped)
  })
})

describe("the store on an application's own SqlClient", () => {
  it.effect("layerOnSqlClient migrates (when asked) and serves next to the application's own tables", () => {
    const filename = file()
    return Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE app_orders (id INTEGER PRIMARY KEY)`
      const store = yield* TaskStore
      const created = yield* store.create(newTask("on-own-client"), limits)
      expect(yield* store.get(created.taskId)).toEqual(created)
      expect(yield* sql`SELECT count(*) AS n FROM app_orders`).toEqual([{ n: 0 }])
    }).pipe(Effect.provide(TasksSqlite.layerOnSqlClient({ migrate: true }).pipe(Layer.provideMerge(client(filename)))))
  })

  it.effect("without migrate it fails closed on an unmigrated database", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(Effect.provide(Effect.service(TaskStore), TasksSqlite.layerOnSqlClient().pipe(Layer.provide(client(file())))))
      expect(refused).toMatchObject({ _tag: "SchemaMismatch" })
    }))
})
