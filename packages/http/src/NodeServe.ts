/**
 * The one-call server: Streamable HTTP on Node's `http` module, through `NodeHttpServer`.
 *
 * On top of the transport's own checks it owns the connections: at most `maxConnections` at once
 * (a request on a connection beyond that is answered 503 and the connection closed), request
 * heads beyond `maxHeaderBytes` refused by Node itself with 431, keep-alive between requests, and
 * a graceful shutdown: when the Layer's scope closes, new requests are refused with 503, the server
 * stops accepting connections and in-flight requests get `shutdownTimeout` to finish before they
 * are interrupted. Bound to a loopback address (the default, `127.0.0.1`) only loopback `Host`
 * and `Origin` values are accepted; bound elsewhere, any `Host` and same-origin `Origin`s, unless
 * the options say otherwise.
 *
 * @example
 * ```ts
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import { Effect } from "effect"
 * import * as NodeServe from "@snodo/http/NodeServe"
 *
 * NodeServe.serve({ port: 3000 }).pipe(Effect.provide(Server.layer), NodeRuntime.runMain)
 * ```
 *
 * @since 0.1.0
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Duration, Effect, Layer } from "effect"
import { HttpServer, HttpServerRequest } from "effect/http"
import type { ServeError } from "effect/http/HttpServerError"
import type { ServerRuntime } from "@snodo/core/runtime/ServerRuntime"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as McpHttp from "./McpHttp.ts"
import type { Options } from "./Options.ts"
import * as Replies from "./Replies.ts"
import { isLoopbackAddress } from "./Security.ts"

/** Options of the Node server; the transport's options apply too. @since 0.1.0 */
export interface ServeOptions extends Options {
  /** TCP port (default 3000; 0 picks a free one). */
  readonly port?: number
  /** Listen address (default `127.0.0.1`). */
  readonly host?: string
  /** Open connections at once (default 1,024). */
  readonly maxConnections?: number
  /** How long a shutdown waits for in-flight requests (default 10 s). */
  readonly shutdownTimeout?: Duration.Input
  /** How long an idle keep-alive connection stays open (default 5 s). */
  readonly keepAliveTimeout?: Duration.Input
}

const notFound = Replies.refuse(404, -32601, "Not found: this server has no such endpoint")
const busy = Replies.refuse(503, -32603, "Server busy: too many connections", { connection: "close", "retry-after": "1" })
const closing = Replies.refuse(503, -32603, "Server shutting down", { connection: "close", "retry-after": "1" })

const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query < 0 ? url : url.slice(0, query)
}

const millis = (input: Duration.Input | undefined, fallback: number): number =>
  input === undefined ? fallback : Math.ceil(Duration.toMillis(Duration.fromInputUnsafe(input)))

/**
 * The server as a Layer providing `HttpServer` (its `address` tells the port it bound).
 *
 * @since 0.1.0
 */
export const layer = (options?: ServeOptions): Layer.Layer<HttpServer.HttpServer, ServeError, ServerRuntime> =>
  Layer.effect(
    HttpServer.HttpServer,
    Effect.gen(function*() {
      const host = options?.host ?? "127.0.0.1"
      const loopback = isLoopbackAddress(host)
      const app = yield* McpHttp.make({
        ...options,
        allowedHosts: options?.allowedHosts ?? (loopback ? "loopback" : "any"),
        allowedOrigins: options?.allowedOrigins ?? (loopback ? "loopback" : "same-origin")
      })
      const settings = app.settings
      const maxConnections = options?.maxConnections ?? 1024
      const server = Http.createServer({
        maxHeaderSize: settings.maxHeaderBytes,
        headersTimeout: Math.min(settings.deadlineMillis, 60_000),
        requestTimeout: settings.deadlineMillis + 1000,
        keepAliveTimeout: millis(options?.keepAliveTimeout, 5000)
      })
      let connections = 0
      const overLimit = new WeakSet<Net.Socket>()
      server.on("connection", (socket: Net.Socket) => {
        connections++
        if (connections > maxConnections) overLimit.add(socket)
        socket.once("close", () => connections--)
      })
      const http = yield* NodeHttpServer.make(() => server, {
        port: options?.port ?? 3000,
        host,
        gracefulShutdownTimeout: millis(options?.shutdownTimeout, 10_000)
      })
      let draining = false
      const handler = Effect.withFiber((fiber) => {
        const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
        if (draining) return Effect.succeed(closing)
        const socket = (request.source as Http.IncomingMessage).socket
        if (socket !== undefined && overLimit.has(socket)) return Effect.succeed(busy)
        if (pathOf(request.url) !== settings.path) return Effect.succeed(notFound)
        return app.handler
      })
      yield* http.serve(Effect.interruptible(handler))
      // Added after `serve`, so it runs first on shutdown: refuse new work while in-flight drains.
      // Listen streams have no deadline: they end now, gracefully, so their connections are idle
      // (closed at once) by the time the server closes, instead of holding the drain.
      yield* Effect.addFinalizer(() => Effect.andThen(Effect.sync(() => void (draining = true)), app.closeSubscriptions))
      return http
    })
  )

/**
 * Serves until interrupted (the Layer, launched).
 *
 * @since 0.1.0
 */
export const serve = (options?: ServeOptions): Effect.Effect<never, ServeError, ServerRuntime> =>
  Layer.launch(layer(options))
