/**
 * Streamable HTTP (MCP 2026-07-28) as an Effect HTTP application: mount it in your own
 * `HttpRouter`, behind your own middleware, or serve it with `NodeServe`.
 *
 * One endpoint, POST only (anything else is 405 with `Allow: POST`). A body is one JSON-RPC
 * request or notification; a notification is answered 202. Before a request runs: the head size
 * (431), `Host` and `Origin` (403), capacity (503), `Content-Type` (415), `Accept` (406), the body
 * size counted as it streams (413), strict JSON-RPC (400), and the metadata headers against the
 * body (400, -32020). The answer is `application/json`, unless the handler writes progress or a
 * log message: then it is a request-scoped SSE stream ending with the response. No sessions: an
 * `Mcp-Session-Id` is never issued. A client disconnect interrupts the handler.
 *
 * The caller's identity is the `Principal` service in the request's context, which the
 * application's authentication middleware provides; without one, the request is anonymous.
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
import { HttpRouter, HttpServerRequest, type HttpServerResponse } from "effect/http"
import * as Encoder from "@snodo/core/pipeline/Encoder"
import * as Envelope from "@snodo/core/pipeline/Envelope"
import { toWire } from "@snodo/core/pipeline/McpError"
import { anonymous, Principal } from "@snodo/core/runtime/Principal"
import { ServerRuntime } from "@snodo/core/runtime/ServerRuntime"
import { LogLevelKey } from "@snodo/core/wire/Meta"
import * as BodyReader from "./BodyReader.ts"
import * as Cancellations from "./Cancellations.ts"
import * as Exchange from "./Exchange.ts"
import * as Listen from "./Listen.ts"
import * as McpHeaders from "./McpHeaders.ts"
import * as Negotiation from "./Negotiation.ts"
import { type Options, resolve, type Settings } from "./Options.ts"
import * as Replies from "./Replies.ts"
import * as RequestHead from "./RequestHead.ts"
import * as Security from "./Security.ts"

/** The transport as an HTTP application. @since 0.1.0 */
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

const closeHeaders = { connection: "close" }

const bodyRefusal = (body: Exclude<BodyReader.Body, { readonly _tag: "Text" }>, settings: Settings) => {
  switch (body._tag) {
    case "TooLarge":
      return Replies.refuse(413, -32600, `Request body larger than ${settings.maxBodyBytes} bytes`, closeHeaders)
    case "Timeout":
      return Replies.refuse(408, -32600, "Request body not received within the deadline", closeHeaders)
    case "Malformed":
      return Replies.json(Replies.errorFrame(-32700, "Parse error: invalid UTF-8"), 400)
    case "Failed":
      return Replies.refuse(400, -32600, "Request body could not be read", closeHeaders)
  }
}

const wantsNotifications = (params: Readonly<Record<string, unknown>>): boolean => {
  const meta = params["_meta"]
  if (typeof meta !== "object" || meta === null) return false
  const record = meta as Record<string, unknown>
  return record["progressToken"] !== undefined || record[LogLevelKey] !== undefined
}


/**
 * Builds the application for the `ServerRuntime` in context. Build it once: the per-request path
 * allocates no Layer and looks up no service but the request's own.
 *
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options?: Options): Effect.fn.Return<McpHttpApp, never, ServerRuntime> {
  const runtime = yield* ServerRuntime
  const settings = resolve(options)
  const registry = Cancellations.make()
  const listen = Listen.make(runtime, registry, settings.maxSubscriptions)
  let inFlight = 0

  const answer = Effect.fnUntraced(function*(
    request: Envelope.Request,
    principal: string,
    scope: Scope.Scope,
    startedAt: number
  ) {
    const exchange = yield* Exchange.make(request.id, wantsNotifications(request.params))
    // Registered and released as one step, so an interruption in between leaks nothing.
    yield* Effect.uninterruptible(Effect.suspend(() => {
      const unregister = registry.register(principal, request.id, exchange)
      const remaining = Math.max(0, settings.deadlineMillis - (Date.now() - startedAt))
      const timer = setTimeout(() => exchange.expire(), remaining)
      return Scope.addFinalizer(scope, Effect.sync(() => {
        clearTimeout(timer)
        unregister()
        exchange.close()
      }))
    }))
    exchange.fiber = yield* Effect.forkDetach(
      Effect.map(runtime.handle(request, { transport: "http", sink: exchange.sink }), (outcome) => exchange.complete(outcome)),
      { startImmediately: true }
    )
    return yield* Exchange.response(exchange)
  })

  const onMessage = (
    message: Envelope.Incoming,
    head: RequestHead.RequestHead,
    principal: string,
    scope: Scope.Scope,
    startedAt: number
  ): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
    switch (message._tag) {
      case "Request": {
        const mismatch = McpHeaders.check(message, head, runtime.catalog)
        if (mismatch !== undefined) return Effect.succeed(Replies.json(Encoder.error(message.id, toWire(mismatch)), 400))
        if (message.method === "subscriptions/listen") return listen.answer(message, principal, scope)
        return answer(message, principal, scope, startedAt)
      }
      case "Notification":
        if (message.method === "notifications/cancelled") registry.cancel(principal, message.params["requestId"])
        return Effect.succeed(Replies.accepted)
      case "Invalid": {
        const status = Replies.statusOf(message.error.code)
        const frame = message.id === null
          ? Replies.errorFrame(message.error.code, message.error.message)
          : Encoder.error(message.id, toWire(message.error))
        return Effect.succeed(Replies.json(frame, status))
      }
      case "Response":
        return Effect.succeed(Replies.refuse(400, -32600, "Invalid request: the server accepts no JSON-RPC responses"))
      case "Ignored":
        return Effect.succeed(Replies.refuse(400, -32600, `Invalid notification: ${message.reason}`))
    }
  }

  const serve = Effect.fnUntraced(function*(
    request: HttpServerRequest.HttpServerRequest,
    principal: string,
    scope: Scope.Scope
  ) {
    const startedAt = Date.now()
    if (request.method !== "POST") return Replies.methodNotAllowed
    const head = RequestHead.read(request)
    if (head.bytes > settings.maxHeaderBytes) {
      return Replies.refuse(431, -32600, `Request headers larger than ${settings.maxHeaderBytes} bytes`, closeHeaders)
    }
    const headers = request.headers
    const forbidden = Security.checkHost(settings.allowedHosts, headers["host"]) ??
      Security.checkOrigin(settings.allowedOrigins, headers["origin"], headers["host"])
    if (forbidden !== undefined) return Replies.refuse(403, -32600, forbidden)
    if (inFlight >= settings.maxConcurrent) {
      return Replies.refuse(503, -32603, "Server busy: too many requests in flight", { "retry-after": "1" })
    }
    if (!Negotiation.isJson(headers["content-type"])) {
      return Replies.refuse(415, -32600, "Unsupported Media Type: the body must be application/json")
    }
    if (!Negotiation.acceptsBoth(headers["accept"])) {
      return Replies.refuse(406, -32600, "Not Acceptable: Accept must allow application/json and text/event-stream")
    }
    yield* Effect.uninterruptible(Effect.suspend(() => {
      inFlight++
      return Scope.addFinalizer(scope, Effect.sync(() => inFlight--))
    }))
    const body = yield* BodyReader.read(request, settings.maxBodyBytes, settings.deadlineMillis)
    if (body._tag !== "Text") return bodyRefusal(body, settings)
    return yield* onMessage(Envelope.decode(body.text), head, principal, scope, startedAt)
  })

  const handler = Effect.withFiber((fiber) => {
    const context = fiber.context
    return serve(
      Context.getUnsafe(context, HttpServerRequest.HttpServerRequest),
      (Context.getOrUndefined(context, Principal) ?? anonymous).id,
      Context.getUnsafe(context, Scope.Scope)
    )
  })

  return { handler, settings, inFlight: () => inFlight, closeSubscriptions: listen.closeAll() }
})

/**
 * The MCP endpoint as a route of the application's `HttpRouter` (every method, at `path`).
 *
 * @since 0.1.0
 */
export const layerRoute = (options?: Options): Layer.Layer<never, never, HttpRouter.HttpRouter | ServerRuntime> =>
  HttpRouter.use((router) =>
    Effect.flatMap(make(options), (app) => router.add("*", app.settings.path, app.handler))
  )
