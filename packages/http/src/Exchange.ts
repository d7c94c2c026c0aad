/**
 * One HTTP request/response exchange for one JSON-RPC request: how the answer is delivered.
 *
 * The response stays undecided until the handler either finishes (a plain `application/json`
 * response) or writes its first request-scoped notification (progress, a log message): only then
 * does the response become a `text/event-stream`, with that notification as its first event and
 * the terminal JSON-RPC response as its last. A sink write completes once the connection took the
 * event, so every notification precedes the response on the wire.
 *
 * Whatever ends the exchange first wins, and nothing is written after it: the handler's outcome,
 * the deadline (504, or a terminal -32603 event inside an open stream), the request's credential
 * lapsing (its {@link Authentication.Grant} says how), a cancellation (no JSON-RPC message at
 * all), or the client going away (the handler's fiber is interrupted and its finalizers run).
 *
 * The exchange decides; a {@link Delivery} writes. Each adapter has its own: `McpHttp` builds an
 * Effect `HttpServerResponse`, `NodeServe` writes to Node's `ServerResponse` directly.
 *
 * The deadline is a plain timer armed beside the handler's fiber, and only once the handler
 * suspended (one that answers at once gets none), rather than `Effect.timeout` around the handler:
 * measured on 100,000 requests that suspend once, the timer beside the fiber cost 20–35 µs per
 * request and `Effect.timeoutOrElse` 59–67 µs (it races the handler with a sleeping fiber), on a
 * path whose whole server CPU is ~130 µs per request.
 *
 * @since 0.1.0
 */
import { Cause, type Context, Effect, Exit, type Fiber } from "effect"
import * as Peer from "@snodo/protocol/peer/Peer"
import * as Encoder from "@snodo/protocol/jsonrpc/Encoder"
import type { RequestId, Request } from "@snodo/protocol/jsonrpc/Envelope"
import type * as CoreListen from "@snodo/core/extension/Listen"
import { anonymous, fromContext } from "@snodo/core/Principal"
import type { Resolved } from "@snodo/core/extension/RouteTable"
import { type RequestSink, SinkClosed } from "@snodo/protocol/peer/RequestSink"
import type { Outcome, RequestContext, ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import type { Session } from "@snodo/core/dialect/Session"
import * as Authentication from "./Authentication.ts"
import * as Reply from "./Reply.ts"
import * as Status from "./Status.ts"
import type * as RequestHead from "./RequestHead.ts"
import * as Immediate from "@snodo/protocol/peer/Immediate"

/**
 * Where an exchange's answer goes, on one platform. Each call happens at most in this order:
 * `settle` alone, or `open`, any number of `event`s, `end`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Delivery {
  /** The exchange ended before any event: a JSON answer, or `undefined` (cancelled) for an empty stream. */
  readonly settle: (reply: Reply.Reply | undefined) => void
  /** The first event is coming: the answer becomes an SSE stream. */
  readonly open: () => void
  /** One SSE event (`data: …\n\n`); `written` once the connection took it. */
  readonly event: (text: string, written: (() => void) | undefined) => void
  /** The stream ends (after its last event, if any). */
  readonly end: () => void
}

const event = (frame: string): string => `data: ${frame}\n\n`

const Pending = 0
const Streaming = 1
const Ended = 2

const closed = Effect.fail(new SinkClosed({ message: "The HTTP response has ended" }))

/**
 * How long an open stream past its deadline waits for the handler's finalizers (which may withdraw
 * requests to the client) before its terminal error is written anyway.
 *
 * @category constants
 * @since 0.1.0
 */
export const expiryGraceMillis = 1000

/**
 * The state of one exchange. The runtime's handler runs in `fiber`, outside the request's own.
 *
 * @category models
 * @since 0.1.0
 */
export class Exchange implements Peer.Channel<Outcome> {
  readonly id: RequestId
  /** Where notifications go; `undefined` when the request asked for none (no progress token, no log level). */
  readonly sink: RequestSink | undefined
  fiber: Fiber.Fiber<unknown> | undefined = undefined
  private state = Pending
  /** The deadline passed on an open stream: the handler is being interrupted, the terminal error comes after its finalizers. */
  private expiring: ReturnType<typeof setTimeout> | undefined = undefined
  private readonly delivery: Delivery
  private readonly grant: Authentication.Grant["Service"] | undefined

  private readonly headersOf: ((outcome: Outcome) => Readonly<Record<string, string>> | undefined) | undefined

  constructor(
    id: RequestId,
    delivery: Delivery,
    notifications: boolean,
    grant?: Authentication.Grant["Service"],
    headersOf?: (outcome: Outcome) => Readonly<Record<string, string>> | undefined
  ) {
    this.id = id
    this.delivery = delivery
    this.grant = grant
    this.headersOf = headersOf
    this.sink = notifications
      ? { write: (frame) => this.write(frame), offer: (frame, written) => this.offer(frame, written) }
      : undefined
  }

  private write(frame: string): Effect.Effect<void, SinkClosed> {
    if (this.state === Ended) return closed
    this.opening()
    return Effect.callback<void, SinkClosed>((resume) => {
      this.delivery.event(event(frame), () => resume(Effect.void))
    })
  }

  /** `write` without a fiber: the event is handed over now; `false` once the exchange ended. */
  private offer(frame: string, written: (() => void) | undefined): boolean {
    if (this.state === Ended) return false
    this.opening()
    this.delivery.event(event(frame), written)
    return true
  }

  /** The first event makes the answer a stream. */
  private opening(): void {
    if (this.state === Pending) {
      this.state = Streaming
      this.delivery.open()
    }
  }

  /** Settles the exchange; `false` when something else already did. */
  private settle(reply: Reply.Reply | undefined, frame: string | undefined): boolean {
    const state = this.state
    if (state === Ended) return false
    this.state = Ended
    if (state === Pending) {
      this.delivery.settle(reply)
    } else {
      if (frame !== undefined) this.delivery.event(event(frame), undefined)
      this.delivery.end()
    }
    return true
  }

  /** The handler's outcome. */
  complete(outcome: Outcome): void {
    if (this.expiring !== undefined) return
    // An authorization matter (say, an insufficient scope) gets the grant's answer while nothing was written.
    const answer = outcome._tag === "Error" && this.state === Pending ? this.grant?.answer(outcome) : undefined
    if (answer !== undefined) return void this.settle(answer, outcome.frame)
    if (outcome._tag === "Error" && outcome.refusal !== undefined) {
      this.settle(Reply.refusal(outcome.frame, outcome.refusal), outcome.frame)
      return
    }
    const status = outcome._tag === "Result" ? 200 : Status.of(outcome)
    const headers = this.headersOf?.(outcome)
    if (outcome._tag === "Result" && outcome.encoded !== undefined && headers === undefined) {
      // A list page: its bytes, encoded once, are written as they are.
      return void this.settle({ status, body: outcome.frame, headers: Reply.noHeaders, encoded: outcome.encoded }, outcome.frame)
    }
    this.settle(headers === undefined ? Reply.json(outcome.frame, status) : Reply.json(outcome.frame, status, headers), outcome.frame)
  }

  /** The credential lapsed: the handler is interrupted and the client told so, as the grant says. */
  lapse(lapse: Authentication.Lapse): void {
    const frame = Encoder.error(this.id, lapse.error)
    if (this.settle(Reply.json(frame, lapse.status, lapse.headers), frame)) this.interrupt()
  }

  /**
   * The deadline passed: the handler is interrupted and the client told so. On an open stream the
   * handler's finalizers write first (a request to the client still waiting is withdrawn with
   * `notifications/cancelled` on the stream the client reads), then the terminal error, at most
   * {@link expiryGraceMillis} later.
   */
  expire(): void {
    const frame = Encoder.error(this.id, { code: -32603, message: "Request deadline exceeded" })
    const fiber = this.fiber
    if (this.state !== Streaming || this.expiring !== undefined || fiber === undefined || fiber.pollUnsafe() !== undefined) {
      if (this.settle(Reply.json(frame, 504), frame)) this.interrupt()
      return
    }
    const finish = () => {
      clearTimeout(this.expiring)
      this.settle(undefined, frame)
    }
    this.expiring = setTimeout(finish, expiryGraceMillis)
    fiber.interruptUnsafe()
    fiber.addObserver(finish)
  }

  /**
   * The handler's fiber ended without an outcome: interrupted from inside (a request to the client
   * found its session ended) or failed by a defect. The exchange ends at once instead of holding
   * its place until the deadline: with no message for an interruption, with a -32603 for a defect.
   */
  ended(exit: Exit.Exit<unknown, unknown>): void {
    if (Exit.isSuccess(exit) || this.expiring !== undefined) return
    if (Cause.hasInterruptsOnly(exit.cause)) return void this.settle(undefined, undefined)
    const frame = Encoder.error(this.id, { code: -32603, message: "Internal error" })
    this.settle(Reply.json(frame, 500), frame)
  }

  /** The client cancelled (`notifications/cancelled`): no JSON-RPC message is written for it. */
  cancel(): void {
    if (this.settle(undefined, undefined)) this.interrupt()
  }

  /** The request is over (answered, or the client went away): stop the handler, close the sink. */
  close(): void {
    clearTimeout(this.expiring)
    if (this.state === Streaming) this.delivery.end()
    this.state = Ended
    this.interrupt()
  }

  private interrupt(): void {
    const fiber = this.fiber
    if (fiber !== undefined && fiber.pollUnsafe() === undefined) fiber.interruptUnsafe()
  }
}

/**
 * What every exchange of one application shares.
 *
 * @category models
 * @since 0.1.0
 */
export interface Environment {
  readonly runtime: ServerRuntime["Service"]
  /**
   * Where the handlers run: the in-flight map of every caller, by principal (or initialize-era
   * session) and id, which a posted `notifications/cancelled` stops (the peer layer's, shared with
   * stdio); a second request with an id in flight runs unregistered (`"run"`); and the scope the
   * handlers' fibers are kept in while they run (closing it interrupts them and waits for their
   * finalizers; without one, a handler is only interrupted, not awaited, by its release).
   */
  readonly requests: Peer.Requests
}

/**
 * How one exchange runs.
 *
 * @category models
 * @since 0.1.0
 */
export interface StartOptions {
  /** The services the handler's fiber runs with (the request's, or the server's). */
  readonly context: Context.Context<never>
  /** Whether the request can receive notifications (a progress token or a log level). */
  readonly notifications: boolean
  /** Milliseconds left before the deadline; `undefined` for none (listen streams). */
  readonly deadlineMillis: number | undefined
  /** The transport's listen streams, for `subscriptions/listen`. */
  readonly subscriptions?: CoreListen.Streams
  /** The request's credential: the exchange ends when it lapses. */
  readonly grant?: Authentication.Grant["Service"] | undefined
  /** The initialize-era session the request belongs to (see InitializeEra). */
  readonly session?: Session | undefined
  /** Headers of the answer, once the handler's outcome is known (an `initialize`'s session id). */
  readonly headers?: ((outcome: Outcome) => Readonly<Record<string, string>> | undefined) | undefined
  /** The request's W3C trace context headers, if it had any. */
  readonly trace?: RequestHead.Trace | undefined
  /**
   * Called once the handler is done, and what it returns runs before its answer is written: a
   * shared session's changes are stored by then, so the client's next request finds them on any
   * instance. An `Exit` (`Effect.void`: nothing to store) keeps an answer given at once answered
   * at once.
   */
  readonly beforeAnswer?: (() => Effect.Effect<void>) | undefined
  /** The request's method as the route table knows it, if the transport looked it up already. */
  readonly resolved?: Resolved | undefined
}

/** The release of an exchange answered at once: it holds nothing (no fiber, no timer, no registration). */
const answeredAtOnce = (): void => {}

/**
 * Starts an exchange: the request goes through the peer layer's lifecycle (`Peer.serve`), with
 * the exchange as its channel and the caller in the request context, so that an answer the
 * runtime gives without suspending is written at once, with no fiber; otherwise the handler runs
 * in its own fiber, registered for posted cancellation (an authenticated caller's), and the
 * exchange arms its deadline and its credential's lapse. Returns the release to call once the
 * response is over (written, or the client gone): it disarms the deadline, and the exchange ends,
 * interrupting the handler if it still runs (which unregisters it). Call it exactly once,
 * uninterruptibly.
 *
 * @category combinators
 * @since 0.1.0
 */
export const start = (
  environment: Environment,
  request: Request,
  principal: string,
  delivery: Delivery,
  options: StartOptions
): () => void => {
  const grant = options.grant
  const exchange = new Exchange(request.id, delivery, options.notifications, grant, options.headers)
  const handle = (): Effect.Effect<Outcome> => {
    // The caller as the handler's fiber would see it: the runtime runs its steps at once with it.
    const caller = fromContext(options.context)
    // The caller's services: an observed request reads its span's parent, clock and address there.
    const services = options.context
    const base: RequestContext = options.subscriptions === undefined
      ? options.session === undefined
        ? { transport: "http", sink: exchange.sink, principal: caller, services }
        : { transport: "http", sink: exchange.sink, session: options.session, principal: caller, services }
      : { transport: "http", sink: exchange.sink, subscriptions: options.subscriptions, principal: caller, services }
    const trace = options.trace
    const context: RequestContext = trace === undefined
      ? base
      : { ...base, traceparent: trace.traceparent, tracestate: trace.tracestate }
    const outcome = environment.runtime.handle(request, context, options.resolved)
    const beforeAnswer = options.beforeAnswer
    if (beforeAnswer === undefined) return outcome
    // A shared session is stored before the answer; with nothing to store, an answer given at once is written at once.
    return Immediate.flatMap(outcome, (answer) => Immediate.map(beforeAnswer(), () => answer))
  }
  // A posted cancel ends the response before the handler is interrupted (see InFlight). An
  // anonymous caller's request cannot be tied to one: every unauthenticated caller is that one
  // principal, and ids collide across them (they cancel by closing the response).
  const scope = principal === anonymous.id ? undefined : principal
  const served = Peer.serve(environment.requests, scope, request.id, handle, exchange, options.context)
  // Answered (or ended) already: nothing to cancel, no deadline to arm.
  if (typeof served === "string") return answeredAtOnce
  const timer = options.deadlineMillis === undefined ? undefined : setTimeout(() => exchange.expire(), options.deadlineMillis)
  const lapse = grant?.expiresAt === undefined ? undefined : Authentication.at(grant.expiresAt, () => exchange.lapse(grant.lapse))
  exchange.fiber = served
  return () => {
    if (timer !== undefined) clearTimeout(timer)
    lapse?.()
    exchange.close()
  }
}
