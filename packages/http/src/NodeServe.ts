/**
 * The one-call server: Streamable HTTP on Node's `http` module, or, with `tls`, HTTPS with HTTP/2
 * and HTTP/1.1 chosen by ALPN on one port (`node:http2`), or with `h2c`, cleartext HTTP/2 with prior
 * knowledge beside HTTP/1.1 (see {@link NodeListener}). Behind a reverse proxy, `trustProxy` names
 * the proxies whose `Forwarded` / `X-Forwarded-*` headers give the client's view (see `@snodo/http/TrustProxy`).
 *
 * The MCP endpoint is answered by {@link NodeEndpoint} straight from Node's `request` event, with
 * the same checks, limits and lifetimes as the mountable {@link McpHttp} route but without Effect's
 * HTTP server in between (it roughly halves the cost of a request). On top of the transport's own
 * checks it owns the connections: at most `maxConnections` at once (a request on a connection
 * beyond that is answered 503 and the connection closed right after; one that sends nothing is
 * closed within a second), a complete head within `headersTimeout` of a connection's start (408
 * otherwise, so idle and trickling sockets cannot hold the slots), request heads beyond `maxHeaderBytes`
 * refused by Node itself with 431, `100 Continue` written only to a request that passed the checks
 * before its body, keep-alive between requests, and a graceful shutdown: when the Layer's scope
 * closes, new requests are refused with 503, listen streams end gracefully, the server stops
 * accepting connections, and in-flight requests (the endpoint's and those of an application served
 * on it) get `shutdownTimeout` to finish; then their connections are destroyed and their handlers
 * interrupted, and the scope closes once those handlers' finalizers have run. Bound to a loopback
 * address (the default, `127.0.0.1`) only loopback `Host` and `Origin` values are accepted; bound
 * elsewhere, any `Host` and same-origin `Origin`s, unless the options say otherwise.
 *
 * The Layer provides `HttpServer`: its `address` tells the port it bound, and an application
 * served on it with `HttpServer.serve` answers every path but the MCP endpoint (without one, they
 * are 404). Effect's HTTP modules (~30) are loaded when the Layer is built (and Effect's Node HTTP
 * server when an application is served on it), not by {@link serve}, which answers the endpoint
 * alone: a server that only serves MCP never loads them. Callers of the endpoint are anonymous
 * unless `authenticate` is given (an `Authentication.Authenticator`, such as `@snodo/oauth`'s
 * resource server): it verifies each
 * caller before the body is read, so a refused one never uploads it; or mount
 * `McpHttp.layerRoute` behind your own middleware instead.
 *
 * @example
 * ```ts
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import { Effect } from "effect"
 * import * as NodeServe from "@snodo/http/NodeServe"
 *
 * NodeServe.serve({ port: 3000 }).pipe(Effect.provide(Server.layer), NodeRuntime.runMain)
 * // stderr: MCP server listening on http://127.0.0.1:3000/mcp
 * ```
 *
 * @since 0.1.0
 */
import { Duration, Effect, Latch, Layer, Scope } from "effect"
import { ConfigurationError } from "@snodo/core/ConfigurationError"
import type { HttpServer } from "effect/http"
import type { ServeError } from "effect/http/HttpServerError"
import * as NetAddress from "effect/net/NetAddress"
import type { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import type * as Http from "node:http"
import type * as Net from "node:net"
import * as NodeEndpoint from "./NodeEndpoint.ts"
import * as NodeListener from "./NodeListener.ts"
import * as NodeResponse from "./NodeResponse.ts"
import * as Reply from "./Reply.ts"
import { isLoopbackAddress } from "./Security.ts"
import * as Tls from "./Tls.ts"

/**
 * Options of the Node server; the transport's options apply too.
 *
 * @category models
 * @since 0.1.0
 */
export interface ServeOptions extends NodeEndpoint.EndpointOptions {
  /** TCP port (default 3000; 0 picks a free one). */
  readonly port?: number
  /** Listen address (default `127.0.0.1`). */
  readonly host?: string
  /**
   * Serve HTTPS with this key and certificate (or reloadable {@link Tls.Certificates}): HTTP/2 and
   * HTTP/1.1 on one port, chosen by ALPN (default: cleartext HTTP/1.1).
   */
  readonly tls?: Tls.TlsInput | undefined
  /** With `tls`: offer HTTP/2 by ALPN beside HTTP/1.1 (default `true`); `false` serves HTTP/1.1 alone. */
  readonly http2?: boolean | undefined
  /**
   * Without `tls`: accept cleartext HTTP/2 with prior knowledge (h2c) beside HTTP/1.1 on the same
   * port (default `false`), for a reverse proxy that speaks HTTP/2 upstream.
   */
  readonly h2c?: boolean | undefined
  /** HTTP/2: streams open at once on one connection (default 100); more are refused with `REFUSED_STREAM`. */
  readonly maxConcurrentStreams?: number | undefined
  /** Open connections at once (default 1,024). */
  readonly maxConnections?: number
  /** How long a shutdown waits for in-flight requests (default 10 s). */
  readonly shutdownTimeout?: Duration.Input
  /** How long an idle keep-alive connection stays open (default 5 s). */
  readonly keepAliveTimeout?: Duration.Input
  /**
   * How long a new connection may take to send a complete request head, first byte included
   * (default 10 s): past it the connection is answered 408 and closed, so idle or slow sockets
   * cannot hold the connection slots.
   */
  readonly headersTimeout?: Duration.Input
}

const notFound = Reply.refuse(404, -32601, "Not found: this server has no such endpoint")
const busy = Reply.refuse(503, -32603, "Server busy: too many connections", { connection: "close", "retry-after": "1" })
const closing = Reply.refuse(503, -32603, "Server shutting down", { connection: "close", "retry-after": "1" })

/**
 * The path of a request target: the origin form (`/mcp?x=1`), or the absolute form a server must
 * accept too (`http://127.0.0.1:3000/mcp`, RFC 9112 §3.2.2).
 */
const pathOf = (target: string): string => {
  if (!target.startsWith("/")) return URL.canParse(target) ? new URL(target).pathname : target
  const query = target.indexOf("?")
  return query < 0 ? target : target.slice(0, query)
}

/** How long a connection beyond the cap is kept for its one 503. */
const overLimitGrace = 1000

const millis = (input: Duration.Input | undefined, fallback: number): number =>
  input === undefined ? fallback : Math.ceil(Duration.toMillis(Duration.fromInputUnsafe(input)))

/** The connections a server accepted and has not closed yet, counted exactly where the cap needs it. */
interface OpenConnections {
  /** Counts a new connection in; answers how many are open (it included), exactly when that is over `cap`. */
  readonly add: (socket: Net.Socket, cap: number) => number
  /** How many are open, exactly when that is over `cap`. */
  readonly count: (cap: number) => number
}

/**
 * The open connections, counted without a listener on each socket: the sockets are kept in a set,
 * and the closed ones (`destroyed`) dropped when the set is over the cap (so a count over the cap
 * is exact) or has doubled since the last sweep (so it holds at most as many closed sockets as open
 * ones, or 64).
 *
 * A `close` listener per socket, beside Node's own, gave every socket an array of listeners for its
 * lifetime and spared Node's per-request one (`[socketOnClose, onServerResponseClose]`), so the
 * objects of events.js's listener-array site were all long-lived. Measured (bench/PROFILE.md), from
 * ~64 keep-alive connections V8 then pretenured that site, and from then on every request's objects
 * (request, response, the endpoint's closures) survived scavenges into the old generation: ~4 KB per
 * request, scavenges of 30-250 ms and a mark-compact every few seconds.
 */
const openConnections = (): OpenConnections => {
  const sockets = new Set<Net.Socket>()
  let sweepAt = 64
  const sweep = (): number => {
    for (const socket of sockets) if (socket.destroyed) sockets.delete(socket)
    sweepAt = Math.max(64, 2 * sockets.size)
    return sockets.size
  }
  const count = (cap: number): number => sockets.size > cap || sockets.size > sweepAt ? sweep() : sockets.size
  return {
    add: (socket, cap) => {
      sockets.add(socket)
      return count(cap)
    },
    count
  }
}

type NodeHandler = (request: Http.IncomingMessage, response: Http.ServerResponse) => void

/**
 * Fails with Effect's `ServeError` (whose module, and Effect's HTTP modules with it, is loaded only
 * then), its message saying what went wrong.
 */
const serveError = (cause: unknown, message: string): Effect.Effect<never, ServeError> =>
  Effect.flatMap(
    Effect.promise(() => import("effect/http/HttpServerError")),
    ({ ServeError }) => {
      const error = new ServeError({ cause })
      error.message = message
      return Effect.fail(error)
    }
  )

/** `host:port`, with an IPv6 address in brackets. */
const authority = (host: string, port: number): string => `${host.includes(":") ? `[${host}]` : host}:${port}`

/** Why listening failed, naming the address and the system's code (`EADDRINUSE`, `EACCES`, …). */
const listenFailure = (cause: Error, host: string, port: number): string => {
  const code = (cause as NodeJS.ErrnoException).code
  const reason = code === "EADDRINUSE"
    ? "the address is already in use (EADDRINUSE): another process listens there; stop it or pick another port (0 picks a free one)"
    : code === "EACCES"
    ? "permission denied (EACCES): ports below 1024 need privileges"
    : code === "EADDRNOTAVAIL"
    ? "the address is not one of this machine's (EADDRNOTAVAIL)"
    : code === undefined ? cause.message : `${cause.message} (${code})`
  return `Cannot listen on ${authority(host, port)}: ${reason}`
}

/**
 * Listens on `host:port` (port 0 picks a free one) and answers the address bound; the server is
 * closed by the Layer's finalizer (the drain), which also ends its connections.
 */
const listen = (server: Net.Server, port: number, host: string): Effect.Effect<NetAddress.SocketAddress, ServeError> =>
  Effect.callback<void, ServeError>((resume) => {
    const failed = (cause: Error) => resume(serveError(cause, listenFailure(cause, host, port)))
    server.once("error", failed)
    server.listen(port, host, () => {
      server.off("error", failed)
      resume(Effect.void)
    })
  }).pipe(Effect.flatMap(() => {
    const bound = server.address()
    return bound === null || typeof bound === "string"
      ? serveError(new Error(`the server bound no TCP address (${String(bound)})`), `Cannot listen on ${authority(host, port)}: no TCP address bound`)
      : Effect.fromResult(NetAddress.inetAddressFromIpString(bound.address, bound.port)).pipe(
        Effect.catch((cause) => serveError(cause, `Cannot listen on ${authority(host, port)}: ${bound.address} is not an IP address`))
      )
  }))

/** Waits until the server's listening socket is released (after `close()`), so its port is free again. */
const released = (server: Net.Server): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (!server.listening) return resume(Effect.void)
    server.once("close", () => resume(Effect.void))
  })

/** The protocol the options ask for; a certificate that does not load is a configuration error. */
const protocolOf = (options: ServeOptions | undefined): Effect.Effect<NodeListener.Protocol, ConfigurationError> => {
  const tls = options?.tls
  if (tls === undefined) return Effect.succeed(options?.h2c === true ? { _tag: "H2c" } : { _tag: "Http1" })
  if (options?.h2c === true) {
    return Effect.fail(new ConfigurationError({ message: "@snodo/http options: h2c is cleartext HTTP/2; with tls, HTTP/2 is offered by ALPN (drop h2c)" }))
  }
  return Tls.certificates(tls).pipe(
    Effect.map((certificates): NodeListener.Protocol => ({ _tag: "Tls", certificates, http2: options?.http2 ?? true })),
    Effect.mapError((error) => new ConfigurationError({ message: `@snodo/http options: ${error.message}` }))
  )
}

/** A listening server: the address it bound, and how an application is served beside the endpoint. */
interface Listening {
  readonly address: NetAddress.SocketAddress
  /** The MCP endpoint's URL (`https://127.0.0.1:3000/mcp`). */
  readonly url: string
  /**
   * Answers every path but the endpoint's with `handler` from now on; the scope of the application
   * drains the server when it closes.
   */
  readonly mount: (scope: Scope.Scope, handler: NodeHandler) => Effect.Effect<void>
}

/** Starts the server in the current scope; closing the scope drains and stops it. */
const start = (options: ServeOptions | undefined): Effect.Effect<Listening, ServeError | ConfigurationError, ServerRuntime | Scope.Scope> =>
  Effect.gen(function*() {
    const host = options?.host ?? "127.0.0.1"
    const loopback = isLoopbackAddress(host)
    const endpoint = yield* NodeEndpoint.make({
      ...options,
      allowedHosts: options?.allowedHosts ?? (loopback ? "loopback" : "any"),
      allowedOrigins: options?.allowedOrigins ?? (loopback ? "loopback" : "same-origin")
    })
    const settings = endpoint.settings
    const maxConnections = options?.maxConnections ?? 1024
    // Node refuses a head timeout longer than the request timeout (the deadline, plus a second).
    const headersTimeout = Math.min(millis(options?.headersTimeout, 10_000), settings.deadlineMillis + 1000)
    const protocol = yield* protocolOf(options)
    const listener = NodeListener.make(protocol, {
      maxHeaderBytes: settings.maxHeaderBytes,
      headersTimeout,
      requestTimeout: settings.deadlineMillis + 1000,
      keepAliveTimeout: millis(options?.keepAliveTimeout, 5000),
      maxConcurrentStreams: options?.maxConcurrentStreams ?? 100
    })
    yield* Effect.addFinalizer(() => Effect.sync(listener.dispose))
    const server = listener.server
    const connections = openConnections()
    // Connections beyond the cap: TCP sockets (HTTP/1.1), TLS sockets and HTTP/2 sessions.
    const overLimit = new WeakSet<object>()
    // Beyond the cap a connection gets one answer (503) to a request it sends at once, and is
    // closed right after it, or within a second if it sends nothing.
    const overTheCap = (socket: Net.Socket) => {
      overLimit.add(socket)
      const timer = setTimeout(() => socket.destroy(), overLimitGrace)
      socket.once("close", () => clearTimeout(timer))
    }
    server.on("connection", (socket: Net.Socket) => {
      if (connections.add(socket, maxConnections) > maxConnections) overTheCap(socket)
    })
    // What a request sees of its connection: the TLS socket over the TCP one, or its HTTP/2 session.
    const markOver = (connection: object) => {
      if (connections.count(maxConnections) > maxConnections) overLimit.add(connection)
    }
    if (protocol._tag === "Tls") server.on("secureConnection", markOver)
    for (const emitter of listener.emitters) emitter.on("session", markOver)
    const isOverLimit = (request: NodeResponse.NodeRequest): boolean =>
      "stream" in request ? request.stream.session !== undefined && overLimit.has(request.stream.session) : overLimit.has(request.socket)
    let draining = false
    let fallback: NodeHandler | undefined
    // Requests of the served application not answered yet, and a latch open while there are none.
    let appInFlight = 0
    const appIdle = Latch.makeUnsafe(true)
    const dispatch = (request: NodeResponse.NodeRequest, response: NodeResponse.NodeServerResponse, expectsContinue: boolean): void => {
      if (draining) return NodeResponse.write(response, closing)
      if (isOverLimit(request)) {
        if ("stream" in request) response.once("finish", () => request.stream.session?.close())
        else response.once("finish", () => request.socket.destroySoon())
        return NodeResponse.write(response, busy)
      }
      if (pathOf(request.url ?? "/") === settings.path) {
        return expectsContinue ? endpoint.handleContinue(request, response) : endpoint.handle(request, response)
      }
      if (fallback !== undefined) {
        // The application reads its body as it likes: continue at once, as Node does by default.
        if (expectsContinue) response.writeContinue()
        // Effect's Node HTTP server reads `node:http`'s request and response; over HTTP/2 it gets
        // the compatibility ones, which have the same members.
        return fallback(request as Http.IncomingMessage, response as Http.ServerResponse)
      }
      // A body held back cannot be skipped: the connection closes after the refusal.
      if (expectsContinue) response.setHeader("connection", "close")
      NodeResponse.write(response, notFound)
    }
    for (const emitter of listener.emitters) {
      emitter.on("request", (request: NodeResponse.NodeRequest, response: NodeResponse.NodeServerResponse) => dispatch(request, response, false))
      // Without this listener Node answers `100 Continue` before any check: the endpoint answers it
      // only once the request passed them, so a refused client never sends its body.
      emitter.on("checkContinue", (request: NodeResponse.NodeRequest, response: NodeResponse.NodeServerResponse) => dispatch(request, response, true))
    }
    const address = yield* listen(server, options?.port ?? 3000, host)
    // Added after the listener, so it runs first on shutdown: refuse new work while in-flight drains.
    // Listen streams have no deadline: they end now, gracefully, so their connections are idle
    // (closed at once) instead of holding the drain. An application served on this server drains
    // too: its own scope closes first and runs the same (cached) drain before interrupting its requests.
    const shutdownTimeout = millis(options?.shutdownTimeout, 10_000)
    const drain = yield* Effect.cached(Effect.gen(function*() {
      draining = true
      yield* endpoint.closeSubscriptions
      server.close()
      // HTTP/2 sessions are sent GOAWAY: their open streams finish, new ones are refused.
      listener.closeIdle()
      yield* Effect.timeoutOrElse(Effect.andThen(endpoint.idle, appIdle.await), {
        duration: shutdownTimeout,
        orElse: () => Effect.void
      })
    }))
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        yield* drain
        yield* endpoint.abortAll
        listener.closeAll()
        yield* released(server)
      })
    )
    const url = `${protocol._tag === "Tls" ? "https" : "http"}://${authority(host, address._tag === "UnixPathAddress" ? 0 : address.port)}${settings.path}`
    return {
      address,
      url,
      mount: (scope, handler) =>
        Effect.map(Scope.addFinalizer(scope, drain), () => {
          fallback = (request, response) => {
            if (appInFlight++ === 0) appIdle.closeUnsafe()
            response.once("close", () => {
              if (--appInFlight === 0) appIdle.openUnsafe()
            })
            handler(request, response)
          }
        })
    }
  })

/**
 * How `HttpServer.serve` serves an application on a listening server. Effect's Node HTTP server
 * (with `ws` for upgrades, ~70 modules) is loaded only by a program that serves an application
 * beside the endpoint; {@link serve} does not refer to it, so a bundler leaves it out too.
 */
const serveApp = (listening: Listening): Parameters<typeof HttpServer.make>[0]["serve"] => (app, middleware) =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    // The application's request fibers live in a child scope, closed after the drain (finalizers
    // run in reverse): in-flight requests get `shutdownTimeout`, as the endpoint's do.
    const requests = Scope.forkUnsafe(scope, "parallel")
    const NodeHttpServer = yield* Effect.promise(() => import("@effect/platform-node/NodeHttpServer"))
    const handler = yield* NodeHttpServer.makeHandler(app, { scope: requests, middleware })
    yield* listening.mount(scope, handler)
  })

/**
 * The server as a Layer providing `HttpServer` (its `address` tells the port it bound).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: ServeOptions): Layer.Layer<HttpServer.HttpServer, ServeError | ConfigurationError, ServerRuntime> =>
  Layer.unwrap(Effect.map(
    Effect.promise(() => import("effect/http/HttpServer")),
    (HttpServer) =>
      Layer.effect(
        HttpServer.HttpServer,
        Effect.map(start(options), (listening) => HttpServer.make({ address: listening.address, serve: serveApp(listening) }))
      )
  ))

/**
 * Serves the MCP endpoint until interrupted (what {@link layer} does, without providing
 * `HttpServer`, so Effect's HTTP modules are never loaded), and writes one line to stderr once the
 * port is bound: `MCP server listening on http://127.0.0.1:3000/mcp`. A port in use fails with a
 * `ServeError` whose message names the address and `EADDRINUSE`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const serve = (options?: ServeOptions): Effect.Effect<never, ServeError | ConfigurationError, ServerRuntime> =>
  Effect.scoped(Effect.andThen(start(options), ({ url }) => {
    // One line on stderr once the port is bound (port 0: it tells which); stdout is left alone.
    process.stderr.write(`MCP server listening on ${url}\n`)
    return Effect.never
  }))
