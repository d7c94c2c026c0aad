/**
 * The MCP endpoint as a Node `request` listener: the transport of {@link McpHttp} without Effect's
 * HTTP server in between, for the one-call server.
 *
 * Every check, refusal and lifetime is the one `McpHttp` has: both are adapters of one state
 * machine (`Endpoint`), and only the platform differs: the head is read from Node's raw header
 * list, the body with plain listeners, and the answer written with `NodeResponse`. A handler that
 * suspends runs in a fiber of its own, on the services the endpoint was built with; one that
 * answers at once is written without one. The response's `close` (written, or the client gone)
 * releases the request: its deadline, its cancellation entry, and its handler's fiber if that
 * still runs. Nothing is thrown
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
import { Context, Effect, Exit, Latch, References, Scope } from "effect"
import { ConfigurationError } from "@snodo/core/ConfigurationError"
import type { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import { clientAddress } from "@snodo/protocol/methods/Semconv"
import type * as Authentication from "./Authentication.ts"
import type { BodyBudget } from "./BodyBudget.ts"
import * as BodyReader from "./BodyReader.ts"
import * as Endpoint from "./Endpoint.ts"
import type { Delivery } from "./Exchange.ts"
import * as NodeResponse from "./NodeResponse.ts"
import type { Options, Settings } from "./Options.ts"
import * as Reply from "./Reply.ts"
import * as RequestHead from "./RequestHead.ts"
import * as TrustProxy from "./TrustProxy.ts"

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

/**
 * Builds the endpoint for the `ServerRuntime` in context; handlers run with the services of the
 * Effect that builds it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options?: EndpointOptions): Effect.fn.Return<NodeEndpoint, ConfigurationError, ServerRuntime> {
  const context = yield* Effect.context<never>()
  const trustSpec = options?.trustProxy
  const trust = trustSpec === undefined ? undefined : yield* Effect.try({
    try: () => TrustProxy.make(trustSpec),
    catch: (error) => new ConfigurationError({ message: `@snodo/http options: ${error instanceof Error ? error.message : String(error)}` })
  })
  // Handlers run in fibers of their own; this scope keeps the running ones, so that `abortAll` can
  // wait for them instead of leaving them to finish after the services they run on are released.
  const handlers = Scope.makeUnsafe("parallel")
  const endpoint = yield* Endpoint.make({ options, authenticate: options?.authenticate, scope: handlers })
  const settings = endpoint.settings
  // The ports of the requests in flight, a list through the ports themselves (no set to hash into).
  let first: NodePort | undefined
  let holding = 0
  // Open while no request is in flight: what a shutdown waits on.
  const idle = Latch.makeUnsafe(true)

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

  /** The state machine's port on Node's request and response: bytes in, bytes out. */
  class NodePort implements Endpoint.Port {
    readonly request: NodeResponse.NodeRequest
    readonly response: NodeResponse.NodeServerResponse
    readonly expectsContinue: boolean
    /** The request held, once the endpoint holds it. */
    held: Endpoint.Held | undefined = undefined
    previous: NodePort | undefined = undefined
    next: NodePort | undefined = undefined

    constructor(request: NodeResponse.NodeRequest, response: NodeResponse.NodeServerResponse, expectsContinue: boolean) {
      this.request = request
      this.response = response
      this.expectsContinue = expectsContinue
    }

    read(maxBytes: number, timeoutMillis: number, budget: BodyBudget, done: (body: BodyReader.Body) => void): () => void {
      if (this.expectsContinue) this.response.writeContinue()
      return BodyReader.readSource(this.request, maxBytes, timeoutMillis, done, budget)
    }

    reply(reply: Reply.Reply, early: boolean): void {
      // A refusal before the body of a client waiting for `100 Continue`: the connection cannot
      // carry another request while that body is held back.
      if (early && this.expectsContinue) this.response.setHeader("connection", "close")
      NodeResponse.write(this.response, reply)
    }

    delivery(): Delivery {
      return NodeResponse.delivery(this.response)
    }

    fail(error: unknown): void {
      fail(this.response, error)
    }
  }

  /** Counts `port`'s request in flight until its response closes. */
  const hold = (port: NodePort, held: Endpoint.Held): void => {
    port.held = held
    port.next = first
    if (first !== undefined) first.previous = port
    first = port
    if (++holding === 1) idle.closeUnsafe()
  }

  /** `port`'s response closed (written, or the client gone): its request is released. */
  const closed = (port: NodePort): void => {
    const held = port.held
    if (held === undefined) return
    port.held = undefined
    const { next, previous } = port
    if (previous === undefined) first = next
    else previous.next = next
    if (next !== undefined) next.previous = previous
    port.previous = undefined
    port.next = undefined
    if (--holding === 0) idle.openUnsafe()
    held.release()
  }

  const accept = (request: NodeResponse.NodeRequest, response: NodeResponse.NodeServerResponse, expectsContinue: boolean): void => {
    const peer = request.socket?.remoteAddress
    const view = trust === undefined || peer === undefined ? undefined : TrustProxy.clientView(trust, peer, request.headers)
    const head = RequestHead.fromRaw(request.rawHeaders, view?.address ?? peer)
    const port = new NodePort(request, response, expectsContinue)
    // Registered before anything else can throw, so that a request held is always released. (`on`,
    // not `once`: a response closes once, and `once` wraps the listener in a closure of its own.)
    response.on("close", () => closed(port))
    const held = endpoint.serve({
      method: request.method ?? "GET",
      path: request.url ?? "/",
      headers: request.headers,
      head,
      framing: { target: targetOf(request, view), hosts: head.hosts, authorizations: head.authorizations },
      // Behind a trusted proxy, the handler's logs name the client it reports.
      context: view === undefined ? context : annotated(context, view.address)
    }, port)
    if (held !== undefined) hold(port, held)
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
    // Collected first: a response destroyed may close (and leave the list) before the next is reached.
    const ports: Array<NodePort> = []
    for (let port = first; port !== undefined; port = port.next) ports.push(port)
    for (const port of ports) port.response.destroy()
    return Scope.close(handlers, Exit.void)
  })

  return {
    handle: listener(false),
    handleContinue: listener(true),
    settings,
    inFlight: endpoint.inFlight,
    idle: idle.await,
    closeSubscriptions: endpoint.closeSubscriptions,
    abortAll
  }
})
