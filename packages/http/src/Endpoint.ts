/**
 * The MCP endpoint as one state machine, the same for every platform: it turns a request's head
 * and body into a reply or a stream, and its adapters only deliver bytes (`NodeEndpoint` on Node's
 * `request` event, `McpHttp` as a route of Effect's HTTP server).
 *
 * One request goes through these steps, each a module of its own:
 *
 * 1. the head: size, `Host`/`Origin`, capacity, `Content-Type`, `Accept` (RequestChecks), a
 *    declared body too large or over the memory budget (BodyReader);
 * 2. held: counted in flight until its response is over (the adapter's release);
 * 3. the caller: the endpoint's authenticator, if any, before any byte of the body is read
 *    (Authentication), or the principal and grant already in the request's services;
 * 4. a session's GET (its stream) or DELETE (its end), when sessions are on (InitializeEra);
 * 5. the body, read within the deadline and the budget (the adapter's, BodyReader), and decoded
 *    strictly (Envelope);
 * 6. with sessions shared through a store, the session brought up to date (or an `initialize`'s
 *    reserved) first, and stored before an answer that ran no handler (InitializeEra);
 * 7. routed by the method table: header checks, a notification's cancellation, a refusal
 *    (Dispatch);
 * 8. an exchange (Exchange) or a listen stream (Listen) on the adapter's delivery, which ends at
 *    its deadline, when the credential lapses, on a posted cancellation, or when the client goes.
 *
 * The steps that wait (an authenticator, a shared session store) are Effects run in a fiber of
 * their own, one per wait; everything else runs as the adapter calls it. A request the runtime
 * answers without suspending is written before `serve` returns from the body's last chunk.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Endpoint from "@snodo/http/Endpoint"
 *
 * const program = Effect.gen(function*() {
 *   const endpoint = yield* Endpoint.make({ options: { deadline: "10 seconds" } })
 *   // an adapter: endpoint.serve(incoming, port) for each request, then held?.release() once its response is over
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Cause, Context, Effect, Exit, Scope } from "effect"
import type { ConfigurationError } from "@snodo/core/ConfigurationError"
import * as InFlight from "@snodo/protocol/peer/InFlight"
import * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import { fromContext, Principal } from "@snodo/core/Principal"
import { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import { type Authenticator, Grant } from "./Authentication.ts"
import * as BodyBudget from "./BodyBudget.ts"
import * as BodyReader from "./BodyReader.ts"
import * as Dispatch from "./Dispatch.ts"
import type * as Exchange from "./Exchange.ts"
import * as InitializeEra from "./InitializeEra.ts"
import * as Listen from "./Listen.ts"
import { type Options, resolve, type Settings } from "./Options.ts"
import type * as Reply from "./Reply.ts"
import * as RequestChecks from "./RequestChecks.ts"
import type * as RequestHead from "./RequestHead.ts"
import * as Sessions from "./Sessions.ts"
import { sharedOptions } from "./SharedSessions.ts"
import * as Immediate from "@snodo/protocol/peer/Immediate"

/**
 * One request as its adapter read it: everything before the body.
 *
 * @category models
 * @since 0.1.0
 */
export interface Incoming {
  /** The HTTP method. */
  readonly method: string
  /** The request target, for the authenticator. */
  readonly path: string
  readonly headers: RequestChecks.CheckedHeaders
  readonly head: RequestHead.RequestHead
  readonly framing: RequestChecks.Framing
  /**
   * The services the request's handler runs with: its `Principal` (and `Grant`) when a middleware
   * authenticated it, the client's address among the log annotations behind a trusted proxy.
   */
  readonly context: Context.Context<never>
}

/**
 * What the state machine asks of an adapter for one request: bytes in, bytes out.
 *
 * @category models
 * @since 0.1.0
 */
export interface Port {
  /**
   * Reads the body (writing `100 Continue` first when the client waits for it) and calls `done`
   * once with the outcome, never after the returned stop was called. `done` may be called before
   * `read` returns, for a body already received.
   */
  readonly read: (maxBytes: number, timeoutMillis: number, budget: BodyBudget.BodyBudget, done: (body: BodyReader.Body) => void) => () => void
  /** Writes a whole answer; `early` when the body was not read (a client waiting to send it must not). */
  readonly reply: (reply: Reply.Reply, early: boolean) => void
  /** The delivery of an exchange or a stream; `streams` when it may become an event stream. */
  readonly delivery: (streams: boolean) => Exchange.Delivery
  /** A defect of the endpoint: logged, and answered 500 (or the connection cut once the answer began). */
  readonly fail: (error: unknown) => void
}

/**
 * A request the endpoint holds (counted in flight): release it once its response is over,
 * written or abandoned by the client.
 *
 * @category models
 * @since 0.1.0
 */
export interface Held {
  readonly release: () => void
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Endpoint {
  readonly settings: Settings
  /**
   * Serves one request on `port`: the request held, or `undefined` when it was refused before
   * anything was held.
   */
  readonly serve: (incoming: Incoming, port: Port) => Held | undefined
  /** Requests held now. */
  readonly inFlight: () => number
  /** Ends every open listen stream and session stream gracefully and waits (at most 1 s) for their responses. */
  readonly closeSubscriptions: Effect.Effect<void>
}

/**
 * What {@link make} needs.
 *
 * @category models
 * @since 0.1.0
 */
export interface MakeOptions {
  readonly options?: Options | undefined
  /** Verifies every caller before its body is read (default: the request's services say who it is). */
  readonly authenticate?: Authenticator | undefined
  /**
   * Where the handlers' fibers are kept while they run: closing it interrupts them and waits for
   * their finalizers. Without one, a handler is only interrupted by its request's release.
   */
  readonly scope?: Scope.Scope | undefined
}

/** Who a request runs as, and with which services. */
interface Caller {
  readonly principal: string
  /** The principal itself, as the services hold it. */
  readonly who: Principal["Service"]
  readonly context: Context.Context<never>
  readonly grant: Grant["Service"] | undefined
}

const single = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : undefined

/**
 * Builds the endpoint for the `ServerRuntime` in context; the steps that wait run with the
 * services of the Effect that builds it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(made?: MakeOptions): Effect.fn.Return<Endpoint, ConfigurationError, ServerRuntime> {
  const runtime = yield* ServerRuntime
  const services = yield* Effect.context<never>()
  const settings = yield* resolve(made?.options)
  const authenticator = made?.authenticate
  const handlers = made?.scope
  const environment: Exchange.Environment = handlers === undefined
    // The in-flight map lives as long as the endpoint (requests end with their own responses).
    ? { runtime, requests: { inFlight: yield* Scope.provide(InFlight.make, Scope.makeUnsafe()), duplicates: "run" } }
    : { runtime, requests: { inFlight: yield* Scope.provide(InFlight.make, handlers), duplicates: "run", keepIn: handlers } }
  const inFlight = environment.requests.inFlight
  const listen = Listen.make(environment, settings.maxSubscriptions, settings.maxSubscriptionBytes, settings.subscriptionIntervalMillis)
  const budget = BodyBudget.make(settings.maxBufferedBodyBytes)
  const sessions = settings.sessions === undefined || runtime.dialects.legacy.length === 0
    ? undefined
    : Sessions.make(settings.sessions, Effect.runForkWith(services), settings.subscriptionIntervalMillis, sharedOptions(runtime, services))
  const shared = sessions?.shared
  const fork = Effect.runForkWith(services)
  let held = 0

  /** The caller of the request's services; the last one is remembered (an adapter's are one object). */
  let lastContext: Context.Context<never> | undefined
  let lastCaller: Caller | undefined
  const callerOf = (context: Context.Context<never>): Caller => {
    if (context === lastContext) return lastCaller!
    const who = fromContext(context)
    const caller = { principal: who.id, who, context, grant: Context.getOrUndefined(context, Grant) }
    lastContext = context
    lastCaller = caller
    return caller
  }

  /**
   * Runs a step that may wait, then `next` with its value; a defect is the endpoint's. A step done
   * already (an `Exit`: a shared session answered from the store's cached copy) goes on at once,
   * without a fiber.
   */
  const run = <A>(port: Port, effect: Effect.Effect<A>, next: (value: A) => void): void => {
    const settled = (exit: Exit.Exit<A>) => {
      try {
        if (Exit.isSuccess(exit)) return next(exit.value)
        if (!Cause.hasInterruptsOnly(exit.cause)) port.fail(Cause.squash(exit.cause))
      } catch (error) {
        port.fail(error)
      }
    }
    if (Immediate.isDone(effect)) return settled(effect)
    fork(effect).addObserver(settled)
  }

  /** One request held, from its head to its answer. */
  class Request implements Held {
    closed = false
    /** Stops what the request waits for (its caller's verification, its body). */
    stop: (() => void) | undefined = undefined
    /** Ends its exchange or stream. */
    exchange: (() => void) | undefined = undefined
    readonly startedAt: number
    readonly incoming: Incoming
    readonly port: Port
    readonly session: boolean

    constructor(incoming: Incoming, port: Port, startedAt: number, session: boolean) {
      this.incoming = incoming
      this.port = port
      this.startedAt = startedAt
      this.session = session
    }

    release(): void {
      if (this.closed) return
      this.closed = true
      held--
      this.stop?.()
      this.exchange?.()
    }

    /** Step 3: who calls, verified before the body when the endpoint authenticates. */
    identify(): void {
      const { context, headers } = this.incoming
      if (authenticator === undefined) return this.receive(callerOf(context))
      const verifying = fork(authenticator.authenticate(headers, { method: this.incoming.method, path: this.incoming.path }))
      this.stop = () => verifying.interruptUnsafe()
      verifying.addObserver((exit) => {
        try {
          if (Exit.isSuccess(exit)) {
            const { grant, principal } = exit.value
            return this.receive({ principal: principal.id, who: principal, context: Context.add(context, Principal, principal), grant })
          }
          if (Cause.hasInterruptsOnly(exit.cause)) return
          const refused = Cause.findErrorOption(exit.cause)
          if (refused._tag === "Some") this.port.reply(refused.value, true)
          else this.port.fail(Cause.squash(exit.cause))
        } catch (error) {
          this.port.fail(error)
        }
      })
    }

    /** Steps 4 and 5: a session's GET or DELETE, or the body. */
    receive(caller: Caller): void {
      if (this.closed) return // closed while the caller was verified
      this.stop = undefined
      const { head } = this.incoming
      if (this.session) {
        if (shared === undefined) return this.serveSession(caller, sessions!)
        return run(this.port, InitializeEra.prepare(undefined, head, runtime, shared, caller.who), (prepared) => {
          if (this.closed) return
          if (prepared !== undefined && "status" in prepared) return this.port.reply(prepared, false)
          this.serveSession(caller, sessions!)
        })
      }
      const bodyDeadline = Math.max(1, this.startedAt + settings.deadlineMillis - Date.now())
      let reading = true
      const stop = this.port.read(settings.maxBodyBytes, bodyDeadline, budget, (body) => {
        // Read: nothing to stop any more, and a listen stream need not keep the reader for its lifetime.
        reading = false
        this.stop = undefined
        try {
          this.body(body, caller)
        } catch (error) {
          this.port.fail(error)
        }
      })
      if (reading) this.stop = stop
    }

    /** Steps 5 and 6: the body decoded; with shared sessions, the session brought up to date first. */
    body(body: BodyReader.Body, caller: Caller): void {
      if (body._tag !== "Text") return this.port.reply(RequestChecks.bodyRefusal(body, settings), false)
      const message = Envelope.decode(body.text)
      if (shared === undefined) return this.dispatch(message, caller, undefined)
      run(this.port, InitializeEra.prepare(message, this.incoming.head, runtime, shared, caller.who), (reserved) => {
        if (this.closed) return
        if (reserved !== undefined && "status" in reserved) return this.port.reply(reserved, false)
        this.dispatch(message, caller, reserved)
      })
    }

    /** Steps 7 and 8: routed, then answered, or run as an exchange or a stream. */
    dispatch(message: Envelope.Incoming, caller: Caller, reserved: Sessions.HttpSession | Sessions.Refused | undefined): void {
      const head = this.incoming.head
      const route = Dispatch.route(message, head, runtime, inFlight, caller.principal, sessions, reserved)
      if (route._tag === "Reply") {
        if (shared === undefined) return this.port.reply(route.reply, false)
        return run(this.port, InitializeEra.settle(head, shared, false), () => this.port.reply(route.reply, false))
      }
      const delivery = this.port.delivery(Dispatch.streams(route))
      const deadlineAt = this.startedAt + settings.deadlineMillis
      const started = Dispatch.start(route, environment, listen, caller.principal, delivery, caller.context, deadlineAt, caller.grant, sessions)
      if (typeof started !== "function") return this.port.reply(started, false)
      this.exchange = started
      // Closed while an exchange started after a wait (a shared session): it ends now.
      if (this.closed) started()
    }

    /** Step 4: a GET (the session's stream) or DELETE (ends the session) of an initialize-era session. */
    serveSession(caller: Caller, store: Sessions.Sessions): void {
      const head = this.incoming.head
      if (this.incoming.method === "DELETE") {
        const reply = InitializeEra.terminate(head, store, caller.principal)
        if (shared === undefined || reply.status !== 200) return this.port.reply(reply, false)
        return run(this.port, InitializeEra.settle(head, shared, true), () => this.port.reply(reply, false))
      }
      const opened = InitializeEra.openStream(head, single(this.incoming.headers["accept"]), store, caller.principal, this.port.delivery(true))
      if (typeof opened !== "function") return this.port.reply(opened, false)
      this.exchange = opened
      if (this.closed) opened()
    }
  }

  const serve = (incoming: Incoming, port: Port): Held | undefined => {
    const startedAt = Date.now()
    const { framing, head, headers, method } = incoming
    // Step 1: the head.
    const session = sessions !== undefined && (method === "GET" || method === "DELETE") && InitializeEra.concernsSession(head, runtime)
    const refusal = session
      ? RequestChecks.beforeSession(headers, head.bytes, settings, framing)
      : RequestChecks.beforeBody(method, headers, head.bytes, settings, held, framing)
    if (refusal !== undefined) return void port.reply(refusal, true)
    const length = single(headers["content-length"])
    if (BodyReader.declaredTooLarge(length, settings.maxBodyBytes)) {
      return void port.reply(RequestChecks.bodyRefusal(BodyReader.tooLarge, settings), true)
    }
    if (BodyReader.declaredOverBudget(length, budget)) {
      return void port.reply(RequestChecks.bodyRefusal(BodyReader.overBudget, settings), true)
    }
    // Step 2: held until the adapter releases it; nothing thrown from here on leaves it held.
    held++
    const request = new Request(incoming, port, startedAt, session)
    try {
      request.identify()
    } catch (error) {
      port.fail(error)
    }
    return request
  }

  // Shutdown ends sessions too: their GET streams, like listen streams, would hold the drain.
  const closeSubscriptions = sessions === undefined
    ? listen.closeAll()
    : Effect.andThen(Effect.sync(() => sessions.closeAll()), listen.closeAll())
  return { settings, serve, inFlight: () => held, closeSubscriptions }
})
