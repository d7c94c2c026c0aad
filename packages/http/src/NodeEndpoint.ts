/**
 * The MCP endpoint as a Node `request` listener: the transport of {@link McpHttp} without Effect's
 * HTTP server in between, for the one-call server.
 *
 * Every check, refusal and lifetime is the one `McpHttp` has (they share `RequestChecks`,
 * `BodyReader`, `Dispatch`, `Exchange` and `Listen`); only the platform differs: the head is read
 * from Node's raw header list, the body with plain listeners, and the answer written with
 * `NodeResponse`. The handler runs in one fiber per request, on the services the endpoint was
 * built with. The response's `close` (written, or the client gone) releases the request: its
 * deadline, its cancellation entry, and its handler's fiber if that still runs. Nothing is thrown
 * out of the listener: a defect (say, an `allowedHosts` predicate that throws) is logged and
 * answered 500 with a -32603 that names nothing.
 *
 * Callers are anonymous unless the endpoint is given an `authenticate` hook
 * ({@link Authentication.Authenticator}): it runs once a request passed the checks before its
 * body and before `100 Continue` is written or any byte of the body read, so a refused caller
 * (401, 403) never uploads and never reaches a handler; an accepted one runs as its verified
 * principal, and its exchange ends when its grant lapses.
 *
 * With `sessions` on and an initialize-era dialect enabled, a GET opens a session's stream and a
 * DELETE ends a session (see InitializeEra), after the same head, `Host`/`Origin` and
 * authentication checks as a POST.
 *
 * @example
 * ```ts
 * import * as Http from "node:http"
 * import { Effect } from "effect"
 * import * as NodeEndpoint from "@snodo/http/NodeEndpoint"
 *
 * const program = Effect.gen(function*() {
 *   const endpoint = yield* NodeEndpoint.make({ deadline: "10 seconds" })
 *   Http.createServer(endpoint.handle).listen(3000)
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Cause, Context, Effect, Exit, Latch, References, Scope } from "effect"
import { ConfigurationError } from "@snodo/core/ConfigurationError"
import * as InFlight from "@snodo/protocol/peer/InFlight"
import * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import { anonymous, fromContext, Principal } from "@snodo/core/Principal"
import { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import { clientAddress } from "@snodo/protocol/methods/Semconv"
import type * as Authentication from "./Authentication.ts"
import * as BodyBudget from "./BodyBudget.ts"
import * as BodyReader from "./BodyReader.ts"
import * as Dispatch from "./Dispatch.ts"
import * as Exchange from "./Exchange.ts"
import * as InitializeEra from "./InitializeEra.ts"
import * as Listen from "./Listen.ts"
import * as NodeResponse from "./NodeResponse.ts"
import { type Options, resolve, type Settings } from "./Options.ts"
import * as Reply from "./Reply.ts"
import * as RequestChecks from "./RequestChecks.ts"
import * as RequestHead from "./RequestHead.ts"
import * as Sessions from "./Sessions.ts"
import * as TrustProxy from "./TrustProxy.ts"
import { sharedOptions } from "./SharedSessions.ts"

/**
 * The endpoint.
 *
 * @category models
 * @since 0.1.0
 */
export interface NodeEndpoint {
  /** Answers one request (mount it on the MCP path). */
  readonly handle: (request: NodeResponse.NodeRequest, response: NodeResponse.NodeServerResponse) => void
  /**
   * Answers a request that sent `Expect: 100-continue` (listen to the server's `checkContinue`
   * event with it): `100 Continue` is written only once the request passed every check before its
   * body, so a refused client never sends it; such a refusal closes the connection, which cannot
   * carry another request while a body is held back.
   */
  readonly handleContinue: (request: NodeResponse.NodeRequest, response: NodeResponse.NodeServerResponse) => void
  readonly settings: Settings
  /** Requests in flight (their responses not closed yet). */
  readonly inFlight: () => number
  /** Completes once no request is in flight (at once when none is). */
  readonly idle: Effect.Effect<void>
  /** Ends every open listen stream gracefully and waits (at most 1 s) for their responses to finish. */
  readonly closeSubscriptions: Effect.Effect<void>
  /**
   * Ends every request still in flight: its connection is destroyed and its handler interrupted;
   * completes once every handler's finalizers have run. Call it last (on shutdown): a handler
   * started after it is interrupted at once.
   */
  readonly abortAll: Effect.Effect<void>
}

/**
 * The endpoint's options: the transport's, and how callers are authenticated.
 *
 * @category models
 * @since 0.1.0
 */
export interface EndpointOptions extends Options {
  /** Verifies every caller before its body is read (default: none, callers are anonymous). */
  readonly authenticate?: Authentication.Authenticator | undefined
  /**
   * The reverse proxies whose `Forwarded` / `X-Forwarded-*` headers are believed (default: none):
   * addresses and CIDR blocks, or a hop count. From a trusted peer, the `Host`/`Origin` checks use
   * the host and scheme the client addressed, and the request's address is the client's; from any
   * other peer the headers change nothing. See {@link TrustProxy}.
   */
  readonly trustProxy?: TrustProxy.TrustProxySpec | undefined
}

/**
 * `context` with the client's address among its log annotations (`client.address`): the handler's
 * logs name it, and the request's span gets it as an attribute.
 */
const annotated = (context: Context.Context<never>, address: string): Context.Context<never> =>
  Context.add(context, References.CurrentLogAnnotations, { ...Context.get(context, References.CurrentLogAnnotations), [clientAddress]: address })

/**
 * The request target the `Host`/`Origin` checks read: the path as sent, or, when the host the
 * client addressed is not in `Host` (HTTP/2's `:authority`, a trusted proxy's forwarded host), the
 * absolute form naming it (which the checks prefer to `Host`, RFC 9112 §3.2.2).
 */
const targetOf = (request: NodeResponse.NodeRequest, view: TrustProxy.ClientView | undefined): string => {
  const target = request.url ?? "/"
  if (view?.host !== undefined) return `${view.protocol ?? "http"}://${view.host}${target.startsWith("/") ? target : "/"}`
  if (request.httpVersionMajor !== 2) return target
  const authority = request.headers[":authority"]
  return typeof authority === "string" && target.startsWith("/") ? `http://${authority}${target}` : target
}

/** Who a request runs as, and with which services. */
interface Caller {
  readonly principal: string
  readonly context: Context.Context<never>
  readonly grant: Authentication.Grant["Service"] | undefined
}

/**
 * Builds the endpoint for the `ServerRuntime` in context; handlers run with the services of the
 * Effect that builds it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options?: EndpointOptions): Effect.fn.Return<NodeEndpoint, ConfigurationError, ServerRuntime> {
  const runtime = yield* ServerRuntime
  const context = yield* Effect.context<never>()
  const authenticator = options?.authenticate
  const anonymousCaller: Caller = { principal: anonymous.id, context, grant: undefined }
  const settings = yield* resolve(options)
  const trustSpec = options?.trustProxy
  const trust = trustSpec === undefined ? undefined : yield* Effect.try({
    try: () => TrustProxy.make(trustSpec),
    catch: (error) => new ConfigurationError({ message: `@snodo/http options: ${error instanceof Error ? error.message : String(error)}` })
  })
  // Handlers run in fibers of their own; this scope keeps the running ones, so that `abortAll` can
  // wait for them instead of leaving them to finish after the services they run on are released.
  const handlers = Scope.makeUnsafe("parallel")
  const environment: Exchange.Environment = { runtime, inFlight: yield* Scope.provide(InFlight.make, handlers), scope: handlers }
  const listen = Listen.make(environment, settings.maxSubscriptions, settings.maxSubscriptionBytes, settings.subscriptionIntervalMillis)
  const active = new Set<NodeResponse.NodeServerResponse>()
  // Open while no request is in flight: what a shutdown waits on.
  const idle = Latch.makeUnsafe(true)
  const budget = BodyBudget.make(settings.maxBufferedBodyBytes)
  const sessions = settings.sessions === undefined || runtime.dialects.legacy.length === 0
    ? undefined
    : Sessions.make(settings.sessions, Effect.runForkWith(context), settings.subscriptionIntervalMillis, sharedOptions(runtime, context))
  const shared = sessions?.shared

  /** Runs `effect` (a shared session's step), then `next` with its value; a defect is answered 500. */
  const after = <A>(response: NodeResponse.NodeServerResponse, effect: Effect.Effect<A>, next: (value: A) => void): void => {
    const fiber = Effect.runForkWith(context)(effect)
    fiber.addObserver((exit) => {
      try {
        if (Exit.isSuccess(exit)) return next(exit.value)
        if (!Cause.hasInterruptsOnly(exit.cause)) fail(response, Cause.squash(exit.cause))
      } catch (error) {
        fail(response, error)
      }
    })
  }

  /**
   * A defect of the endpoint (an application's `allowedHosts` predicate that throws, a bug): thrown
   * into Node's event emitters it would crash the process, so it is logged and answered 500 (or the
   * connection cut, when the answer has begun).
   */
  const fail = (response: NodeResponse.NodeServerResponse, error: unknown): void => {
    Effect.runForkWith(context)(Effect.logError("MCP endpoint: unexpected error", error))
    if (response.headersSent) response.destroy()
    else NodeResponse.write(response, Reply.internalError)
  }

  /** A refusal before the body; `withheld` when the client waits for `100 Continue` to send it. */
  const refuse = (response: NodeResponse.NodeServerResponse, reply: Reply.Reply, withheld: boolean): void => {
    if (withheld) response.setHeader("connection", "close")
    NodeResponse.write(response, reply)
  }

  /** A GET (the session's stream) or DELETE (ends the session) of an initialize-era session. */
  const serveSession = (
    request: NodeResponse.NodeRequest,
    response: NodeResponse.NodeServerResponse,
    head: RequestHead.RequestHead,
    caller: Caller,
    store: Sessions.Sessions
  ): (() => void) | undefined => {
    if (request.method === "DELETE") {
      const reply = InitializeEra.terminate(head, store, caller.principal)
      if (shared === undefined || reply.status !== 200) return void NodeResponse.write(response, reply)
      return void after(response, InitializeEra.settle(head, shared, true), () => NodeResponse.write(response, reply))
    }
    const opened = InitializeEra.openStream(head, request.headers.accept, store, caller.principal, NodeResponse.delivery(response))
    if (typeof opened === "function") return opened
    NodeResponse.write(response, opened)
    return undefined
  }

  const accept = (request: NodeResponse.NodeRequest, response: NodeResponse.NodeServerResponse, expectsContinue: boolean): void => {
    const startedAt = Date.now()
    const peer = request.socket?.remoteAddress
    const view = trust === undefined || peer === undefined ? undefined : TrustProxy.clientView(trust, peer, request.headers)
    const head = RequestHead.fromRaw(request.rawHeaders, view?.address ?? peer)
    const framing = { target: targetOf(request, view), hosts: head.hosts, authorizations: head.authorizations }
    const sessionRequest = sessions !== undefined && (request.method === "GET" || request.method === "DELETE") &&
      InitializeEra.concernsSession(head, runtime)
    const refusal = sessionRequest
      ? RequestChecks.beforeSession(request.headers, head.bytes, settings, framing)
      : RequestChecks.beforeBody(request.method ?? "", request.headers, head.bytes, settings, active.size, framing)
    if (refusal !== undefined) return refuse(response, refusal, expectsContinue)
    if (BodyReader.declaredTooLarge(request.headers["content-length"], settings.maxBodyBytes)) {
      return refuse(response, RequestChecks.bodyRefusal(BodyReader.tooLarge, settings), expectsContinue)
    }
    if (BodyReader.declaredOverBudget(request.headers["content-length"], budget)) {
      return refuse(response, RequestChecks.bodyRefusal(BodyReader.overBudget, settings), expectsContinue)
    }
    active.add(response)
    if (active.size === 1) idle.closeUnsafe()
    let release: (() => void) | undefined
    let stopReading: (() => void) | undefined
    // Registered before anything else can throw, so the request is always released. (`on`, not
    // `once`: a response closes once, and `once` wraps the listener in a closure of its own.)
    response.on("close", () => {
      active.delete(response)
      if (active.size === 0) idle.openUnsafe()
      stopReading?.()
      release?.()
    })
    const dispatch = (message: Envelope.Incoming, caller: Caller, reserved: Sessions.HttpSession | Sessions.Refused | undefined): void => {
      const route = Dispatch.route(message, head, runtime, environment.inFlight, caller.principal, sessions, reserved)
      if (route._tag === "Reply") {
        if (shared === undefined) return NodeResponse.write(response, route.reply)
        return after(response, InitializeEra.settle(head, shared, false), () => NodeResponse.write(response, route.reply))
      }
      const deadlineAt = startedAt + settings.deadlineMillis
      const delivery = NodeResponse.delivery(response)
      const started = Dispatch.start(route, environment, listen, caller.principal, delivery, caller.context, deadlineAt, caller.grant, sessions)
      if (typeof started === "function") release = started
      else NodeResponse.write(response, started)
    }
    const receive = (caller: Caller): void => {
      if (!active.has(response)) return // closed while the caller was verified
      if (sessionRequest) {
        if (shared === undefined) return void (release = serveSession(request, response, head, caller, sessions))
        return after(response, InitializeEra.prepare(undefined, head, runtime, shared, fromContext(caller.context)), (prepared) => {
          if (!active.has(response)) return
          if (prepared !== undefined && "status" in prepared) return NodeResponse.write(response, prepared)
          release = serveSession(request, response, head, caller, sessions)
        })
      }
      if (expectsContinue) response.writeContinue()
      const bodyDeadline = Math.max(1, startedAt + settings.deadlineMillis - Date.now())
      let reading = true
      const stop = BodyReader.readSource(request, settings.maxBodyBytes, bodyDeadline, (body) => {
        // Read: nothing to stop any more, and a listen stream need not keep the reader for its lifetime.
        reading = false
        stopReading = undefined
        try {
          if (body._tag !== "Text") return NodeResponse.write(response, RequestChecks.bodyRefusal(body, settings))
          const message = Envelope.decode(body.text)
          if (shared === undefined) return dispatch(message, caller, undefined)
          after(response, InitializeEra.prepare(message, head, runtime, shared, fromContext(caller.context)), (reserved) => {
            if (!active.has(response)) return
            if (reserved !== undefined && "status" in reserved) return NodeResponse.write(response, reserved)
            dispatch(message, caller, reserved)
          })
        } catch (error) {
          fail(response, error)
        }
      }, budget)
      // A body already complete is read before `readSource` returns.
      if (reading) stopReading = stop
    }
    // Behind a trusted proxy, the handler's logs name the client it reports.
    const base = view === undefined ? undefined : annotated(context, view.address)
    if (authenticator === undefined) return receive(base === undefined ? anonymousCaller : { ...anonymousCaller, context: base })
    // The caller is verified before `100 Continue` and before any byte of the body is read.
    const verifying = Effect.runForkWith(context)(authenticator.authenticate(request.headers, { method: request.method ?? "GET", path: request.url ?? "/" }))
    stopReading = () => verifying.interruptUnsafe()
    verifying.addObserver((exit) => {
      try {
        if (Exit.isSuccess(exit)) {
          const { principal, grant } = exit.value
          return receive({ principal: principal.id, context: Context.add(base ?? context, Principal, principal), grant })
        }
        if (Cause.hasInterruptsOnly(exit.cause)) return
        const refused = Cause.findErrorOption(exit.cause)
        if (refused._tag === "Some") refuse(response, refused.value, expectsContinue)
        else fail(response, Cause.squash(exit.cause))
      } catch (error) {
        fail(response, error)
      }
    })
  }

  /** Node's listener for one kind of request; nothing it throws reaches Node's event emitter. */
  const listener = (expectsContinue: boolean) => (request: NodeResponse.NodeRequest, response: NodeResponse.NodeServerResponse): void => {
    try {
      accept(request, response, expectsContinue)
    } catch (error) {
      fail(response, error)
    }
  }

  const abortAll = Effect.suspend(() => {
    for (const response of active) response.destroy()
    return Scope.close(handlers, Exit.void)
  })

  // Shutdown ends sessions too: their GET streams, like listen streams, would hold the drain.
  const closeSubscriptions = sessions === undefined
    ? listen.closeAll()
    : Effect.andThen(Effect.sync(() => sessions.closeAll()), listen.closeAll())
  return { handle: listener(false), handleContinue: listener(true), settings, inFlight: () => active.size, idle: idle.await, closeSubscriptions, abortAll }
})
