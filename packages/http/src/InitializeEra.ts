/**
 * Streamable HTTP for the initialize-era dialects (2025-11-25), on the same endpoint as
 * 2026-07-28. Nothing here runs unless the server enables such a dialect.
 *
 * Which era a message belongs to is decided from the message itself, before any header check: a
 * request naming a version in `_meta` is 2026-07-28's (today's checks, `Mcp-Method` and all); an
 * `initialize`, a message whose `MCP-Protocol-Version` names an initialize-era version, or (with
 * sessions) one carrying an `Mcp-Session-Id` without that header is the initialize era's.
 * Anything else keeps the 2026-07-28 path and its refusals.
 *
 * An initialize-era request then finds its session (runtime/Session):
 * - `initialize`: with sessions on, a new one (503 with `Retry-After` beyond `sessions.max` or
 *   `sessions.maxPerPrincipal`; an `initialize` carrying an `Mcp-Session-Id` is 400), whose id the answer carries; without, a session of its
 *   own that ends with it.
 * - anything else: `MCP-Protocol-Version` is required and must name an enabled initialize-era
 *   version (400); with sessions on, `Mcp-Session-Id` is required (400), must name a live session
 *   of the same principal (404) that negotiated that version (400); without sessions, the request
 *   is a session of its own negotiated from the header, knowing nothing of the client.
 *
 * Notifications are answered 202 (`notifications/initialized` marks the session,
 * `notifications/cancelled` cancels the request of the same principal and session); a JSON-RPC
 * response answers a server-to-client request of the session (202), and is refused without
 * sessions, where the server sends none. A GET opens the session's stream for server-initiated
 * messages, a DELETE ends the session (see {@link openStream}, {@link terminate}); both are 405
 * without sessions.
 *
 * @example
 * ```ts
 * import * as InitializeEra from "@snodo/http/InitializeEra"
 *
 * if (InitializeEra.belongs(message, head, runtime)) {
 *   const admitted = InitializeEra.admit(message, head, runtime, sessions, principal)
 *   // { session, http, created } or the Reply refusing it
 * }
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Exit, Predicate } from "effect"
import type { Principal } from "@snodo/core/Principal"
import * as Encoder from "@snodo/protocol/jsonrpc/Encoder"
import type * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import type { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import * as Session from "@snodo/core/dialect/Session"
import type * as InFlight from "@snodo/protocol/peer/InFlight"
import * as Peer from "@snodo/protocol/peer/Peer"
import { ProtocolVersionKey } from "@snodo/protocol/wire/Meta"
import type { Delivery } from "./Exchange.ts"
import * as Negotiation from "./Negotiation.ts"
import * as Reply from "./Reply.ts"
import { Repeated, type RequestHead } from "./RequestHead.ts"
import type { SessionStoreUnavailable } from "./SessionStore.ts"
import { type HttpSession, limitKey, type Refused, type Sessions, type Shared } from "./Sessions.ts"
import * as Immediate from "@snodo/protocol/peer/Immediate"

/**
 * The session header, as written in answers.
 *
 * @category constants
 * @since 0.1.0
 */
export const sessionHeader = "mcp-session-id"

const versionHeader = "mcp-protocol-version"

const namesVersion = (params: Readonly<Record<string, unknown>>): boolean => {
  const meta = params["_meta"]
  return Predicate.isObject(meta) && typeof meta[ProtocolVersionKey] === "string"
}

/**
 * Whether a message belongs to an initialize-era dialect (see the module description); always
 * `false` for a server that enables none.
 *
 * @category combinators
 * @since 0.1.0
 */
export const belongs = (message: Envelope.Incoming, head: RequestHead, runtime: ServerRuntime["Service"]): boolean => {
  const registry = runtime.dialects
  if (registry.legacy.length === 0) return false
  if (message._tag === "Invalid" || message._tag === "Ignored") return false
  if (message._tag !== "Response" && namesVersion(message.params)) return false
  if (message._tag === "Request" && message.method === "initialize") return true
  const version = head.mcp.get(versionHeader)
  if (typeof version === "string") return registry.get(version.trim())?.session !== undefined
  return version === undefined && head.mcp.has(sessionHeader)
}

/**
 * Whether a GET or DELETE (sessions on) is an initialize-era session's: it is, unless it names a
 * revision without sessions and no session. `MCP-Protocol-Version: 2026-07-28` without an
 * `Mcp-Session-Id` gets that revision's answer (405, POST only), not the session's 400.
 *
 * @category combinators
 * @since 0.1.0
 */
export const concernsSession = (head: RequestHead, runtime: ServerRuntime["Service"]): boolean => {
  if (head.mcp.has(sessionHeader)) return true
  const version = head.mcp.get(versionHeader)
  if (typeof version !== "string") return true
  const dialect = runtime.dialects.get(version.trim())
  return dialect === undefined || dialect.session !== undefined
}

/**
 * An initialize-era request with its session.
 *
 * @category models
 * @since 0.1.0
 */
export interface Admitted {
  readonly session: Session.Session
  /** The HTTP session, when sessions are on. */
  readonly http: HttpSession | undefined
  /** Whether this request created the session (`initialize`): its answer carries the id. */
  readonly created: boolean
  /** The cancellation scope: the principal, and the session when there is one. */
  readonly scope: string
}

const refuse = (id: Envelope.RequestId | null, status: number, code: number, message: string): Reply.Reply =>
  Reply.json(Encoder.error(id, { code, message }), status)

const boundNames: Readonly<Record<Refused["bound"], string>> = {
  sessions: "too many sessions",
  sessionsPerPrincipal: "too many sessions of this caller",
  streams: "too many session streams open",
  streamsPerPrincipal: "too many session streams of this caller open"
}

/**
 * The 503 of a session or stream refused by a bound: `Retry-After` in whole seconds (at least 1)
 * until a place frees up by itself, and a -32603 whose `data` says it is retryable, the limit and
 * the milliseconds to wait.
 *
 * @category combinators
 * @since 0.1.0
 */
export const busy = (id: Envelope.RequestId | null, refused: Refused): Reply.Reply => {
  const seconds = Math.max(1, Math.ceil(refused.retryAfterMillis / 1000))
  return Reply.json(
    Encoder.error(id, {
      code: -32603,
      message: `Server busy: ${boundNames[refused.bound]}`,
      data: { retryable: true, limit: refused.limit, retryAfterMs: seconds * 1000 }
    }),
    503,
    { "retry-after": String(seconds) }
  )
}

/**
 * The cancellation scope of a principal's requests in a session.
 *
 * @category combinators
 * @since 0.1.0
 */
export const scopeOf = (principal: string, http: HttpSession | undefined): string =>
  http === undefined ? principal : `${principal}\u0000${http.id}`

/** The single value of a header, `Repeated`, or `undefined`. */
const single = (head: RequestHead, name: string) => {
  const value = head.mcp.get(name)
  return typeof value === "string" ? value.trim() : value
}

/** The live session a message names, or the refusal (400 without an id, 404 for an unknown one). */
const sessionNamed = (
  id: Envelope.RequestId | null,
  head: RequestHead,
  sessions: Sessions,
  principal: string
): HttpSession | Reply.Reply => {
  const named = single(head, sessionHeader)
  if (named === Repeated) return refuse(id, 400, -32600, "Bad Request: Mcp-Session-Id header sent more than once")
  if (named === undefined || named === "") return refuse(id, 400, -32600, "Bad Request: missing Mcp-Session-Id header")
  return sessions.find(named, principal) ?? refuse(id, 404, -32600, "Session not found")
}

const isReply = (value: HttpSession | Reply.Reply): value is Reply.Reply => "status" in value

/**
 * Finds the session of an initialize-era request, or the refusal to answer with. An `initialize`
 * takes the session `reserved` for it in a shared store, if any (see Sessions.Shared).
 *
 * @category combinators
 * @since 0.1.0
 */
export const admit = (
  request: Envelope.Request,
  head: RequestHead,
  runtime: ServerRuntime["Service"],
  sessions: Sessions | undefined,
  principal: string,
  reserved?: HttpSession | Refused
): Admitted | Reply.Reply => {
  const { id } = request
  const opening = runtime.dialects.legacy[0]?.session?.opening
  if (request.method === "initialize" || (opening?.has(request.method) === true && !head.mcp.has(sessionHeader))) {
    if (sessions === undefined || request.method !== "initialize") {
      return { session: Session.makeUnsafe(), http: undefined, created: false, scope: principal }
    }
    if (head.mcp.has(sessionHeader)) return refuse(id, 400, -32600, "Bad Request: initialize must not carry an Mcp-Session-Id")
    // With a shared store the session was reserved there first (its caps are counted there).
    const http = reserved ?? sessions.create(principal, limitKey(principal, head.address))
    if ("_tag" in http) return busy(id, http)
    return { session: http.session, http, created: true, scope: scopeOf(principal, http) }
  }
  const version = single(head, versionHeader)
  if (version === Repeated) return refuse(id, 400, -32600, "Bad Request: MCP-Protocol-Version header sent more than once")
  if (version === undefined) return refuse(id, 400, -32600, "Bad Request: missing MCP-Protocol-Version header (the version initialize negotiated)")
  if (runtime.dialects.get(version)?.session === undefined) {
    return refuse(id, 400, -32600, `Bad Request: unsupported MCP-Protocol-Version (supported: ${runtime.dialects.supported.join(", ")})`)
  }
  if (sessions === undefined) return { session: Session.stateless(version), http: undefined, created: false, scope: principal }
  const http = sessionNamed(id, head, sessions, principal)
  if (isReply(http)) return http
  if (http.session.negotiated?.version !== version) {
    return refuse(id, 400, -32600, "Bad Request: MCP-Protocol-Version does not match the version the session negotiated")
  }
  return { session: http.session, http, created: false, scope: scopeOf(principal, http) }
}

/**
 * Answers an initialize-era notification or response (202, or the refusal).
 *
 * @category combinators
 * @since 0.1.0
 */
export const accept = (
  message: Envelope.Notification | Envelope.Response,
  head: RequestHead,
  sessions: Sessions | undefined,
  inFlight: InFlight.InFlight,
  principal: string
): Reply.Reply => {
  if (sessions === undefined) {
    if (message._tag === "Response") return refuse(null, 400, -32600, "Invalid request: this server sends no requests without sessions")
    Peer.accept(message, { cancels: { inFlight, scope: principal }, responses: undefined })
    return Reply.accepted
  }
  const http = sessionNamed(null, head, sessions, principal)
  if (isReply(http)) return http
  const session = http.session
  Peer.accept(message, {
    cancels: { inFlight, scope: scopeOf(principal, http) },
    responses: session.requests,
    notification: (notification) => {
      if (notification.method === "notifications/initialized") session.markInitialized()
    }
  })
  return Reply.accepted
}

const conflict = refuse(null, 409, -32600, "Conflict: the session's stream is already open")
const notAcceptable = refuse(null, 406, -32600, "Not Acceptable: Accept must allow text/event-stream")

/**
 * A GET: opens the session's stream on `delivery` (the release to call once the response is over),
 * or the refusal: 406 without `text/event-stream` in `Accept`, 400/404 as for any request of the
 * session, 409 when its stream is open already, 503 with `Retry-After` beyond `sessions.maxStreams`
 * or `sessions.maxStreamsPerPrincipal`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const openStream = (
  head: RequestHead,
  acceptHeader: string | undefined,
  sessions: Sessions,
  principal: string,
  delivery: Delivery
): (() => void) | Reply.Reply => {
  if (!Negotiation.acceptsEventStream(acceptHeader)) return notAcceptable
  const http = sessionNamed(null, head, sessions, principal)
  if (isReply(http)) return http
  const release = sessions.attach(http, delivery)
  return release === "conflict" ? conflict : typeof release === "function" ? release : busy(null, release)
}

/**
 * A DELETE: ends the session it names (200), or the refusal (400 without an id, 404 for an
 * unknown one). With sessions shared through a store, the transport's next step ({@link settle})
 * ends it, here and in the store, before the 200 leaves; ending it here too would remove it from
 * the store twice.
 *
 * @category combinators
 * @since 0.1.0
 */
export const terminate = (head: RequestHead, sessions: Sessions, principal: string): Reply.Reply => {
  const http = sessionNamed(null, head, sessions, principal)
  if (isReply(http)) return http
  if (sessions.shared === undefined) sessions.remove(http.id)
  return ended
}

const ended: Reply.Reply = { status: 200, body: undefined, headers: {} }

/**
 * With sessions shared through a store, the step before the synchronous path: an `initialize`
 * reserves its session in the store (the session, or the bound that refused it, for
 * {@link admit}); any other message, GET or DELETE naming a session brings this instance's copy
 * of it up to date (or forgets it, so that it is 404 here too). A store that cannot be read makes
 * it the reply to answer at once (503, retryable). `message` is `undefined` for a GET or DELETE.
 *
 * @category combinators
 * @since 0.1.0
 */
export const prepare = (
  message: Envelope.Incoming | undefined,
  head: RequestHead,
  runtime: ServerRuntime["Service"],
  shared: Shared,
  principal: Principal["Service"]
): Effect.Effect<HttpSession | Refused | Reply.Reply | undefined> => {
  if (message !== undefined && !belongs(message, head, runtime)) return Effect.undefined
  const named = single(head, sessionHeader)
  const id = message?._tag === "Request" ? message.id : null
  const step: Effect.Effect<HttpSession | Refused | undefined, SessionStoreUnavailable> = typeof named === "string" && named !== ""
    ? Immediate.map(shared.hydrate(named, principal), () => undefined)
    : named === undefined && message?._tag === "Request" && message.method === "initialize"
    ? shared.reserve(principal.id, limitKey(principal.id, head.address))
    : Effect.undefined
  // Done at once (a session answered from the store's cached copy): so is this step. Its one
  // typed failure is `SessionStoreUnavailable`; a defect is not caught.
  return Immediate.matchEffect(step, { onFailure: () => Exit.succeed(unavailable(id)), onSuccess: Exit.succeed })
}

/** The store could not be read: 503, retryable (a 404 would tell the client its session is gone). */
const unavailable = (id: Envelope.RequestId | null): Reply.Reply =>
  Reply.json(
    Encoder.error(id, { code: -32603, message: "Server busy: the session store is unavailable", data: { retryable: true } }),
    503,
    { "retry-after": "1" }
  )

/**
 * With sessions shared through a store, the step after a message answered without running a
 * handler (`notifications/initialized`, a DELETE): the session's changes are stored, or its
 * end, before the answer leaves.
 *
 * @category combinators
 * @since 0.1.0
 */
export const settle = (head: RequestHead, shared: Shared, terminated: boolean): Effect.Effect<void> => {
  const named = single(head, sessionHeader)
  if (typeof named !== "string" || named === "") return Effect.void
  return terminated ? shared.forget(named) : shared.persist(named)
}
