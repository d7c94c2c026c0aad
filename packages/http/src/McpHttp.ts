/**
 * Streamable HTTP (MCP 2026-07-28) as an Effect HTTP application: mount it in your own
 * `HttpRouter`, behind your own middleware, or serve it with `NodeServe`.
 *
 * One endpoint, POST only (anything else is 405 with `Allow: POST`). A body is one JSON-RPC
 * request or notification; a notification is answered 202. Before a request runs: the head size
 * (431), `Host` and `Origin` (403), capacity (503), `Content-Type` (415), `Accept` (406), the body
 * size counted as it streams (413), strict JSON-RPC (400), and the metadata headers against the
 * body (400, -32020). The answer is `application/json`, unless the handler writes progress or a
 * log message: then it is a request-scoped SSE stream ending with the response. 2026-07-28 has no
 * sessions; with an initialize-era dialect enabled (2025-11-25) and the `sessions` option on,
 * `initialize` issues an `Mcp-Session-Id`, a GET opens the session's stream and a DELETE ends it
 * (see InitializeEra). A client disconnect interrupts the handler.
 *
 * The caller's identity is the `Principal` service in the request's context, which the
 * application's authentication middleware provides; without one, the request is anonymous. A
 * middleware that also provides a `Grant` (`@snodo/http/Authentication`) ends the request's
 * exchange when the credential lapses, and maps authorization refusals to their HTTP answer.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { HttpRouter } from "effect/http"
 * import * as McpHttp from "@snodo/http/McpHttp"
 *
 * const App = Layer.mergeAll(
 *   McpHttp.layerRoute({ path: "/mcp" }),
 *   HttpRouter.add("GET", "/health", HttpServerResponse.text("ok"))
 * ).pipe(Layer.provide(Server.layer))
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Scope } from "effect"
import type { ConfigurationError } from "@snodo/core/ConfigurationError"
import * as InFlight from "@snodo/protocol/peer/InFlight"
import { HttpRouter, HttpServerRequest, type HttpServerResponse } from "effect/http"
import * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import { fromContext } from "@snodo/core/Principal"
import { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import { Grant } from "./Authentication.ts"
import * as BodyBudget from "./BodyBudget.ts"
import * as ServerRequestBody from "./ServerRequestBody.ts"
import * as Dispatch from "./Dispatch.ts"
import * as EffectResponse from "./EffectResponse.ts"
import * as Exchange from "./Exchange.ts"
import * as InitializeEra from "./InitializeEra.ts"
import * as Listen from "./Listen.ts"
import { type Options, resolve, type Settings } from "./Options.ts"
import * as Replies from "./Replies.ts"
import * as RequestChecks from "./RequestChecks.ts"
import * as RequestHead from "./RequestHead.ts"
import * as Sessions from "./Sessions.ts"
import { sharedOptions } from "./SharedSessions.ts"

/**
 * The transport as an HTTP application.
 *
 * @category models
 * @since 0.1.0
 */
export interface McpHttpApp {
  /** Answers the current request; mount it on the MCP endpoint (any method). */
  readonly handler: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Scope.Scope>
  readonly settings: Settings
  /** Requests in flight. */
  readonly inFlight: () => number
  /**
   * Ends every open listen stream gracefully, refuses new ones, and waits (at most 1 s) until their
   * responses are finished (call on shutdown, before the server closes).
   */
  readonly closeSubscriptions: Effect.Effect<void>
}

/** The request target as sent: Node's raw one where the platform kept it, else the request's URL. */
const targetOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const raw = (request.source as { readonly url?: unknown }).url
  return typeof raw === "string" ? raw : request.url
}

/**
 * Builds the application for the `ServerRuntime` in context. Build it once: the per-request path
 * allocates no Layer and looks up no service but the request's own.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options?: Options): Effect.fn.Return<McpHttpApp, ConfigurationError, ServerRuntime> {
  const runtime = yield* ServerRuntime
  const settings = yield* resolve(options)
  // The in-flight map lives as long as the application (requests end with their own responses).
  const environment: Exchange.Environment = { runtime, inFlight: yield* Scope.provide(InFlight.make, Scope.makeUnsafe()) }
  const listen = Listen.make(environment, settings.maxSubscriptions, settings.maxSubscriptionBytes, settings.subscriptionIntervalMillis)
  const budget = BodyBudget.make(settings.maxBufferedBodyBytes)
  const services = yield* Effect.context<never>()
  const sessions = settings.sessions === undefined || runtime.dialects.legacy.length === 0
    ? undefined
    : Sessions.make(settings.sessions, Effect.runForkWith(services), settings.subscriptionIntervalMillis, sharedOptions(runtime, services))
  const shared = sessions?.shared
  let inFlight = 0

  /** Runs `begin` and registers its release on the request's scope, as one uninterruptible step. */
  const hold = (scope: Scope.Scope, begin: () => (() => void) | Replies.Reply) =>
    Effect.uninterruptible(Effect.suspend(() => {
      const started = begin()
      if (typeof started !== "function") return Effect.succeed(started)
      return Effect.as(Scope.addFinalizer(scope, Effect.sync(started)), undefined)
    }))

  const exchange = Effect.fnUntraced(function*(
    route: Dispatch.Started,
    principal: string,
    scope: Scope.Scope,
    context: Context.Context<never>,
    startedAt: number
  ) {
    const { delivery, response } = yield* EffectResponse.make(Dispatch.streams(route))
    const deadlineAt = startedAt + settings.deadlineMillis
    const grant = Context.getOrUndefined(context, Grant)
    const refused = yield* hold(scope, () => Dispatch.start(route, environment, listen, principal, delivery, context, deadlineAt, grant, sessions))
    if (refused !== undefined) return Replies.toResponse(refused)
    return yield* response
  })

  /** A GET (the session's stream) or DELETE (ends the session) of an initialize-era session. */
  const serveSession = Effect.fnUntraced(function*(
    request: HttpServerRequest.HttpServerRequest,
    head: RequestHead.RequestHead,
    principal: string,
    scope: Scope.Scope,
    context: Context.Context<never>,
    store: Sessions.Sessions,
    framing: RequestChecks.Framing
  ) {
    const refusal = RequestChecks.beforeSession(request.headers, head.bytes, settings, framing)
    if (refusal !== undefined) return Replies.toResponse(refusal)
    const prepared = shared === undefined ? undefined : yield* InitializeEra.prepare(undefined, head, runtime, shared, fromContext(context))
    if (prepared !== undefined && "status" in prepared) return Replies.toResponse(prepared)
    if (request.method === "DELETE") {
      const reply = InitializeEra.terminate(head, store, principal)
      if (shared !== undefined && reply.status === 200) yield* InitializeEra.settle(head, shared, true)
      return Replies.toResponse(reply)
    }
    const { delivery, response } = yield* EffectResponse.make(true)
    const refused = yield* hold(scope, () => InitializeEra.openStream(head, request.headers["accept"], store, principal, delivery))
    if (refused !== undefined) return Replies.toResponse(refused)
    return yield* response
  })

  const serve = Effect.fnUntraced(function*(
    request: HttpServerRequest.HttpServerRequest,
    principal: string,
    scope: Scope.Scope,
    context: Context.Context<never>
  ) {
    const startedAt = Date.now()
    const head = RequestHead.read(request)
    const framing = { target: targetOf(request), hosts: head.hosts, authorizations: head.authorizations }
    if (sessions !== undefined && (request.method === "GET" || request.method === "DELETE") && InitializeEra.concernsSession(head, runtime)) {
      return yield* serveSession(request, head, principal, scope, context, sessions, framing)
    }
    const refusal = RequestChecks.beforeBody(request.method, request.headers, head.bytes, settings, inFlight, framing)
    if (refusal !== undefined) return Replies.toResponse(refusal)
    yield* Effect.uninterruptible(Effect.suspend(() => {
      inFlight++
      return Scope.addFinalizer(scope, Effect.sync(() => inFlight--))
    }))
    const body = yield* ServerRequestBody.read(request, settings.maxBodyBytes, settings.deadlineMillis, budget)
    if (body._tag !== "Text") return Replies.toResponse(RequestChecks.bodyRefusal(body, settings))
    const message = Envelope.decode(body.text)
    const reserved = shared === undefined ? undefined : yield* InitializeEra.prepare(message, head, runtime, shared, fromContext(context))
    if (reserved !== undefined && "status" in reserved) return Replies.toResponse(reserved)
    const route = Dispatch.route(message, head, runtime, environment.inFlight, principal, sessions, reserved)
    if (route._tag === "Reply") {
      if (shared !== undefined) yield* InitializeEra.settle(head, shared, false)
      return Replies.toResponse(route.reply)
    }
    return yield* exchange(route, principal, scope, context, startedAt)
  })

  const handler = Effect.withFiber((fiber) => {
    const context = fiber.context
    return serve(
      Context.getUnsafe(context, HttpServerRequest.HttpServerRequest),
      fromContext(context).id,
      Context.getUnsafe(context, Scope.Scope),
      context
    )
  }).pipe(
    // A defect of the transport (say, an `allowedHosts` predicate that throws) is answered as the
    // Node endpoint answers it, not with the HTTP server's bare 500.
    Effect.catchDefect((defect) =>
      Effect.as(Effect.logError("MCP endpoint: unexpected error", defect), Replies.toResponse(Replies.internalError))
    )
  )

  const closeSubscriptions = sessions === undefined
    ? listen.closeAll()
    : Effect.andThen(Effect.sync(() => sessions.closeAll()), listen.closeAll())
  return { handler, settings, inFlight: () => inFlight, closeSubscriptions }
})

/**
 * The MCP endpoint as a route of the application's `HttpRouter` (every method, at `path`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerRoute = (options?: Options): Layer.Layer<never, ConfigurationError, HttpRouter.HttpRouter | ServerRuntime> =>
  HttpRouter.use((router) =>
    Effect.flatMap(make(options), (app) => router.add("*", app.settings.path, app.handler))
  )
