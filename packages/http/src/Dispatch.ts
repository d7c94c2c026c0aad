/**
 * What the transport does with one decoded message, the same for every adapter.
 *
 * A request whose metadata headers agree with its body is run (`Call`), or opens a stream
 * (`Listen`, for a method whose route streams: `subscriptions/listen`); a request whose headers
 * disagree is 400 with a -32020.
 * A notification whose `MCP-Protocol-Version` or `Mcp-Method` header is missing or disagrees is
 * 400 with a -32020; otherwise it is answered 202 (`notifications/cancelled` first cancels the same
 * authenticated principal's request with that id; an anonymous caller's cancel reaches nothing). A message that is not a request is refused with its error. `start` runs
 * a routed request on an adapter's delivery, the same way for both adapters.
 *
 * A message of an initialize-era dialect (2025-11-25, when the server enables it) skips the
 * 2026-07-28 header checks and goes through InitializeEra: a request becomes a `Call` with its
 * session (its answer may always stream: progress, log messages and server-to-client requests
 * travel on it), anything else is answered there.
 *
 * @example
 * ```ts
 * import * as Dispatch from "@snodo/http/Dispatch"
 * import * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
 *
 * const route = Dispatch.route(Envelope.decode(text), head, runtime, inFlight, "anonymous")
 * // { _tag: "Call", request } | { _tag: "Listen", request } | { _tag: "Reply", reply }
 * ```
 *
 * @since 0.1.0
 */
import type { Context } from "effect"
import type * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import { HeaderMismatch, type McpError } from "@snodo/core/McpError"
import { initializeEraHint, type Resolved } from "@snodo/core/extension/RouteTable"
import { anonymous } from "@snodo/core/Principal"
import type * as InFlight from "@snodo/protocol/peer/InFlight"
import * as Peer from "@snodo/protocol/peer/Peer"
import type { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import { LogLevelKey } from "@snodo/protocol/wire/Meta"
import type * as Authentication from "./Authentication.ts"
import * as Exchange from "./Exchange.ts"
import * as InitializeEra from "./InitializeEra.ts"
import type * as Listen from "./Listen.ts"
import * as McpHeaders from "./McpHeaders.ts"
import * as Reply from "./Reply.ts"
import * as Status from "./Status.ts"
import type * as RequestHead from "./RequestHead.ts"
import type { HttpSession, Refused, Sessions } from "./Sessions.ts"

/**
 * Where a message goes.
 *
 * @category models
 * @since 0.1.0
 */
export type Route =
  | {
    readonly _tag: "Call"
    readonly request: Envelope.Request
    readonly session?: InitializeEra.Admitted
    readonly trace?: RequestHead.Trace | undefined
    /** The request's method as the route table knows it, looked up once for the headers and the pipeline. */
    readonly resolved?: Resolved | undefined
  }
  | { readonly _tag: "Listen"; readonly request: Envelope.Request; readonly trace?: RequestHead.Trace | undefined }
  | { readonly _tag: "Reply"; readonly reply: Reply.Reply }

/**
 * A route that runs the request's handler.
 *
 * @category models
 * @since 0.1.0
 */
export type Started = Exclude<Route, { readonly _tag: "Reply" }>

const reply = (answer: Reply.Reply): Route => ({ _tag: "Reply", reply: answer })
const responseRefused = reply(Reply.refuse(400, -32600, "Invalid request: the server accepts no JSON-RPC responses"))
const acceptedRoute = reply(Reply.accepted)

/** An error answered before anything runs, with the status its code has in the preferred dialect's era. */
const refuse = (runtime: ServerRuntime["Service"], id: Envelope.RequestId | null, error: McpError): Route => {
  const refused = runtime.reject(id, error)
  return reply(Reply.json(refused.frame, refused._tag === "Error" ? Status.of(refused) : 400))
}

/**
 * Routes one message of `principal`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const route = (
  message: Envelope.Incoming,
  head: RequestHead.RequestHead,
  runtime: ServerRuntime["Service"],
  inFlight: InFlight.InFlight,
  principal: string,
  sessions?: Sessions,
  reserved?: HttpSession | Refused
): Route => {
  if (InitializeEra.belongs(message, head, runtime)) return initializeEra(message, head, runtime, inFlight, principal, sessions, reserved)
  switch (message._tag) {
    case "Request": {
      const resolved = runtime.routes.resolve(message.method)
      const mismatch = McpHeaders.check(message, head, runtime, resolved)
      if (mismatch !== undefined) {
        // An initialize-era client at a server that enables no such era: the refusal names the option.
        const hinted = message.method === "initialize" && runtime.dialects.legacy.length === 0
          ? new HeaderMismatch({ message: `${mismatch.message} (${initializeEraHint})`, data: mismatch.data })
          : mismatch
        return refuse(runtime, message.id, hinted)
      }
      return resolved?.route.streams === true
        ? { _tag: "Listen", request: message, trace: head.trace }
        : { _tag: "Call", request: message, trace: head.trace, resolved }
    }
    case "Notification": {
      const mismatch = McpHeaders.checkNotification(message, head)
      if (mismatch !== undefined) return refuse(runtime, null, mismatch)
      // Anonymous callers are one principal whose ids collide: their posted cancels reach nothing
      // (they cancel by closing the response, the transport's own signal).
      Peer.accept(message, { cancels: principal === anonymous.id ? undefined : { inFlight, scope: principal }, responses: undefined })
      return acceptedRoute
    }
    case "Invalid":
      return refuse(runtime, message.id, message.error)
    case "Response":
      return responseRefused
    case "Ignored":
      return reply(Reply.refuse(400, -32600, `Invalid notification: ${message.reason}`))
  }
}

const initializeEra = (
  message: Envelope.Incoming,
  head: RequestHead.RequestHead,
  runtime: ServerRuntime["Service"],
  inFlight: InFlight.InFlight,
  principal: string,
  sessions: Sessions | undefined,
  reserved: HttpSession | Refused | undefined
): Route => {
  switch (message._tag) {
    case "Request": {
      const admitted = InitializeEra.admit(message, head, runtime, sessions, principal, reserved)
      return "status" in admitted ? reply(admitted) : { _tag: "Call", request: message, session: admitted, trace: head.trace }
    }
    case "Notification":
    case "Response":
      return reply(InitializeEra.accept(message, head, sessions, inFlight, principal))
    case "Invalid":
      return refuse(runtime, message.id, message.error)
    case "Ignored":
      return reply(Reply.refuse(400, -32600, `Invalid notification: ${message.reason}`))
  }
}

/**
 * Whether a request can receive notifications: it carries a progress token or a log level.
 *
 * @category combinators
 * @since 0.1.0
 */
export const wantsNotifications = (params: Readonly<Record<string, unknown>>): boolean => {
  const meta = params["_meta"]
  if (typeof meta !== "object" || meta === null) return false
  const record = meta as Record<string, unknown>
  return record["progressToken"] !== undefined || record[LogLevelKey] !== undefined
}

/**
 * Whether a started route's answer may become a stream: a listen stream always, a call when it
 * asked for notifications.
 *
 * @category combinators
 * @since 0.1.0
 */
export const streams = (started: Started): boolean =>
  started._tag === "Listen" || started.session !== undefined || wantsNotifications(started.request.params)

/**
 * Starts a route's exchange on `delivery`: a listen stream (no deadline), or a call that must end
 * by `deadlineAt` (epoch milliseconds: the request's arrival plus the transport's deadline).
 * Either ends when the request's `grant`, if any, lapses. Returns the release to call once the
 * response is over, or the refusal of a listen stream beyond the cap.
 *
 * @category combinators
 * @since 0.1.0
 */
export const start = (
  started: Started,
  environment: Exchange.Environment,
  listen: Listen.Listen,
  principal: string,
  delivery: Exchange.Delivery,
  context: Context.Context<never>,
  deadlineAt: number,
  grant?: Authentication.Grant["Service"],
  sessions?: Sessions
): (() => void) | Reply.Reply =>
  started._tag === "Listen"
    ? listen.start(started.request, principal, delivery, context, grant, started.trace)
    : started.session === undefined
    ? Exchange.start(environment, started.request, principal, delivery, {
      context,
      notifications: wantsNotifications(started.request.params),
      deadlineMillis: Math.max(0, deadlineAt - Date.now()),
      grant,
      trace: started.trace,
      resolved: started.resolved
    })
    : startInSession(started.request, started.session, environment, delivery, context, deadlineAt, grant, sessions, started.trace)

/** An initialize-era request: on its session, its answer free to stream; an `initialize` that created a session names it. */
const startInSession = (
  request: Envelope.Request,
  admitted: InitializeEra.Admitted,
  environment: Exchange.Environment,
  delivery: Exchange.Delivery,
  context: Context.Context<never>,
  deadlineAt: number,
  grant: Authentication.Grant["Service"] | undefined,
  sessions: Sessions | undefined,
  trace: RequestHead.Trace | undefined
): () => void => {
  const { created, http, session } = admitted
  const shared = sessions?.shared
  // Compared once the handler is done: what this request changed of the session, if anything.
  const persist = http === undefined || shared === undefined ? undefined : () => shared.persist(http.id)
  const release = Exchange.start(environment, request, admitted.scope, delivery, {
    context,
    notifications: true,
    beforeAnswer: persist,
    deadlineMillis: Math.max(0, deadlineAt - Date.now()),
    grant,
    session,
    trace,
    headers: created && http !== undefined
      ? (outcome) => outcome._tag === "Result" && session.negotiated !== undefined ? { [InitializeEra.sessionHeader]: http.id } : undefined
      : undefined
  })
  if (!created || http === undefined) return release
  return () => {
    release()
    // An initialize that did not succeed leaves no session behind.
    if (session.negotiated === undefined) sessions?.remove(http.id)
  }
}
