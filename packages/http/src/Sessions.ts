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
 * is dropped, as is one beyond 64 waiting to be written (a client that stopped reading).
 *
 * At most `max` sessions exist at once; creating one beyond first forgets the expired ones, then
 * answers 503. Sessions live in this process: behind a load balancer, route a session's requests
 * to the instance that issued it.
 *
 * @example
 * ```ts
 * import * as Sessions from "@snodo/http/Sessions"
 *
 * const sessions = Sessions.make({ max: 1024, idleMillis: 30 * 60_000 }, Effect.runFork)
 * const created = sessions.create("anonymous") // an HttpSession, or undefined when full
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
 * The sessions of one application.
 *
 * @category models
 * @since 0.1.0
 */
export interface Sessions {
  readonly settings: SessionSettings
  /** A new session of `principal`, or `undefined` when `max` sessions exist. */
  readonly create: (principal: string) => HttpSession | undefined
  /** The live session with this id, if `principal` created it (and marks it used). */
  readonly find: (id: string, principal: string) => HttpSession | undefined
  /** Ends a session: its stream ends, its hub subscription and waiting requests with it. */
  readonly remove: (id: string) => void
  /**
   * Opens the session's GET stream on `delivery`; returns the release to call once the response is
   * over, or `"conflict"` when it already has one.
   */
  readonly attach: (session: HttpSession, delivery: Delivery) => (() => void) | "conflict"
  /** Sessions alive. */
  readonly size: () => number
  /** Ends every session and refuses new ones (shutdown). */
  readonly closeAll: () => void
}

interface Entry {
  readonly http: HttpSession
  lastSeen: number
  stream: { readonly delivery: Delivery; readonly outbox: Outbox.Outbox } | undefined
}

const newId = (): string => randomBytes(24).toString("base64url")

/**
 * A store. `run` runs the effect that ends a core session (unsubscribing it from the hub) with the
 * application's services.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (settings: SessionSettings, run: (effect: Effect.Effect<void>) => unknown): Sessions => {
  const entries = new Map<string, Entry>()
  let closed = false

  const end = (entry: Entry) => {
    entries.delete(entry.http.id)
    const stream = entry.stream
    entry.stream = undefined
    stream?.delivery.end()
    run(entry.http.session.end)
  }

  const expired = (entry: Entry, now: number) => entry.stream === undefined && now - entry.lastSeen > settings.idleMillis

  const sweep = (now: number) => {
    for (const entry of entries.values()) if (expired(entry, now)) end(entry)
  }

  const create = (principal: string): HttpSession | undefined => {
    if (closed) return undefined
    const now = Date.now()
    if (entries.size >= settings.max) sweep(now)
    if (entries.size >= settings.max) return undefined
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
      lastSeen: now,
      stream: undefined
    }
    entries.set(id, entry)
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

  const attach = (session: HttpSession, delivery: Delivery): (() => void) | "conflict" => {
    const entry = entries.get(session.id)
    if (entry === undefined) return () => {}
    if (entry.stream !== undefined) return "conflict"
    const outbox = Outbox.makeUnsafe({ write: (frame, written) => delivery.event(`data: ${frame}\n\n`, written) })
    const stream = { delivery, outbox }
    entry.stream = stream
    delivery.open()
    // An SSE comment: the answer's head leaves now, not with the first change.
    delivery.event(": stream open\n\n", undefined)
    return () => {
      if (entry.stream !== stream) return
      entry.stream = undefined
      entry.lastSeen = Date.now()
      delivery.end()
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
    closeAll: () => {
      closed = true
      // `end` deletes from the map while this walks it: Map iteration allows that.
      for (const entry of entries.values()) end(entry)
    }
  }
}
