/**
 * `PgSessionStore` on the real database, two instances in one process (each with its own pool and
 * LISTEN, as two servers would have): the touches of one instance that come together share their
 * reads and each still sees the row as stored when it came, so a change or an end committed on one
 * instance is seen by the very next touch on the other; a session is only its principal's; and
 * `last_seen` is written by the batched flush, so a session used on one instance stays alive in the
 * store for every other.
 */
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import * as TasksPostgres from "@snodo/postgres"
import * as SessionStore from "@snodo/http/SessionStore"
import { Context, Effect, Layer } from "effect"
import { client, testSchema } from "./Database.ts"

const schema = testSchema()

const instance = (options: TasksPostgres.PgSessionStore.Options = {}) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      TasksPostgres.PgSessionStore.layer({ schema, ...options }).pipe(Layer.provideMerge(client({ maxConnections: 4 })))
    )
    return { store: Context.get(context, SessionStore.SessionStore), sql: Context.get(context, PgClient.PgClient) }
  })

const limits: SessionStore.Limits = { max: 100, maxPerPrincipal: 100, idleMillis: 60_000, initializeMillis: 60_000 }

const initialized: SessionStore.State = { ...SessionStore.empty, version: "2025-11-25", initialized: true }

describe("PgSessionStore", () => {
  it.live("touches that come together (sharing the reads under way) each see every change committed before they came, on any instance", () =>
    Effect.gen(function*() {
      const a = yield* instance()
      const b = yield* instance()
      const id = SessionStore.newOrigin()
      expect(yield* a.store.create(id, "alice", limits)).toBeUndefined()
      const states = yield* Effect.all(Array.from({ length: 20 }, () => b.store.touch(id, "alice", limits)), { concurrency: "unbounded" })
      expect(states).toEqual(Array.from({ length: 20 }, () => SessionStore.empty))
      // Saved on A: B's next touch reads it, without waiting for the NOTIFY.
      yield* a.store.save(id, { ...initialized, logLevel: "debug" }, "a", limits)
      expect(yield* b.store.touch(id, "alice", limits)).toEqual({ ...initialized, logLevel: "debug" })
      // Another principal finds nothing, even in a read shared with the owner's touch.
      const [mine, theirs] = yield* Effect.all([b.store.touch(id, "alice", limits), b.store.touch(id, "bob", limits)], { concurrency: "unbounded" })
      expect(mine).toEqual({ ...initialized, logLevel: "debug" })
      expect(theirs).toBeUndefined()
      // Removed on A: gone on B at its next touch.
      yield* a.store.remove(id, "a")
      expect(yield* b.store.touch(id, "alice", limits)).toBeUndefined()
    }).pipe(Effect.scoped), 30_000)

  it.live("a read shared by several sessions answers each its own row (and nothing for one gone), as a read of one does", () =>
    Effect.gen(function*() {
      const a = yield* instance()
      const b = yield* instance()
      const ids = [SessionStore.newOrigin(), SessionStore.newOrigin(), SessionStore.newOrigin()] as const
      for (const id of ids) expect(yield* a.store.create(id, "alice", limits)).toBeUndefined()
      yield* a.store.save(ids[0], { ...initialized, logLevel: "debug" }, "a", limits)
      yield* a.store.save(ids[1], { ...initialized, logLevel: "error" }, "a", limits)
      yield* a.store.remove(ids[2], "a")
      // One turn: the three sessions (and one twice) leave in one read on B.
      const together = yield* Effect.all([...ids, ids[0]].map((id) => b.store.touch(id, "alice", limits)), { concurrency: "unbounded" })
      expect(together).toEqual([{ ...initialized, logLevel: "debug" }, { ...initialized, logLevel: "error" }, undefined, { ...initialized, logLevel: "debug" }])
      // Each alone (a read of one session) sees the same.
      expect(yield* b.store.touch(ids[0], "alice", limits)).toEqual({ ...initialized, logLevel: "debug" })
      expect(yield* b.store.touch(ids[1], "alice", limits)).toEqual({ ...initialized, logLevel: "error" })
      expect(yield* b.store.touch(ids[2], "alice", limits)).toBeUndefined()
      // A change on A after B read both: B's next shared read sees it, for that session only.
      yield* a.store.save(ids[1], { ...initialized, logLevel: "warning" }, "a", limits)
      const again = yield* Effect.all([b.store.touch(ids[0], "alice", limits), b.store.touch(ids[1], "alice", limits)], { concurrency: "unbounded" })
      expect(again).toEqual([{ ...initialized, logLevel: "debug" }, { ...initialized, logLevel: "warning" }])
    }).pipe(Effect.scoped), 30_000)

  it.live("last_seen is written by the flush of the sessions touched, not by each touch; an expired row is not brought back", () =>
    Effect.gen(function*() {
      // Without the cache (leaseMs 0): every touch reads, so the row expired by hand below is seen.
      const a = yield* instance({ touchIntervalMs: 50, leaseMs: 0 })
      const id = SessionStore.newOrigin()
      expect(yield* a.store.create(id, "alice", limits)).toBeUndefined()
      yield* a.store.save(id, initialized, "a", limits)
      const seen = a.sql<{ readonly last_seen: string }>`SELECT last_seen::text AS last_seen FROM ${a.sql(`${schema}.snodo_sessions`)} WHERE id = ${id}`.pipe(
        Effect.map((rows) => Number(rows[0]?.last_seen))
      )
      const before = yield* seen
      yield* Effect.sleep("20 millis")
      expect(yield* a.store.touch(id, "alice", limits)).toEqual(initialized)
      // Written by the next flush (polled: the flush runs in the background).
      let after = yield* seen
      for (let tries = 0; after === before && tries < 200; tries++) {
        yield* Effect.sleep("25 millis")
        after = yield* seen
      }
      expect(after).toBeGreaterThan(before)
      // Expired in the database: a touch finds nothing, and its flush does not revive the row.
      yield* a.sql`UPDATE ${a.sql(`${schema}.snodo_sessions`)} SET expires_at = 0 WHERE id = ${id}`
      expect(yield* a.store.touch(id, "alice", limits)).toBeUndefined()
      yield* Effect.sleep("150 millis")
      const [row] = yield* a.sql<{ readonly expires_at: string }>`SELECT expires_at::text AS expires_at FROM ${a.sql(`${schema}.snodo_sessions`)} WHERE id = ${id}`
      expect(Number(row?.expires_at)).toBe(0)
    }).pipe(Effect.scoped), 30_000)
})
