/**
 * `PgSessionStore`'s cached copies, on the real database, with two or three instances in one
 * process (each with its own pool and LISTEN, as servers would have) on a schema of each test's
 * own: a change on one instance is seen by the very next touch on any other (strict), an instance
 * whose LISTEN connection dies stops trusting its copy, a change waits at most the lease of an
 * instance that stopped answering, a cached session costs no read, a read under way when its
 * session's change arrives is not cached, and a cached session expires on its own clock.
 */
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import * as TasksPostgres from "@snodo/postgres"
import * as SessionStore from "@snodo/http/SessionStore"
import { Context, Effect, Exit, Fiber, Layer, Redacted, Tracer } from "effect"
import { randomName, url } from "./Database.ts"

/** A schema of this test's own: migrated now, dropped when the test's scope closes. */
const scratchSchema = Effect.acquireRelease(
  Effect.gen(function*() {
    const schema = randomName("snodo_cache")
    yield* TasksPostgres.migrate({ schema })
    return schema
  }),
  (schema) => Effect.flatMap(Effect.service(PgClient.PgClient), (sql) => sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).pipe(Effect.ignore)
)

const admin = PgClient.layer({ url: Redacted.make(url), maxConnections: 4 })

/** One instance: its own pool (named, so its LISTEN backend can be found), counting its reads of sessions. */
const instance = (schema: string, name: string, options: TasksPostgres.PgSessionStore.Options = {}) =>
  Effect.gen(function*() {
    let reads = 0
    const tracer = Tracer.make({
      span: (span) => {
        const native = new Tracer.NativeSpan(span)
        const end = native.end.bind(native)
        native.end = (time, exit) => {
          const text = native.attributes.get("db.query.text")
          if (typeof text === "string" && text.includes("state::text AS state")) reads++
          end(time, exit)
        }
        return native
      }
    })
    const applicationName = randomName(name)
    const context = yield* Layer.build(
      TasksPostgres.PgSessionStore.layer({ schema, ...options }).pipe(
        Layer.provideMerge(PgClient.layer({ url: Redacted.make(url), maxConnections: 4, applicationName })),
        Layer.provide(Layer.succeed(Tracer.Tracer, tracer))
      )
    )
    return {
      store: Context.get(context, SessionStore.SessionStore),
      reads: () => reads,
      applicationName
    }
  })

type Instance = Effect.Success<ReturnType<typeof instance>>

/** Leases that outlast a test on a busy machine: what a copy answers is then the copy's doing, not a lapse's. */
const long = { leaseMs: 10_000 }

const limits: SessionStore.Limits = { max: 100, maxPerPrincipal: 100, idleMillis: 60_000, initializeMillis: 60_000 }
const initialized: SessionStore.State = { ...SessionStore.empty, version: "2025-11-25", initialized: true }

/** Until `count` instances hold a live lease. */
const leased = (schema: string, count: number) =>
  Effect.gen(function*() {
    const sql = yield* PgClient.PgClient
    for (let tries = 0; tries < 200; tries++) {
      const [row] = yield* sql.unsafe<{ readonly n: number }>(
        `SELECT count(*)::int AS n FROM ${schema}.snodo_session_readers WHERE expires_at > (extract(epoch FROM clock_timestamp()) * 1000)::bigint`
      )
      if ((row?.n ?? 0) >= count) return
      yield* Effect.sleep("25 millis")
    }
    throw new Error(`${count} leases were not taken`)
  })

/** Touches until the session is in `at`'s copy (a touch that reads nothing). */
const cached = (at: Instance, id: string) =>
  Effect.gen(function*() {
    for (let tries = 0; tries < 100; tries++) {
      yield* at.store.touch(id, "alice", limits)
      const before = at.reads()
      yield* at.store.touch(id, "alice", limits)
      if (at.reads() === before) return
      yield* Effect.sleep("20 millis")
    }
    throw new Error("the session was never cached")
  })

/** Changes the row behind every instance's back (no NOTIFY): only a read sees it. */
const setBehind = (schema: string, id: string, state: SessionStore.State) =>
  Effect.flatMap(Effect.service(PgClient.PgClient), (sql) => sql.unsafe(`UPDATE ${schema}.snodo_sessions SET state = $1 WHERE id = $2`, [JSON.stringify(state), id]))

describe("PgSessionStore's cache", () => {
  it.live("a change (setLevel, DELETE) answered on one instance is seen by the next touch on every other, each holding a copy", () =>
    Effect.gen(function*() {
      const schema = yield* scratchSchema
      const [a, b, c] = yield* Effect.all([instance(schema, "a", long), instance(schema, "b", long), instance(schema, "c", long)])
      yield* leased(schema, 3)
      const id = SessionStore.newOrigin()
      expect(yield* a.store.create(id, "alice", limits)).toBeUndefined()
      yield* a.store.save(id, initialized, "a", limits)
      for (const at of [a, b, c]) yield* cached(at, id)
      // setLevel on A: B and C answer the new level at once, though both held a copy.
      yield* a.store.save(id, { ...initialized, logLevel: "debug" }, "a", limits)
      expect(yield* b.store.touch(id, "alice", limits)).toEqual({ ...initialized, logLevel: "debug" })
      expect(yield* c.store.touch(id, "alice", limits)).toEqual({ ...initialized, logLevel: "debug" })
      // The copies are taken again, then a DELETE on B: gone on A and C at once (and on B).
      for (const at of [a, b, c]) yield* cached(at, id)
      yield* b.store.remove(id, "b")
      expect(yield* a.store.touch(id, "alice", limits)).toBeUndefined()
      expect(yield* c.store.touch(id, "alice", limits)).toBeUndefined()
      expect(yield* b.store.touch(id, "alice", limits)).toBeUndefined()
      // A copy is its principal's: another principal finds nothing, without a read.
      const other = SessionStore.newOrigin()
      expect(yield* a.store.create(other, "alice", limits)).toBeUndefined()
      yield* cached(c, other)
      const before = c.reads()
      expect(yield* c.store.touch(other, "bob", limits)).toBeUndefined()
      expect(c.reads()).toBe(before)
    }).pipe(Effect.scoped, Effect.provide(admin)), 30_000)

  it.live("a cached session costs no read; with leaseMs 0 every touch reads", () =>
    Effect.gen(function*() {
      const schema = yield* scratchSchema
      const [a, b] = yield* Effect.all([instance(schema, "a", long), instance(schema, "b", { leaseMs: 0 })])
      yield* leased(schema, 1)
      const id = SessionStore.newOrigin()
      expect(yield* a.store.create(id, "alice", limits)).toBeUndefined()
      yield* a.store.save(id, initialized, "a", limits)
      yield* cached(a, id)
      const [readsA, readsB] = [a.reads(), b.reads()]
      for (let i = 0; i < 100; i++) {
        expect(yield* a.store.touch(id, "alice", limits)).toEqual(initialized)
        expect(yield* b.store.touch(id, "alice", limits)).toEqual(initialized)
      }
      expect(a.reads() - readsA).toBe(0)
      expect(b.reads() - readsB).toBe(100)
      // From the copy the touch is answered when called (an Exit: the transport needs no fiber); a read is not.
      expect(Exit.isExit(a.store.touch(id, "alice", limits))).toBe(true)
      expect(Exit.isExit(b.store.touch(id, "alice", limits))).toBe(false)
      // The copy is what answered: a change made behind the store's back is not seen on A, is on B.
      yield* setBehind(schema, id, { ...initialized, logLevel: "error" })
      expect(yield* a.store.touch(id, "alice", limits)).toEqual(initialized)
      expect(yield* b.store.touch(id, "alice", limits)).toEqual({ ...initialized, logLevel: "error" })
      // A change through the store on B (which holds no lease) reaches A's copy before it answers.
      yield* b.store.save(id, { ...initialized, logLevel: "info" }, "b", limits)
      expect(yield* a.store.touch(id, "alice", limits)).toEqual({ ...initialized, logLevel: "info" })
    }).pipe(Effect.scoped, Effect.provide(admin)), 30_000)

  it.live("an instance whose LISTEN connection dies stops trusting its copy and reads again; a change waits for it at most its lease", () =>
    Effect.gen(function*() {
      const schema = yield* scratchSchema
      const sql = yield* PgClient.PgClient
      const [a, b] = yield* Effect.all([instance(schema, "a", { leaseMs: 1_500 }), instance(schema, "b", { leaseMs: 1_500 })])
      yield* leased(schema, 2)
      const id = SessionStore.newOrigin()
      expect(yield* a.store.create(id, "alice", limits)).toBeUndefined()
      yield* a.store.save(id, initialized, "a", limits)
      yield* cached(b, id)
      // B's LISTEN backend dies; a change made meanwhile is announced to nobody.
      yield* setBehind(schema, id, { ...initialized, logLevel: "critical" })
      const [killed] = yield* sql.unsafe<{ readonly n: number }>(
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
        [b.applicationName]
      )
      expect(killed?.n).toBe(1)
      yield* Effect.sleep("200 millis")
      const before = b.reads()
      expect(yield* b.store.touch(id, "alice", limits)).toEqual({ ...initialized, logLevel: "critical" })
      expect(b.reads()).toBe(before + 1)
      // An instance that stopped answering (its lease row lives on, nothing acknowledges): a change
      // waits for its lease to lapse, and no longer.
      yield* sql.unsafe(`INSERT INTO ${schema}.snodo_session_readers (reader, heard_at, expires_at)
SELECT 'gone', n, n + 1000 FROM (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS n) c`)
      const started = Date.now()
      yield* a.store.save(id, { ...initialized, logLevel: "debug" }, "a", limits)
      const waited = Date.now() - started
      expect(waited).toBeGreaterThanOrEqual(700)
      expect(waited).toBeLessThan(2_500)
      // B heard it again (its LISTEN is back): the change is seen there too.
      expect(yield* b.store.touch(id, "alice", limits)).toEqual({ ...initialized, logLevel: "debug" })
      // Live instances only: A's next change is acknowledged by B, not waited out.
      yield* leased(schema, 2)
      const again = Date.now()
      yield* a.store.save(id, { ...initialized, logLevel: "info" }, "a", limits)
      expect(Date.now() - again).toBeLessThan(700)
      expect(yield* b.store.touch(id, "alice", limits)).toEqual({ ...initialized, logLevel: "info" })
    }).pipe(Effect.scoped, Effect.provide(admin)), 30_000)

  it.live("a read under way when its session's change arrives is not cached; one no change crossed is", () =>
    Effect.gen(function*() {
      const schema = yield* scratchSchema
      const [b] = yield* Effect.all([instance(schema, "b", long)])
      yield* leased(schema, 1)
      const ids = [SessionStore.newOrigin(), SessionStore.newOrigin()] as const
      for (const id of ids) expect(yield* b.store.create(id, "alice", limits)).toBeUndefined()
      // B's reads wait behind a lock on the table; meanwhile the first session's change is announced.
      const locked = yield* Effect.forkChild(Effect.scoped(Effect.gen(function*() {
        const sql = yield* PgClient.PgClient
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql.unsafe(`LOCK TABLE ${schema}.snodo_sessions IN ACCESS EXCLUSIVE MODE`)
          yield* Effect.sleep("600 millis")
        }))
      })))
      yield* Effect.sleep("150 millis")
      const reading = yield* Effect.forkChild(Effect.all(ids.map((id) => b.store.touch(id, "alice", limits)), { concurrency: "unbounded" }))
      yield* Effect.sleep("150 millis")
      const sql = yield* PgClient.PgClient
      yield* sql.unsafe(`SELECT pg_notify($1, $2)`, [
        TasksPostgres.PgNames.names(schema).sessionsChannel,
        JSON.stringify({ inv: { id: ids[0], by: "elsewhere", seq: 1 } })
      ])
      yield* Fiber.join(locked)
      expect(yield* Fiber.join(reading)).toEqual([SessionStore.empty, SessionStore.empty])
      // Behind the store's back: the first session (read across its change) is read again, the
      // second answers from its copy.
      for (const id of ids) yield* setBehind(schema, id, initialized)
      const before = b.reads()
      expect(yield* b.store.touch(ids[0], "alice", limits)).toEqual(initialized)
      expect(yield* b.store.touch(ids[1], "alice", limits)).toEqual(SessionStore.empty)
      expect(b.reads()).toBe(before + 1)
    }).pipe(Effect.scoped, Effect.provide(admin)), 30_000)

  it.live("a change announced without its invalidation (an instance of an earlier version), or a message it cannot read, drops the copy once it arrives", () =>
    Effect.gen(function*() {
      const schema = yield* scratchSchema
      const sql = yield* PgClient.PgClient
      const [a] = yield* Effect.all([instance(schema, "a", long)])
      yield* leased(schema, 1)
      const id = SessionStore.newOrigin()
      expect(yield* a.store.create(id, "alice", limits)).toBeUndefined()
      yield* cached(a, id)
      yield* setBehind(schema, id, initialized)
      expect(yield* a.store.touch(id, "alice", limits)).toEqual(SessionStore.empty)
      yield* sql.unsafe(`SELECT pg_notify($1, $2)`, [
        TasksPostgres.PgNames.names(schema).sessionsChannel,
        JSON.stringify({ event: { _tag: "Changed", id, origin: "earlier", state: initialized } })
      ])
      let seen: SessionStore.State | undefined = SessionStore.empty
      for (let tries = 0; tries < 100 && seen?.initialized !== true; tries++) {
        yield* Effect.sleep("20 millis")
        seen = yield* a.store.touch(id, "alice", limits)
      }
      expect(seen).toEqual(initialized)
      // A message it cannot read (a newer version's, say) may have been a change: the copies go.
      yield* cached(a, id)
      yield* setBehind(schema, id, { ...initialized, logLevel: "alert" })
      yield* sql.unsafe(`SELECT pg_notify($1, $2)`, [TasksPostgres.PgNames.names(schema).sessionsChannel, JSON.stringify({ event: { _tag: "Unknown", id } })])
      for (let tries = 0; tries < 100 && seen?.logLevel !== "alert"; tries++) {
        yield* Effect.sleep("20 millis")
        seen = yield* a.store.touch(id, "alice", limits)
      }
      expect(seen).toEqual({ ...initialized, logLevel: "alert" })
    }).pipe(Effect.scoped, Effect.provide(admin)), 30_000)

  it.live("a cached session expires on its own clock: once its time is up it is read again", () =>
    Effect.gen(function*() {
      const schema = yield* scratchSchema
      const short: SessionStore.Limits = { ...limits, idleMillis: 600, initializeMillis: 600 }
      const [a, b] = yield* Effect.all([instance(schema, "a", long), instance(schema, "b", long)])
      yield* leased(schema, 2)
      const id = SessionStore.newOrigin()
      expect(yield* a.store.create(id, "alice", short)).toBeUndefined()
      expect(yield* b.store.touch(id, "alice", short)).toEqual(SessionStore.empty)
      const before = b.reads()
      expect(yield* b.store.touch(id, "alice", short)).toEqual(SessionStore.empty)
      expect(b.reads()).toBe(before)
      // No request for longer than the idle time (B's use was flushed, which moved the expiry a little).
      yield* Effect.sleep("1500 millis")
      expect(yield* b.store.touch(id, "alice", short)).toBeUndefined()
      expect(b.reads()).toBe(before + 1)
    }).pipe(Effect.scoped, Effect.provide(admin)), 30_000)

  it.live("remembers at most 10,000 sessions' copies: past them it forgets them all, and a forgotten one is read again", () =>
    Effect.gen(function*() {
      const schema = yield* scratchSchema
      const a = yield* instance(schema, "a", long)
      yield* leased(schema, 1)
      const first = SessionStore.newOrigin()
      expect(yield* a.store.create(first, "alice", limits)).toBeUndefined()
      yield* cached(a, first)
      const sql = yield* PgClient.PgClient
      yield* sql.unsafe(
        `INSERT INTO ${schema}.snodo_sessions (id, principal, limit_key, state, created_at, last_seen, expires_at)
SELECT 'bulk-' || n, 'alice', 'alice', $1, c.now, c.now, c.now + 600000
FROM generate_series(1, 10000) n, (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now) c`,
        [JSON.stringify(SessionStore.empty)]
      )
      const bulk = Array.from({ length: 10_000 }, (_, n) => `bulk-${n + 1}`)
      const states = yield* Effect.all(bulk.map((id) => a.store.touch(id, "alice", limits)), { concurrency: "unbounded" })
      expect(states.every((state) => state !== undefined)).toBe(true)
      // The first copy went when the copies reached 10,000: it is read again.
      const before = a.reads()
      expect(yield* a.store.touch(first, "alice", limits)).toEqual(SessionStore.empty)
      expect(a.reads()).toBe(before + 1)
      // A copy taken after the start-over is still answered without a read.
      const after = a.reads()
      expect(yield* a.store.touch("bulk-10000", "alice", limits)).toEqual(SessionStore.empty)
      expect(a.reads()).toBe(after)
    }).pipe(Effect.scoped, Effect.provide(admin)), 60_000)
})
