/**
 * The node:sqlite client: the settings it promises (WAL, busy timeout, synchronous, foreign keys),
 * BEGIN IMMEDIATE transactions that hold the write lock from the start, rollback, error
 * classification and the statement cache.
 */
import { describe, expect, it } from "@effect/vitest"
import * as SqliteClient from "@snodo/tasks-sqlite/SqliteClient"
import { Deferred, Effect, Fiber } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient } from "effect/sql"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll } from "vitest"

const dir = mkdtempSync(join(tmpdir(), "snodo-sqlite-client-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let files = 0
const file = () => join(dir, `db-${files++}.sqlite`)

const pragma = (name: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql.unsafe<Record<string, unknown>>(`PRAGMA ${name}`)
    return Object.values(rows[0] ?? {})[0]
  })

describe("SqliteClient", () => {
  it.effect("opens a file in WAL mode with the busy timeout, synchronous FULL and foreign keys on", () =>
    Effect.gen(function*() {
      expect(yield* pragma("journal_mode")).toBe("wal")
      expect(yield* pragma("busy_timeout")).toBe(1234)
      expect(yield* pragma("synchronous")).toBe(2)
      expect(yield* pragma("foreign_keys")).toBe(1)
    }).pipe(Effect.provide(SqliteClient.layer({ filename: file(), busyTimeoutMs: 1234 }))))

  it.effect("synchronous and WAL are configurable", () =>
    Effect.gen(function*() {
      expect(yield* pragma("journal_mode")).toBe("delete")
      expect(yield* pragma("synchronous")).toBe(1)
    }).pipe(Effect.provide(SqliteClient.layer({ filename: file(), disableWAL: true, synchronous: "NORMAL" }))))

  it.live("a transaction holds the write lock from BEGIN: another connection cannot write until it commits", () => {
    const filename = file()
    return Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE t (v INTEGER)`
      const inside = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      // The transaction only reads before it waits: a deferred BEGIN would not hold the lock yet.
      const tx = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`SELECT count(*) FROM t`
        yield* Deferred.succeed(inside, undefined)
        yield* Deferred.await(release)
        yield* sql`INSERT INTO t (v) VALUES (1)`
      })).pipe(Effect.forkChild)
      yield* Deferred.await(inside)
      const other = new DatabaseSync(filename, { timeout: 0 })
      expect(() => other.exec("INSERT INTO t (v) VALUES (2)")).toThrow(/locked|busy/i)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(tx)
      other.exec("INSERT INTO t (v) VALUES (2)")
      other.close()
      expect(yield* sql<{ readonly v: number }>`SELECT v FROM t ORDER BY v`).toEqual([{ v: 1 }, { v: 2 }])
    }).pipe(Effect.provide(SqliteClient.layer({ filename })))
  })

  it.live("a failed transaction rolls back; statements of other fibers never land inside one", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE t (v INTEGER)`
      const failed = yield* Effect.flip(sql.withTransaction(Effect.andThen(sql`INSERT INTO t (v) VALUES (1)`, Effect.fail("boom" as const))))
      expect(failed).toBe("boom")
      const slow = sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO t (v) VALUES (10)`
        yield* Effect.sleep("20 millis")
        return yield* Effect.fail("rolled back" as const)
      }))
      const outcome = yield* Effect.all([Effect.flip(slow), Effect.andThen(Effect.sleep("5 millis"), sql`INSERT INTO t (v) VALUES (20)`)], {
        concurrency: "unbounded"
      })
      expect(outcome[0]).toBe("rolled back")
      expect(yield* sql<{ readonly v: number }>`SELECT v FROM t`).toEqual([{ v: 20 }])
    }).pipe(Effect.provide(SqliteClient.layer({ filename: ":memory:" }))))

  it.effect("errors are classified; values, raw results and more statements than the cache holds", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL, flag INTEGER)`
      yield* sql`INSERT INTO t ${sql.insert({ id: "a", n: 1, flag: true })}`
      const duplicate = yield* Effect.flip(sql`INSERT INTO t ${sql.insert({ id: "a", n: 2, flag: false })}`)
      expect(duplicate.reason._tag).toBe("ConstraintError")
      const syntax = yield* Effect.flip(sql.unsafe("SELEC nothing"))
      expect(syntax._tag).toBe("SqlError")
      expect(yield* sql`SELECT id, n, flag FROM t`.values).toEqual([["a", 1, 1]])
      expect(yield* sql`UPDATE t SET n = 5`.raw).toMatchObject({ changes: 1 })
      for (let i = 0; i < 8; i++) expect(yield* sql.unsafe<{ readonly x: number }>(`SELECT ${i} AS x`)).toEqual([{ x: i }])
      expect(yield* sql<{ readonly n: number }>`SELECT n FROM t`).toEqual([{ n: 5 }])
    }).pipe(Effect.provide(SqliteClient.layer({ filename: ":memory:", prepareCacheSize: 3 }))))

  it.effect("a database that cannot be opened is a SqlError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Effect.scoped(SqliteClient.make({ filename: join(dir, "missing", "dir", "x.sqlite") })))
      expect(error._tag).toBe("SqlError")
    }).pipe(Effect.provide(Reactivity.layer)))
})
