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
 * It is the state machine `Endpoint` (every check, refusal and lifetime the one-call
 * `NodeEndpoint` has) on Effect's HTTP server: the request's scope releases it.
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
import { HttpRouter, HttpServerRequest, type HttpServerResponse } from "effect/http"
import type { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import type { BodyBudget } from "./BodyBudget.ts"
import type { Body } from "./BodyReader.ts"
import * as EffectResponse from "./EffectResponse.ts"
import * as Endpoint from "./Endpoint.ts"
import type { Delivery } from "./Exchange.ts"
import type { Options, Settings } from "./Options.ts"
import * as Replies from "./Replies.ts"
import * as RequestHead from "./RequestHead.ts"
import * as ServerRequestBody from "./ServerRequestBody.ts"

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
  const endpoint = yield* Endpoint.make({ options })
  const fork = Effect.runForkWith(yield* Effect.context<never>())

  /** The state machine's port on one request of Effect's HTTP server: its answer resumes the handler. */
  class EffectPort implements Endpoint.Port {
    private resumed = false
    private made: EffectResponse.EffectResponse | undefined = undefined
    private readonly request: HttpServerRequest.HttpServerRequest
    private readonly resume: (effect: Effect.Effect<HttpServerResponse.HttpServerResponse>) => void

    constructor(request: HttpServerRequest.HttpServerRequest, resume: (effect: Effect.Effect<HttpServerResponse.HttpServerResponse>) => void) {
      this.request = request
      this.resume = resume
    }

    read(maxBytes: number, timeoutMillis: number, budget: BodyBudget, done: (body: Body) => void): () => void {
      return ServerRequestBody.readWith(this.request, maxBytes, timeoutMillis, budget, done, fork)
    }

    reply(reply: Replies.Reply): void {
      // After a delivery was made (a listen stream beyond the cap), the refusal is its answer.
      if (this.made !== undefined) return this.made.delivery.settle(reply)
      if (this.resumed) return
      this.resumed = true
      this.resume(Effect.succeed(Replies.toResponse(reply)))
    }

    delivery(streams: boolean): Delivery {
      const made = Effect.runSync(EffectResponse.make(streams))
      this.made = made
      if (!this.resumed) {
        this.resumed = true
        this.resume(made.response)
      }
      return made.delivery
    }

    fail(error: unknown): void {
      fork(Effect.logError("MCP endpoint: unexpected error", error))
      this.reply(Replies.internalError)
    }
  }

  const handler = Effect.withFiber((fiber) => {
    const context = fiber.context
    const request = Context.getUnsafe(context, HttpServerRequest.HttpServerRequest)
    const head = RequestHead.read(request)
    let held: Endpoint.Held | undefined
    // The request is released when its scope closes: once the response is written, or abandoned.
    return Effect.andThen(
      Scope.addFinalizer(Context.getUnsafe(context, Scope.Scope), Effect.sync(() => held?.release())),
      Effect.callback<HttpServerResponse.HttpServerResponse>((resume) => {
        held = endpoint.serve({
          method: request.method,
          path: request.url,
          headers: request.headers,
          head,
          framing: { target: targetOf(request), hosts: head.hosts, authorizations: head.authorizations },
          context
        }, new EffectPort(request, resume))
      })
    )
  }).pipe(
    // A defect of the transport (say, an `allowedHosts` predicate that throws) is answered as the
    // Node endpoint answers it, not with the HTTP server's bare 500.
    Effect.catchDefect((defect) =>
      Effect.as(Effect.logError("MCP endpoint: unexpected error", defect), Replies.toResponse(Replies.internalError))
    )
  )

  return { handler, settings: endpoint.settings, inFlight: endpoint.inFlight, closeSubscriptions: endpoint.closeSubscriptions }
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
