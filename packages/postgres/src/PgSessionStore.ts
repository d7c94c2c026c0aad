/**
 * A `SessionStore` (`@snodo/http/SessionStore`) on PostgreSQL: the initialize-era HTTP sessions
 * (2025-11-25) of every instance in one table, their events between instances on one `LISTEN`
 * channel. Many instances behind any load balancer, without sticky routing, serve every request
 * of every session.
 *
 * - A session is one row of `snodo_sessions` (its id, principal, state as JSON, times in the
 *   database's clock). `create` counts the caps (`sessions.max`, `sessions.maxPerPrincipal`)
 *   under an advisory lock, so two instances cannot both take the last place.
 * - `touch` (every request of a session not in the cache below) reads the live row, and the touches of one instance
 *   share their reads: those of the requests that arrived in one turn of the event loop leave
 *   together at its end when no read is under way, and those that come meanwhile (of any session)
 *   wait for the next, which leaves as soon as it returns. Each touch is answered
 *   by a read sent after it came, so it sees every change and every end committed before it (a
 *   client's next request sees what its last answer did, on any instance), and a busy instance
 *   makes one statement per round trip to the database rather than one per request. A row read
 *   unchanged is not decoded again.
 * - `last_seen` (and the expiry it moves) is not written by the touch: the sessions an instance
 *   read are written together, one statement, every `touchIntervalMs` (default 1 s; half the idle
 *   time if that is shorter). In the database a session's expiry lags its last request by at most
 *   that interval, and an instance that stops uncleanly loses at most that much of its sessions'
 *   use. The flush never revives a row that expired meanwhile.
 * - **Cached copies.** While this instance holds a lease (`leaseMs`, see `internal/SessionReaders`:
 *   a row of `snodo_session_readers`, renewed only once the instance heard itself on its `LISTEN`
 *   connection), a session it read is answered from its copy, without a read; the copy is not used
 *   after the session's expiry as read, nor once the lease is lost (the `LISTEN` connection lost, a
 *   renewal failed or late): the copies are dropped and every touch reads until a new lease. A read
 *   under way when a change of its session arrives is not cached.
 * - `save` writes what a request changed and `remove` deletes the row, each in one statement with
 *   its `NOTIFY` (the event and the invalidation of the copies); before it returns (before the
 *   request answers), every other instance with a live lease has acknowledged it, renewed its
 *   lease from a ping sent after it, or let its lease lapse: a change waits at most `leaseMs` for
 *   an instance that stopped answering. Expired rows are deleted in the background.
 * - Events travel by `NOTIFY` on the schema's sessions channel; one too large for a payload (a
 *   client's long sampling answer forwarded to the instance that asked) is carried by reference
 *   through `snodo_hub_payloads`, as the hub does.
 *
 * Events are observations: one sent while an instance's `LISTEN` connection is down is lost for
 * it (a forwarded answer then times out on the asking handler, a bounded wait). The rows are the
 * truth: a session is never lost with an instance.
 *
 * @example
 * ```ts
 * import { PgClient } from "@effect/sql-pg"
 * import { Layer, Redacted } from "effect"
 * import * as NodeServe from "@snodo/http/NodeServe"
 * import * as PgSessionStore from "@snodo/postgres/PgSessionStore"
 *
 * const Sessions = PgSessionStore.layer({ schema: "snodo" }).pipe(
 *   Layer.provide(PgClient.layer({ url: Redacted.make("postgres://postgres@db:5432/app") }))
 * )
 * const Http = NodeServe.layer({ port: 3000, sessions: true }).pipe(Layer.provide(Sessions))
 * ```
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { SessionStore } from "@snodo/http/SessionStore"
import * as Store from "@snodo/http/SessionStore"
import { Duration, Effect, Exit, Layer, Schema, type Scope } from "effect"
import type { SqlError } from "effect/sql"
import { listen } from "./internal/Listener.ts"
import * as SessionReaders from "./internal/SessionReaders.ts"
import { checkSchema, type SchemaMismatch } from "./Migrations.ts"
import { names } from "./PgNames.ts"

/**
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The schema of the tables and the channel (the task store's, when both are used). Default `public`. */
  readonly schema?: string | undefined
  /**
   * How often the `last_seen` of the sessions this instance read is written (one statement for all
   * of them), in milliseconds; at most half the sessions' idle time. Default 1,000.
   */
  readonly touchIntervalMs?: number | undefined
  /** How often expired sessions are deleted. Default 60 s. */
  readonly cleanupIntervalMs?: number | undefined
  /** Largest NOTIFY payload sent inline, in bytes of UTF-8 (PostgreSQL's limit is 7,999). Default 7,900. */
  readonly inlineLimit?: number | undefined
  /**
   * How long this instance's lease to answer from its cached copy of the sessions lives after a
   * renewal, in milliseconds (renewed every third of it, each time only once the instance heard
   * itself on its `LISTEN` connection). A change on any instance waits, before its request answers,
   * at most this long for an instance that holds a lease and stopped answering. 0: no cache, every
   * request reads its session (the instance still waits for the others' leases when it writes).
   * Default 3,000.
   */
  readonly leaseMs?: number | undefined
  /**
   * How long a change waits for the acknowledgements of the instances holding a lease before it
   * reads their leases again (one that renewed from a ping sent after the change heard it; one
   * whose lease lapsed is not waited for), in milliseconds. The wait ends with the last
   * acknowledgement, and lasts at most the leases. Default 500.
   */
  readonly ackTimeoutMs?: number | undefined
}

/**
 * How many sessions an instance remembers (its cached copies; the decodings of the states it read):
 * the sessions it serves. Past it, it forgets them all and starts over (a read brings each back).
 */
const rememberedMax = 10_000

const Origin = { id: Schema.String, origin: Schema.String }

const EventSchema = Schema.Union([
  Schema.Struct({ _tag: Schema.Literals(["Ended", "StreamOpened"]), ...Origin }),
  Schema.Struct({ _tag: Schema.Literal("Changed"), ...Origin, state: Store.State }),
  Schema.Struct({
    _tag: Schema.Literal("Response"),
    ...Origin,
    requestId: Schema.String,
    result: Schema.optionalKey(Schema.Unknown),
    error: Schema.optionalKey(Schema.Unknown)
  })
])

/**
 * What travels on the channel: the event, or the id of the payload row that holds it; with a change,
 * its invalidation (`inv`: the session, the writing instance and its change number); and the
 * leases' messages: a ping an instance sends itself, an acknowledgement of a change.
 */
const Envelope = Schema.Struct({
  event: Schema.optionalKey(EventSchema),
  ref: Schema.optionalKey(Schema.Int),
  inv: Schema.optionalKey(Schema.Struct({ id: Schema.String, by: Schema.String, seq: Schema.Int })),
  ping: Schema.optionalKey(Schema.Struct({ by: Schema.String, nonce: Schema.String, at: Schema.Int })),
  ack: Schema.optionalKey(Schema.Struct({ to: Schema.String, seq: Schema.Int, from: Schema.String }))
})
const decodeEnvelope = Schema.decodeUnknownEffect(Schema.fromJsonString(Envelope))
const decodeState = Schema.decodeUnknownEffect(Schema.fromJsonString(Store.State))

const nowMs = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

/** A touch the cached copy cannot answer. */
const miss: unique symbol = Symbol("miss")

interface Counted {
  readonly total: string | number
  readonly mine: string | number
  readonly first: string | number | null
  readonly first_mine: string | number | null
  readonly now: string | number
}

/**
 * Starts the store: listens on the sessions channel (the first `LISTEN` must succeed) and deletes
 * expired sessions in the background.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options?: Options): Effect.Effect<SessionStore["Service"], SqlError.SqlError, PgClient.PgClient | Scope.Scope> =>
  Effect.gen(function*() {
    const pg = yield* PgClient.PgClient
    const context = yield* Effect.context<never>()
    const n = names(options?.schema)
    const table = pg(n.sessions)
    const payloads = pg(n.hubPayloads)
    const touchInterval = options?.touchIntervalMs ?? 1000
    const inlineLimit = Math.min(options?.inlineLimit ?? 7_900, 7_999)
    const now = pg.unsafe(nowMs)
    const receivers = new Set<(event: Store.Event) => void>()

    const deliver = (event: Store.Event) => {
      // A change announced without its invalidation (an instance of an earlier version, which
      // does not wait for the copies: seen here once it arrives) drops the copy too.
      if (event._tag === "Changed" || event._tag === "Ended") invalidate(event.id)
      for (const receive of receivers) receive(event)
    }

    // The cached copies: a session's row as last read, trusted while the lease is (see SessionReaders).
    interface Cached {
      readonly principal: string
      readonly state: Store.State
      /** When the row expires at the latest (`performance.now()`): the copy is not used after. */
      readonly until: number
    }
    let cache = new Map<string, Cached>()
    /** The sessions changed while the read under way was out: what it read of them is not cached. */
    let tainted: Set<string> | undefined
    const invalidate = (id: string) => {
      cache.delete(id)
      tainted?.add(id)
    }
    const leaseMs = Math.max(0, options?.leaseMs ?? SessionReaders.defaultLeaseMs)
    const readers = SessionReaders.make(pg, n, { leaseMs, ackTimeoutMs: options?.ackTimeoutMs ?? SessionReaders.defaultAckTimeoutMs }, () => {
      cache = new Map()
    })
    const runFork = Effect.runForkWith(context)
    const acknowledge = (to: string, seq: number) =>
      runFork(
        pg.notify(n.sessionsChannel, JSON.stringify({ ack: { to, seq, from: readers.me } })).pipe(
          Effect.catch((error) => Effect.logDebug("session store: acknowledging a change failed (its writer waits for this lease)", error))
        )
      )

    const receive = (payload: string): Effect.Effect<void> =>
      Effect.gen(function*() {
        // A message this instance cannot read may have been a change: its copies are not trusted
        // any more (the lease starts again, empty).
        const envelope = yield* decodeEnvelope(payload).pipe(Effect.tapError(() => Effect.sync(readers.lost)))
        // Handled before anything else, in the order PostgreSQL delivered them.
        if (envelope.inv !== undefined) {
          invalidate(envelope.inv.id)
          if (envelope.inv.by !== readers.me && leaseMs > 0) acknowledge(envelope.inv.by, envelope.inv.seq)
        }
        if (envelope.ping !== undefined) {
          if (envelope.ping.by === readers.me) readers.heard(envelope.ping.nonce, envelope.ping.at)
          return
        }
        if (envelope.ack !== undefined) {
          if (envelope.ack.to === readers.me) readers.acknowledged(envelope.ack.seq, envelope.ack.from)
          return
        }
        if (envelope.event !== undefined) return deliver(envelope.event)
        if (envelope.ref === undefined) return
        const rows = yield* pg<{ readonly payload: string }>`SELECT payload FROM ${payloads} WHERE id = ${envelope.ref}`
        const row = rows[0]
        if (row === undefined) return yield* Effect.logWarning(`session event ${envelope.ref} was already deleted; it is lost for this instance`)
        const carried = yield* decodeEnvelope(row.payload)
        if (carried.event !== undefined) deliver(carried.event)
      }).pipe(Effect.catchCause((cause) => Effect.logWarning("a session event could not be read", cause)))

    yield* listen(pg, n.sessionsChannel, receive, { lost: readers.lost })
    yield* readers.start

    yield* Effect.gen(function*() {
      for (;;) {
        yield* Effect.sleep(Duration.millis(options?.cleanupIntervalMs ?? 60_000))
        yield* pg`DELETE FROM ${table} WHERE expires_at <= ${now}`.pipe(
          Effect.andThen(pg`DELETE FROM ${payloads} WHERE created_at < ${now} - 60000`),
          Effect.andThen(pg`DELETE FROM ${pg(n.sessionReaders)} WHERE expires_at < ${now} - 60000`),
          Effect.catch((error) => Effect.logWarning("deleting expired sessions failed", error))
        )
      }
    }).pipe(Effect.forkScoped)

    const publish = (event: Store.Event): Effect.Effect<void> => {
      const inline = JSON.stringify({ event })
      const sent = Buffer.byteLength(inline, "utf8") <= inlineLimit
        ? pg.notify(n.sessionsChannel, inline)
        : Effect.gen(function*() {
          const [row] = yield* pg<{ readonly id: bigint | number }>`INSERT INTO ${payloads} (payload, created_at)
VALUES (${inline}, ${now}) RETURNING id`
          yield* pg.notify(n.sessionsChannel, JSON.stringify({ ref: Number(row?.id) }))
        })
      return sent.pipe(Effect.catch((error) => Effect.logWarning(`publishing to ${n.sessionsChannel} failed: other instances miss this session event`, error)))
    }

    /** `expires_at` from the row's own columns and the limits. */
    const expiryText = (limits: Store.Limits, initialized: string) =>
      `CASE WHEN ${initialized} THEN ${nowMs} + ${limits.idleMillis} ELSE LEAST(${nowMs} + ${limits.idleMillis}, created_at + ${limits.initializeMillis}) END`
    const expiry = (limits: Store.Limits, initialized: string) => pg.unsafe(expiryText(limits, initialized))

    const create = (id: string, principal: string, limits: Store.Limits, limitKey = principal): Effect.Effect<Store.Refused | undefined, SqlError.SqlError> =>
      pg.withTransaction(Effect.gen(function*() {
        yield* pg`SELECT pg_advisory_xact_lock(hashtext(${n.sessionsLock}))`
        // maxPerPrincipal counts by limit key (a row written before the key counts by its principal)
        const [counted] = yield* pg<Counted>`SELECT count(*) AS total,
  count(*) FILTER (WHERE COALESCE(limit_key, principal) = ${limitKey}) AS mine,
  min(expires_at) AS first,
  min(expires_at) FILTER (WHERE COALESCE(limit_key, principal) = ${limitKey}) AS first_mine,
  ${now} AS now
FROM ${table} WHERE expires_at > ${now}`
        const at = Number(counted?.now ?? Date.now())
        const wait = (first: string | number | null) => first === null ? limits.initializeMillis : Math.max(0, Number(first) - at)
        if (Number(counted?.mine ?? 0) >= limits.maxPerPrincipal) {
          return { _tag: "Refused", bound: "sessionsPerPrincipal", limit: limits.maxPerPrincipal, retryAfterMillis: wait(counted?.first_mine ?? null) } as const
        }
        if (Number(counted?.total ?? 0) >= limits.max) {
          return { _tag: "Refused", bound: "sessions", limit: limits.max, retryAfterMillis: wait(counted?.first ?? null) } as const
        }
        yield* pg`INSERT INTO ${table} (id, principal, limit_key, state, created_at, last_seen, expires_at)
VALUES (${id}, ${principal}, ${limitKey}, ${JSON.stringify(Store.empty)}, ${at}, ${at}, ${at + Math.min(limits.idleMillis, limits.initializeMillis)})`
        return undefined
      }))

    // `touch`: every request of a session reads its row, but the reads of one instance share their
    // round trips. The touches of one turn of the event loop leave together at its end when no read
    // is under way; those that come while one is (of any session) wait for the next, which leaves
    // once it returns: each is answered by a read sent after it came, so it sees every change
    // committed before (strict), and a busy instance makes one statement per round trip, not one
    // per request.
    // One session (the usual batch: one client's requests) is read by equality: a plain index
    // lookup, which costs the database less than `= ANY($1::text[])` and answers sooner (a
    // sequential read on an idle machine: ~75 µs rather than ~170); several by the array.
    const readWhere = (ids: string) =>
      `SELECT id, principal, state::text AS state, expires_at - ${nowMs} AS left FROM ${n.sessions} WHERE ${ids} AND expires_at > ${nowMs}`
    const readOne = readWhere("id = $1")
    const readMany = readWhere("id = ANY($1::text[])")
    const read = (ids: ReadonlyArray<string>) =>
      pg.unsafe<{ readonly id: string; readonly principal: string; readonly state: string; readonly left: string | number }>(
        ids.length === 1 ? readOne : readMany,
        [ids.length === 1 ? ids[0]! : ids]
      )
    /** The last state text read of each session and its decoding: a session read unchanged is not decoded again. */
    let decoded = new Map<string, { readonly text: string; readonly state: Store.State }>()
    const stateOf = (id: string, text: string): Effect.Effect<Store.State, Schema.SchemaError> => {
      const known = decoded.get(id)
      if (known !== undefined && known.text === text) return Effect.succeed(known.state)
      return Effect.map(decodeState(text), (state) => {
        // Bounded: the sessions this instance reads; beyond the bound it starts over.
        if (decoded.size >= rememberedMax) decoded = new Map()
        decoded.set(id, { text, state })
        return state
      })
    }
    interface Touching {
      readonly id: string
      readonly principal: string
      readonly limits: Store.Limits
      readonly resume: (exit: Exit.Exit<Store.State | undefined, SqlError.SqlError | Schema.SchemaError>) => void
    }
    let queued: Array<Touching> = []
    let reading = false
    let scheduled = false
    /** The touches of requests that arrived in one turn of the event loop leave together, at its end. */
    const schedule = (): void => {
      if (reading || scheduled) return
      scheduled = true
      setImmediate(readQueued)
    }
    const readQueued = (): void => {
      scheduled = false
      if (reading || queued.length === 0) return
      const batch = queued
      queued = []
      reading = true
      // Cached only if the lease held from before the read was sent until it returned (one epoch),
      // and no change of the session arrived meanwhile.
      const epoch = readers.epoch()
      const trusted = readers.trusted()
      const sent = performance.now()
      const changed = new Set<string>()
      tainted = changed
      const fiber = runFork(Effect.gen(function*() {
        const rows = yield* read(Array.from(new Set(batch.map((touching) => touching.id))))
        const found = new Map<string, { readonly principal: string; readonly state: Store.State; readonly left: number }>()
        for (const row of rows) found.set(row.id, { principal: row.principal, state: yield* stateOf(row.id, row.state), left: Number(row.left) })
        return found
      }))
      fiber.addObserver((exit) => {
        reading = false
        tainted = undefined
        if (Exit.isSuccess(exit) && trusted && readers.trusted() && readers.epoch() === epoch) {
          for (const [id, row] of exit.value) {
            if (changed.has(id)) continue
            // Bounded: the sessions this instance serves; beyond the bound it starts over.
            if (cache.size >= rememberedMax) cache = new Map()
            cache.set(id, { principal: row.principal, state: row.state, until: sent + row.left })
          }
        }
        // The touches that came meanwhile leave next (scheduled first: the requests resumed below run now).
        schedule()
        for (const touching of batch) {
          if (Exit.isFailure(exit)) {
            touching.resume(Exit.failCause(exit.cause))
            continue
          }
          const row = exit.value.get(touching.id)
          if (row === undefined) decoded.delete(touching.id)
          // Marked used: `last_seen` is written by the next flush of the touched sessions.
          else if (row.principal === touching.principal) used.set(touching.id, touching.limits)
          touching.resume(Exit.succeed(row !== undefined && row.principal === touching.principal ? row.state : undefined))
        }
      })
    }
    /** The touch answered from the cached copy, if the copy may be trusted now; `miss` otherwise. */
    const cached = (id: string, principal: string, limits: Store.Limits): Store.State | undefined | typeof miss => {
      const copy = cache.get(id)
      if (copy === undefined || !readers.trusted() || performance.now() >= copy.until) return miss
      if (copy.principal !== principal) return undefined
      used.set(id, limits)
      return copy.state
    }
    const touch = (id: string, principal: string, limits: Store.Limits): Effect.Effect<Store.State | undefined, SqlError.SqlError | Schema.SchemaError> =>
      Effect.callback<Store.State | undefined, SqlError.SqlError | Schema.SchemaError>((resume) => {
        queued.push({ id, principal, limits, resume })
        schedule()
      })

    // `last_seen` of the sessions read since the last flush, written together at most once per
    // `touchIntervalMs` (sooner for an idle time shorter than twice the interval): the row's
    // expiry lags a request by at most that much.
    const used = new Map<string, Store.Limits>()
    let flushEvery = touchInterval
    const flush = Effect.suspend(() => {
      if (used.size === 0) return Effect.void
      const byLimits = new Map<Store.Limits, Array<string>>()
      for (const [id, limits] of used) {
        const ids = byLimits.get(limits)
        if (ids === undefined) byLimits.set(limits, [id])
        else ids.push(id)
        flushEvery = Math.min(flushEvery, Math.max(10, Math.floor(limits.idleMillis / 2)))
      }
      used.clear()
      return Effect.forEach(byLimits, ([limits, ids]) =>
        pg.unsafe(`UPDATE ${n.sessions} SET last_seen = ${nowMs}, expires_at = ${expiryText(limits, "initialized")}
WHERE id = ANY($1::text[]) AND expires_at > ${nowMs}`, [ids]), { discard: true })
    })
    yield* Effect.gen(function*() {
      for (;;) {
        yield* Effect.sleep(Duration.millis(flushEvery))
        yield* flush.pipe(Effect.catch((error) => Effect.logWarning("writing when sessions were last used failed", error)))
      }
    }).pipe(Effect.forkScoped)

    // A change: written with its event and its invalidation in one statement (one transaction),
    // then, before the request answers, every instance holding a lease has dropped its copy
    // (acknowledged) or lost the lease. A write that failed may still have committed: it waits too.
    const change = (
      id: string,
      event: Store.Event,
      write: (notice: string) => Effect.Effect<ReadonlyArray<unknown>, SqlError.SqlError>
    ): Effect.Effect<void, SqlError.SqlError> =>
      Effect.gen(function*() {
        const inline = JSON.stringify({ event })
        // Measured with the largest change number its invalidation can carry.
        const largest = JSON.stringify({ event, inv: { id, by: readers.me, seq: Number.MAX_SAFE_INTEGER } })
        const carried = Buffer.byteLength(largest, "utf8") <= inlineLimit ? undefined : yield* pg<{ readonly id: bigint | number }>`INSERT INTO ${payloads} (payload, created_at)
VALUES (${inline}, ${now}) RETURNING id`
        const seq = readers.begin()
        const inv = { id, by: readers.me, seq }
        const notice = carried === undefined ? JSON.stringify({ event, inv }) : JSON.stringify({ ref: Number(carried[0]?.id), inv })
        return yield* Effect.gen(function*() {
          const written = yield* Effect.exit(write(notice))
          const committedAt = performance.now()
          invalidate(id)
          if (Exit.isSuccess(written) && written.value.length === 0) return
          yield* readers.settle(seq, committedAt)
          yield* written
        }).pipe(Effect.ensuring(Effect.sync(() => readers.end(seq))))
      })

    const save = (id: string, state: Store.State, origin: string, limits: Store.Limits) =>
      change(id, { _tag: "Changed", id, origin, state }, (notice) =>
        pg`WITH changed AS (UPDATE ${table} SET state = ${JSON.stringify(state)}, initialized = ${state.initialized}, last_seen = ${now},
  expires_at = ${expiry(limits, state.initialized ? "true" : "false")} WHERE id = ${id})
SELECT pg_notify(${n.sessionsChannel}, ${notice})`)

    const remove = (id: string, origin: string) =>
      Effect.andThen(
        Effect.sync(() => {
          used.delete(id)
          decoded.delete(id)
        }),
        change(id, { _tag: "Ended", id, origin }, (notice) =>
          pg`WITH ended AS (DELETE FROM ${table} WHERE id = ${id} RETURNING id)
SELECT pg_notify(${n.sessionsChannel}, ${notice}) FROM ended`)
      )

    // A write that fails is logged (the answer still leaves; the next change writes again); a read
    // that fails is `SessionStoreUnavailable` (the transport answers 503, retryable), never a defect.
    const logged = <A>(what: string, fallback: A) => <E>(effect: Effect.Effect<A, E>): Effect.Effect<A> =>
      effect.pipe(Effect.catchCause((cause) => Effect.as(Effect.logWarning(`session store: ${what} failed`, cause), fallback)))
    const failed = (what: string) => <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, Store.SessionStoreUnavailable> =>
      effect.pipe(Effect.catchCause((cause) =>
        Effect.andThen(
          Effect.logWarning(`session store: ${what} failed`, cause),
          Effect.fail(new Store.SessionStoreUnavailable({ message: `The session store could not ${what}` }))
        )
      ))

    return SessionStore.of({
      create: (id, principal, limits, limitKey) => create(id, principal, limits, limitKey).pipe(failed("create a session")),
      // From the copy: an `Exit`, so the transport answers in the same turn.
      touch: (id, principal, limits) => {
        const copy = cached(id, principal, limits)
        return copy === miss ? touch(id, principal, limits).pipe(failed("read a session")) : Exit.succeed(copy)
      },
      save: (id, state, origin, limits) => save(id, state, origin, limits).pipe(logged<void>("save", undefined)),
      remove: (id, origin) => remove(id, origin).pipe(logged<void>("remove", undefined)),
      publish,
      events: (receiver) => {
        receivers.add(receiver)
        return () => void receivers.delete(receiver)
      }
    })
  })

/**
 * The store as a Layer, on the `PgClient` in context: fails closed (`SchemaMismatch`) unless the
 * schema is migrated (`TasksPostgres.migrate`: the sessions table is one of the migrations).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: Options): Layer.Layer<SessionStore, SqlError.SqlError | SchemaMismatch, PgClient.PgClient> =>
  Layer.effect(SessionStore, Effect.andThen(checkSchema(options), make(options)))
