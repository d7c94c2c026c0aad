/**
 * Where initialize-era sessions (2025-11-25) live when several instances serve them: the record
 * of each session, and the messages the instances send each other about it.
 *
 * Without a `SessionStore` in context the HTTP transport keeps its sessions in its own process
 * (see Sessions): a client must come back to the instance that issued its `Mcp-Session-Id`. With
 * one, every instance can serve every request of every session:
 *
 * - `initialize` {@link SessionStore.create}s the record (the total and per-principal caps are
 *   counted in the store), and every later request {@link SessionStore.touch}es it (which finds it,
 *   marks it used and answers its {@link State}); an unknown or expired one is 404 on any instance.
 * - What a request changed (`initialize`'s negotiation, `notifications/initialized`,
 *   `logging/setLevel`, `resources/subscribe`) is {@link SessionStore.save}d before its answer
 *   leaves, and announced to the other instances ({@link Event} `Changed`), so the one holding the
 *   session's GET stream filters the hub's changes by the current subscriptions.
 * - A client's answer to a server-to-client request (elicitation, sampling, roots) reaching an
 *   instance where nothing waits for it is forwarded (`Response`) to the one whose handler asked.
 * - `DELETE` {@link SessionStore.remove}s the record and announces `Ended`: every instance ends its
 *   copy (its stream, its waiting requests).
 * - A GET stream opened on one instance announces `StreamOpened`: an older stream of the same
 *   session elsewhere ends (one stream per session, the newest).
 *
 * `makeMemory` shares sessions between the transports of one process that are given the same
 * store (and is what tests of the shared path run on); `@snodo/postgres/PgSessionStore`
 * between processes.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import * as NodeServe from "@snodo/http/NodeServe"
 * import * as SessionStore from "@snodo/http/SessionStore"
 *
 * // two endpoints in one process, one set of sessions
 * const Shared = Layer.succeed(SessionStore.SessionStore, SessionStore.makeMemory())
 * const First = NodeServe.layer({ port: 3001, sessions: true }).pipe(Layer.provide(Shared))
 * const Second = NodeServe.layer({ port: 3002, sessions: true }).pipe(Layer.provide(Shared))
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Schema } from "effect"
import { LoggingLevel } from "@snodo/protocol/wire/Meta"
import * as Builtins from "./Builtins.ts"

/**
 * What a session remembers, as stored: what `initialize` negotiated (`version` is absent until it
 * succeeded), whether `notifications/initialized` came, the log level and the subscribed resource
 * URIs. The schema decodes it from a store's JSON.
 *
 * @category models
 * @since 0.1.0
 */
export const State = Schema.Struct({
  version: Schema.optionalKey(Schema.String),
  clientCapabilities: Schema.Record(Schema.String, Schema.Unknown),
  clientInfo: Schema.optionalKey(Schema.Struct({ name: Schema.String, version: Schema.String })),
  initialized: Schema.Boolean,
  logLevel: Schema.optionalKey(LoggingLevel),
  subscriptions: Schema.Array(Schema.String)
})

/**
 * @category models
 * @since 0.1.0
 */
export type State = typeof State.Type

/**
 * The bounds a store counts and the times it keeps: the transport's session settings.
 *
 * @category models
 * @since 0.1.0
 */
export interface Limits {
  readonly max: number
  readonly maxPerPrincipal: number
  readonly idleMillis: number
  readonly initializeMillis: number
}

/**
 * A session refused by a bound, and when a place frees up at the latest.
 *
 * @category models
 * @since 0.1.0
 */
export interface Refused {
  readonly _tag: "Refused"
  readonly bound: "sessions" | "sessionsPerPrincipal" | "streams" | "streamsPerPrincipal"
  readonly limit: number
  readonly retryAfterMillis: number
}

/**
 * What instances tell each other about a session. `origin` is the sending instance.
 *
 * @category models
 * @since 0.1.0
 */
export type Event =
  | { readonly _tag: "Ended"; readonly id: string; readonly origin: string }
  | { readonly _tag: "Changed"; readonly id: string; readonly origin: string; readonly state: State }
  | {
    readonly _tag: "Response"
    readonly id: string
    readonly origin: string
    /** The client's answer to the server's request `requestId`: its `result` or its `error`. */
    readonly requestId: string
    readonly result?: unknown
    readonly error?: unknown
  }
  | { readonly _tag: "StreamOpened"; readonly id: string; readonly origin: string }

/**
 * The store could not be read (the database is unreachable): the transport answers 503, retryable,
 * rather than 404 (which would tell the client its session is gone).
 *
 * @category errors
 * @since 0.1.0
 */
export class SessionStoreUnavailable extends Schema.TaggedError<SessionStoreUnavailable>()("SessionStoreUnavailable", {
  message: Schema.String
}) {}

/**
 * @category services
 * @since 0.1.0
 */
export class SessionStore extends Context.Service<SessionStore, {
  /**
   * Records a new session of `principal`, or the bound that refused it. `maxPerPrincipal` counts
   * the sessions of the same `limitKey` (default the principal; an anonymous caller's is its source
   * address, `Sessions.limitKey`).
   */
  readonly create: (id: string, principal: string, limits: Limits, limitKey?: string) => Effect.Effect<Refused | undefined, SessionStoreUnavailable>
  /**
   * The live session's state, if `principal` created it, marking it used; `undefined` otherwise.
   * It must see every change and end committed before it was called (the transport answers the
   * request from it, on whichever instance). A store may write the use later, in batches, bounding
   * how much the stored expiry lags (PgSessionStore: `touchIntervalMs`). A store that knows the
   * answer when called (a copy it may trust, a table in this process) returns it as an `Exit`
   * (`Effect.succeed`): the transport then serves the request in the same turn, without a fiber.
   */
  readonly touch: (id: string, principal: string, limits: Limits) => Effect.Effect<State | undefined, SessionStoreUnavailable>
  /**
   * Stores what a request changed (the expiry follows: an initialized session lives for the idle
   * time), and announces it (`Changed`) in the name of the instance `origin`.
   */
  readonly save: (id: string, state: State, origin: string, limits: Limits) => Effect.Effect<void>
  /** Forgets the session, and announces it (`Ended`) in the name of the instance `origin`. */
  readonly remove: (id: string, origin: string) => Effect.Effect<void>
  /** Announces an event to every instance (this one included). */
  readonly publish: (event: Event) => Effect.Effect<void>
  /** Receives every event until the returned function is called. */
  readonly events: (receive: (event: Event) => void) => () => void
}>()("@snodo/http/SessionStore") {}

/**
 * A fresh instance name (12 random bytes, base64url): a transport's `origin` in events.
 *
 * @category constructors
 * @since 0.1.0
 */
export const newOrigin = (): string => Builtins.crypto().randomBytes(12).toString("base64url")

interface Row {
  readonly principal: string
  /** What `maxPerPrincipal` counts this session by. */
  readonly limitKey: string
  readonly createdAt: number
  lastSeen: number
  state: State
}

/**
 * When a session ends unless a request comes: idle, or never initialized in time.
 *
 * @category combinators
 * @since 0.1.0
 */
export const expiresAt = (createdAt: number, lastSeen: number, initialized: boolean, limits: Limits): number => {
  const idle = lastSeen + limits.idleMillis
  return initialized ? idle : Math.min(idle, createdAt + limits.initializeMillis)
}

/**
 * The state of a session nobody initialized yet.
 *
 * @category constants
 * @since 0.1.0
 */
export const empty: State = { clientCapabilities: {}, initialized: false, subscriptions: [] }

/**
 * A store in this process: the sessions of every transport built on it are shared, and events
 * reach every transport at once (each transport is an instance, with an origin of its own).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeMemory = (): SessionStore["Service"] => {
  const rows = new Map<string, Row>()
  const receivers = new Set<(event: Event) => void>()
  const live = (row: Row, now: number, limits: Limits) => now < expiresAt(row.createdAt, row.lastSeen, row.state.initialized, limits)
  const publish = (event: Event) =>
    Effect.sync(() => {
      for (const receive of receivers) receive(event)
    })
  return {
    create: (id, principal, limits, limitKey = principal) =>
      Effect.sync(() => {
        const now = Date.now()
        let total = 0
        let mine = 0
        let first = Infinity
        for (const [key, row] of rows) {
          if (!live(row, now, limits)) {
            rows.delete(key)
            continue
          }
          total++
          if (row.limitKey === limitKey) mine++
          first = Math.min(first, expiresAt(row.createdAt, row.lastSeen, row.state.initialized, limits))
        }
        const retryAfterMillis = Number.isFinite(first) ? Math.max(0, first - now) : limits.initializeMillis
        if (mine >= limits.maxPerPrincipal) return { _tag: "Refused", bound: "sessionsPerPrincipal", limit: limits.maxPerPrincipal, retryAfterMillis } as const
        if (total >= limits.max) return { _tag: "Refused", bound: "sessions", limit: limits.max, retryAfterMillis } as const
        rows.set(id, { principal, limitKey, createdAt: now, lastSeen: now, state: empty })
        return undefined
      }),
    // Answered when called, as an `Exit`: the transport goes on without a fiber.
    touch: (id, principal, limits) => {
      const row = rows.get(id)
      if (row === undefined || row.principal !== principal) return Effect.undefined
      const now = Date.now()
      if (!live(row, now, limits)) {
        rows.delete(id)
        return Effect.undefined
      }
      row.lastSeen = now
      return Effect.succeed(row.state)
    },
    save: (id, state, origin) =>
      Effect.suspend(() => {
        const row = rows.get(id)
        if (row === undefined) return Effect.void
        row.state = state
        row.lastSeen = Date.now()
        return publish({ _tag: "Changed", id, origin, state })
      }),
    remove: (id, origin) => Effect.suspend(() => (rows.delete(id) ? publish({ _tag: "Ended", id, origin }) : Effect.void)),
    publish,
    events: (receive) => {
      receivers.add(receive)
      return () => void receivers.delete(receive)
    }
  }
}

/**
 * The in-process store as a Layer: one store per Layer graph that builds it (two runtimes built
 * from it get two stores; give both the same {@link makeMemory} to share one).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMemory = (): Layer.Layer<SessionStore> => Layer.sync(SessionStore, makeMemory)
