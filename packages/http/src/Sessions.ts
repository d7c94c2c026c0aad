/**
 * The initialize-era sessions of one HTTP application (when its options enable `sessions`).
 *
 * `initialize` creates a session with a fresh `Mcp-Session-Id` (24 random bytes, base64url: only
 * visible ASCII); every later request of that client carries the id, and finds the same core
 * session (`runtime/Session`: the negotiated version and capabilities, the log level, resource
 * subscriptions, waiting server-to-client requests). A session belongs to the principal that
 * created it: another principal presenting its id is told it does not exist (404), as is anyone
 * after `DELETE`, after `idleTimeout` without a request, or once the server shut down.
 *
 * At most one GET stream per session carries the server's messages not tied to a request (list
 * changes, resource updates); a second GET is 409. A message for a session without an open stream
 * is dropped, as is one beyond 64 waiting to be written (a client that stopped reading). Streams
 * are few and mortal: at most `maxStreams` are open at once and `maxStreamsPerPrincipal` of one
 * principal (they hold a request's place each, and must leave room for the POSTs of everyone
 * else), and each ends after `streamTimeout` (the client opens it again, a request that keeps the
 * session alive). An open stream does not keep its session alive: only requests do.
 *
 * At most `max` sessions exist at once, `maxPerPrincipal` of one principal, and a session that
 * has not sent `notifications/initialized` within `initializeTimeout` is ended: one client cannot
 * hold the table for the idle timeout. Creating one beyond a bound first forgets the expired ones,
 * then is refused with the time until the first of them expires (the 503's `Retry-After`).
 * Sessions live in this process: behind a load balancer, route a session's requests to the
 * instance that issued it.
 *
 * @example
 * ```ts
 * import * as Sessions from "@snodo/http/Sessions"
 *
 * const sessions = Sessions.make(Options.defaultSessions, Effect.runFork)
 * const created = sessions.create("anonymous") // an HttpSession, or the Refused to answer 503 with
 * ```
 *
 * @since 0.1.0
 */
import type { Effect } from "effect"
import * as OutgoingRequests from "@snodo/core/transport/OutgoingRequests"
import * as Outbox from "@snodo/core/transport/Outbox"
import * as Session from "@snodo/core/dialect/Session"
import { randomBytes } from "node:crypto"
import type { Delivery } from "./Exchange.ts"
import type { SessionSettings } from "./Options.ts"


/**
 * One session as the HTTP transport holds it.
 *
 * @category models
 * @since 0.1.0
 */
export interface HttpSession {
  /** The `Mcp-Session-Id`. */
  readonly id: string
  /** Who created it; nobody else finds it. */
  readonly principal: string
  readonly session: Session.Session
}

/**
 * A session or a stream refused by a bound: which (`sessions`, `sessionsPerPrincipal`, `streams`,
 * `streamsPerPrincipal`), its value, and when a place frees up at the latest without anyone's
 * help (the first expiry or stream deadline among those holding the places).
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
 * The sessions of one application.
 *
 * @category models
 * @since 0.1.0
 */
export interface Sessions {
  readonly settings: SessionSettings
  /** A new session of `principal`, or the bound that refused it. */
  readonly create: (principal: string) => HttpSession | Refused
  /** The live session with this id, if `principal` created it (and marks it used). */
  readonly find: (id: string, principal: string) => HttpSession | undefined
  /** Ends a session: its stream ends, its hub subscription and waiting requests with it. */
  readonly remove: (id: string) => void
  /**
   * Opens the session's GET stream on `delivery`; returns the release to call once the response is
   * over, `"conflict"` when it already has one, or the bound that refused it.
   */
  readonly attach: (session: HttpSession, delivery: Delivery) => (() => void) | "conflict" | Refused
  /** Sessions alive. */
  readonly size: () => number
  /** GET streams open. */
  readonly streams: () => number
  /** Ends every session and refuses new ones (shutdown). */
  readonly closeAll: () => void
}

interface Stream {
  readonly delivery: Delivery
  readonly endsAt: number
  readonly timer: ReturnType<typeof setTimeout>
  /** The session's notifications to this stream (bounded; paced by `paceMillis`). */
  readonly outbox: Outbox.Outbox
}

interface Entry {
  readonly http: HttpSession
  readonly createdAt: number
  lastSeen: number
  stream: Stream | undefined
}

const newId = (): string => randomBytes(24).toString("base64url")

const increment = (counts: Map<string, number>, key: string, by: number): void => {
  const next = (counts.get(key) ?? 0) + by
  if (next <= 0) counts.delete(key)
  else counts.set(key, next)
}

/**
 * A store. `run` runs the effect that ends a core session (unsubscribing it from the hub) with the
 * application's services. With `paceMillis` (the transport's `subscriptionInterval`), a GET stream
 * writes at most once per interval: the notifications of the interval leave together in one write,
 * a notification already waiting is not queued twice (a second `tools/list_changed` says nothing
 * new), and one publisher cannot make a write per stream per change.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (settings: SessionSettings, run: (effect: Effect.Effect<void>) => unknown, paceMillis = 0): Sessions => {
  const entries = new Map<string, Entry>()
  const perPrincipal = new Map<string, number>()
  const streamsPerPrincipal = new Map<string, number>()
  let streams = 0
  let closed = false

  const closeStream = (entry: Entry): void => {
    const stream = entry.stream
    if (stream === undefined) return
    entry.stream = undefined
    clearTimeout(stream.timer)
    stream.outbox.close()
    streams--
    increment(streamsPerPrincipal, entry.http.principal, -1)
    stream.delivery.end()
  }

  const end = (entry: Entry) => {
    if (entries.get(entry.http.id) !== entry) return
    entries.delete(entry.http.id)
    increment(perPrincipal, entry.http.principal, -1)
    closeStream(entry)
    run(entry.http.session.end)
  }

  /** When the session ends unless a request comes: idle, or never initialized in time. */
  const expiresAt = (entry: Entry): number => {
    const idle = entry.lastSeen + settings.idleMillis
    return entry.http.session.initialized ? idle : Math.min(idle, entry.createdAt + settings.initializeMillis)
  }

  const expired = (entry: Entry, now: number) => now >= expiresAt(entry)

  const sweep = (now: number) => {
    for (const entry of entries.values()) if (expired(entry, now)) end(entry)
  }

  /** The bound, with the time until the first of the places it counts frees up by itself. */
  const refused = (bound: Refused["bound"], limit: number, now: number, counts: (entry: Entry) => boolean, at: (entry: Entry) => number): Refused => {
    let first = Infinity
    for (const entry of entries.values()) if (counts(entry)) first = Math.min(first, at(entry))
    return { _tag: "Refused", bound, limit, retryAfterMillis: Number.isFinite(first) ? Math.max(0, first - now) : settings.initializeMillis }
  }

  const create = (principal: string): HttpSession | Refused => {
    if (closed) return { _tag: "Refused", bound: "sessions", limit: settings.max, retryAfterMillis: 1000 }
    const now = Date.now()
    if (entries.size >= settings.max || (perPrincipal.get(principal) ?? 0) >= settings.maxPerPrincipal) sweep(now)
    if ((perPrincipal.get(principal) ?? 0) >= settings.maxPerPrincipal) {
      return refused("sessionsPerPrincipal", settings.maxPerPrincipal, now, (entry) => entry.http.principal === principal, expiresAt)
    }
    if (entries.size >= settings.max) return refused("sessions", settings.max, now, () => true, expiresAt)
    const id = newId()
    const entry: Entry = {
      http: {
        id,
        principal,
        session: Session.makeUnsafe({
          id,
          outbound: (frame) => void entry.stream?.outbox.offer(frame),
          requests: OutgoingRequests.make()
        })
      },
      createdAt: now,
      lastSeen: now,
      stream: undefined
    }
    entries.set(id, entry)
    increment(perPrincipal, principal, 1)
    return entry.http
  }

  const find = (id: string, principal: string): HttpSession | undefined => {
    const entry = entries.get(id)
    if (entry === undefined || entry.http.principal !== principal) return undefined
    const now = Date.now()
    if (expired(entry, now)) {
      end(entry)
      return undefined
    }
    entry.lastSeen = now
    return entry.http
  }

  const attach = (session: HttpSession, delivery: Delivery): (() => void) | "conflict" | Refused => {
    const entry = entries.get(session.id)
    if (entry === undefined) return () => {}
    if (entry.stream !== undefined) return "conflict"
    const now = Date.now()
    const principal = entry.http.principal
    const endsAt = (other: Entry) => other.stream?.endsAt ?? Infinity
    if ((streamsPerPrincipal.get(principal) ?? 0) >= settings.maxStreamsPerPrincipal) {
      return refused("streamsPerPrincipal", settings.maxStreamsPerPrincipal, now, (other) => other.stream !== undefined && other.http.principal === principal, endsAt)
    }
    if (streams >= settings.maxStreams) {
      return refused("streams", settings.maxStreams, now, (other) => other.stream !== undefined, endsAt)
    }
    // At its deadline the stream ends (the client opens it again); a session expired meanwhile ends too.
    const timer = setTimeout(() => {
      if (entry.stream !== stream) return
      closeStream(entry)
      if (expired(entry, Date.now())) end(entry)
    }, settings.streamMillis)
    const outbox = Outbox.makeUnsafe({
      write: (frames, written) => delivery.event(frames.map((frame) => `data: ${frame}\n\n`).join(""), written),
      paceMillis
    })
    const stream: Stream = { delivery, endsAt: now + settings.streamMillis, timer, outbox }
    entry.stream = stream
    streams++
    increment(streamsPerPrincipal, principal, 1)
    delivery.open()
    // An SSE comment: the answer's head leaves now, not with the first change.
    delivery.event(": stream open\n\n", undefined)
    return () => {
      if (entry.stream === stream) closeStream(entry)
    }
  }

  return {
    settings,
    create,
    find,
    remove: (id) => {
      const entry = entries.get(id)
      if (entry !== undefined) end(entry)
    },
    attach,
    size: () => entries.size,
    streams: () => streams,
    closeAll: () => {
      closed = true
      // `end` deletes from the map while this walks it: Map iteration allows that.
      for (const entry of entries.values()) end(entry)
    }
  }
}
