/**
 * A `SessionStore` (`@snodo/http/SessionStore`) on PostgreSQL: the initialize-era HTTP sessions
 * (2025-11-25) of every instance in one table, their events between instances on one `LISTEN`
 * channel. Many instances behind any load balancer, without sticky routing, serve every request
 * of every session.
 *
 * - A session is one row of `snodo_sessions` (its id, principal, state as JSON, times in the
 *   database's clock). `create` counts the caps (`sessions.max`, `sessions.maxPerPrincipal`)
 *   under an advisory lock, so two instances cannot both take the last place.
 * - `touch` (every request of a session) is one statement: it reads the live row and marks it
 *   used at most once a second (`touchIntervalMs`), so a busy session is not a write per request.
 * - `save` writes what a request changed and announces it; `remove` deletes the row and announces
 *   the end; expired rows are deleted in the background.
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
import { Duration, Effect, Layer, Schema, type Scope } from "effect"
import type { SqlError } from "effect/sql"
import { listen } from "./internal/Listener.ts"
import { checkSchema, type SchemaMismatch } from "./Migrations.ts"
import { names } from "./PgNames.ts"

/**
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The schema of the tables and the channel (the task store's, when both are used). Default `public`. */
  readonly schema?: string | undefined
  /** How often a session's `last_seen` is written at most, in milliseconds. Default 1,000. */
  readonly touchIntervalMs?: number | undefined
  /** How often expired sessions are deleted. Default 60 s. */
  readonly cleanupIntervalMs?: number | undefined
  /** Largest NOTIFY payload sent inline, in bytes of UTF-8 (PostgreSQL's limit is 7,999). Default 7,900. */
  readonly inlineLimit?: number | undefined
}

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

/** What travels on the channel: the event, or the id of the payload row that holds it. */
const Envelope = Schema.Struct({ event: Schema.optionalKey(EventSchema), ref: Schema.optionalKey(Schema.Int) })
const decodeEnvelope = Schema.decodeUnknownEffect(Schema.fromJsonString(Envelope))
const decodeState = Schema.decodeUnknownEffect(Schema.fromJsonString(Store.State))

const nowMs = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

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
    const n = names(options?.schema)
    const table = pg(n.sessions)
    const payloads = pg(n.hubPayloads)
    const touchInterval = options?.touchIntervalMs ?? 1000
    const inlineLimit = Math.min(options?.inlineLimit ?? 7_900, 7_999)
    const now = pg.unsafe(nowMs)
    const receivers = new Set<(event: Store.Event) => void>()

    const deliver = (event: Store.Event) => {
      for (const receive of receivers) receive(event)
    }

    const receive = (payload: string): Effect.Effect<void> =>
      Effect.gen(function*() {
        const envelope = yield* decodeEnvelope(payload)
        if (envelope.event !== undefined) return deliver(envelope.event)
        if (envelope.ref === undefined) return
        const rows = yield* pg<{ readonly payload: string }>`SELECT payload FROM ${payloads} WHERE id = ${envelope.ref}`
        const row = rows[0]
        if (row === undefined) return yield* Effect.logWarning(`session event ${envelope.ref} was already deleted; it is lost for this instance`)
        const carried = yield* decodeEnvelope(row.payload)
        if (carried.event !== undefined) deliver(carried.event)
      }).pipe(Effect.catchCause((cause) => Effect.logWarning("a session event could not be read", cause)))

    yield* listen(pg, n.sessionsChannel, receive)

    yield* Effect.gen(function*() {
      for (;;) {
        yield* Effect.sleep(Duration.millis(options?.cleanupIntervalMs ?? 60_000))
        yield* pg`DELETE FROM ${table} WHERE expires_at <= ${now}`.pipe(
          Effect.andThen(pg`DELETE FROM ${payloads} WHERE created_at < ${now} - 60000`),
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
    const expiry = (limits: Store.Limits, initialized: string) =>
      pg.unsafe(
        `CASE WHEN ${initialized} THEN ${nowMs} + ${limits.idleMillis} ELSE LEAST(${nowMs} + ${limits.idleMillis}, created_at + ${limits.initializeMillis}) END`
      )

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

    // One round trip: read the live row, and write `last_seen` only when it is older than the interval.
    const touch = (id: string, principal: string, limits: Store.Limits) =>
      Effect.gen(function*() {
        const rows = yield* pg<{ readonly state: string }>`WITH found AS (
  SELECT id, state::text AS state, last_seen FROM ${table} WHERE id = ${id} AND principal = ${principal} AND expires_at > ${now}
), touched AS (
  UPDATE ${table} SET last_seen = ${now}, expires_at = ${expiry(limits, "initialized")}
  FROM found WHERE ${table}.id = found.id AND found.last_seen < ${now} - ${touchInterval}
)
SELECT state FROM found`
        const row = rows[0]
        return row === undefined ? undefined : yield* decodeState(row.state)
      })

    const save = (id: string, state: Store.State, origin: string, limits: Store.Limits) =>
      pg`UPDATE ${table} SET state = ${JSON.stringify(state)}, initialized = ${state.initialized}, last_seen = ${now},
  expires_at = ${expiry(limits, state.initialized ? "true" : "false")} WHERE id = ${id}`.pipe(
        Effect.andThen(publish({ _tag: "Changed", id, origin, state }))
      )

    const remove = (id: string, origin: string) =>
      Effect.flatMap(
        pg<{ readonly id: string }>`DELETE FROM ${table} WHERE id = ${id} RETURNING id`,
        (rows) => rows.length === 0 ? Effect.void : publish({ _tag: "Ended", id, origin })
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
      touch: (id, principal, limits) => touch(id, principal, limits).pipe(failed("read a session")),
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
