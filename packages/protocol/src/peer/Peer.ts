/**
 * One JSON-RPC peer: the part of MCP that is the same for a server and a client and for every
 * transport. It knows ids, frames and lifetimes, not MCP methods.
 *
 * - **Requests from the other side** go through {@link serve}, the one request lifecycle of every
 *   transport: one answered without suspending is written at once, with no fiber; any other runs
 *   in a fiber of its own, started synchronously from the transport's input callback, and is kept
 *   in the {@link InFlight} map until it exits; a second request with an id already in flight is
 *   refused (-32600).
 * - **Notifications** are routed by {@link accept}: `notifications/cancelled` interrupts the
 *   request it names (matched within the peer's scope; unknown or finished ids are ignored), the
 *   rest go to the peer's handler (`notifications/initialized`, progress, changes).
 * - **Responses** answer the requests this peer sent ({@link OutgoingRequests}: numbered, bounded,
 *   with timeouts; a response to nothing pending is ignored).
 * - **Messages no request waits for** go through a bounded {@link Outbox}.
 *
 * A stream transport (stdio, a socket, an in-memory pipe) is an adapter around {@link make}: it
 * turns bytes into frames, calls `receiveUnsafe`, and owns the connection's lifetime. HTTP, whose
 * requests each bring their own response, uses the same parts one by one: {@link serve} for each
 * request (its exchange is the {@link Channel}) with an `InFlight` map for the whole server,
 * {@link accept} for posted notifications and responses, an `Outbox` per session stream.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Peer from "@snodo/protocol/peer/Peer"
 *
 * const program = Effect.gen(function*() {
 *   const peer = yield* Peer.make({
 *     sink: { write: (frame) => Effect.sync(() => process.stdout.write(`${frame}\n`)) },
 *     onRequest: (request) => Effect.succeed(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":{}}`),
 *     reject: (id, error) => JSON.stringify({ jsonrpc: "2.0", id, error })
 *   })
 *   peer.receiveUnsafe(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Exit, Fiber } from "effect"
import type { Context, Scope } from "effect"
import * as Encoder from "../jsonrpc/Encoder.ts"
import * as Envelope from "../jsonrpc/Envelope.ts"
import { InvalidRequest, type McpError, toWire } from "../jsonrpc/McpError.ts"
import { isDone } from "./Immediate.ts"
import * as InFlight from "./InFlight.ts"
import * as Outbox from "./Outbox.ts"
import type { OutgoingRequests } from "./OutgoingRequests.ts"
import type { RequestSink } from "./RequestSink.ts"

/**
 * Where {@link accept} routes a notification or a response.
 *
 * @category models
 * @since 0.1.0
 */
export interface Routes {
  /**
   * The requests a `notifications/cancelled` may stop, and whose they are; `undefined` when posted
   * cancellations are not honoured (an HTTP caller who cannot be told apart from others).
   */
  readonly cancels: { readonly inFlight: InFlight.InFlight; readonly scope: string } | undefined
  /** The requests this peer sent, which responses answer; `undefined` when it sends none. */
  readonly responses: OutgoingRequests | undefined
  /** Every other notification (`notifications/initialized`, progress, changes). */
  readonly notification?: ((notification: Envelope.Notification) => void) | undefined
}

/**
 * Routes a notification or a response from the other side: the one place cancellation by
 * notification and the matching of responses happen, for every transport.
 *
 * @category combinators
 * @since 0.1.0
 */
export const accept = (message: Envelope.Notification | Envelope.Response, routes: Routes): void => {
  if (message._tag === "Response") return void routes.responses?.receive(message)
  if (message.method === "notifications/cancelled") {
    const cancels = routes.cancels
    if (cancels !== undefined) cancels.inFlight.cancel(cancels.scope, message.params["requestId"])
    return
  }
  routes.notification?.(message)
}

/**
 * How one request's answer reaches the other side: what a transport hands {@link serve} with each
 * request (a stream peer: one for every request; HTTP: the request's exchange).
 *
 * @category models
 * @since 0.1.0
 */
export interface Channel<A> {
  /**
   * Delivers the handler's answer. What it returns completes once the transport took it:
   * `undefined` or an `Exit` (`Effect.void`) when it did at once, so that a request answered
   * without suspending needs no fiber at all; anything else is run in the request's fiber, which
   * stays in flight until it completes.
   */
  readonly complete: (answer: A) => Effect.Effect<void> | void
  /**
   * The request's fiber, if one was forked, ended: with whatever exit it had (`complete` was
   * called for a success; a failure is a defect or an interruption: cancelled, or interrupted from
   * inside). Also called, without a fiber, for a handler that failed at once.
   */
  readonly ended?: ((exit: Exit.Exit<unknown, unknown>) => void) | undefined
  /**
   * What cancelling the request does instead of interrupting its fiber (it must interrupt it):
   * HTTP ends the response first (see {@link InFlight.InFlight.add}).
   */
  readonly cancel?: (() => void) | undefined
}

/**
 * Where a transport's requests are registered while they run.
 *
 * @category models
 * @since 0.1.0
 */
export interface Requests {
  /** The requests in flight, by scope and id: what `notifications/cancelled` stops. */
  readonly inFlight: InFlight.InFlight
  /**
   * What a request whose id is in flight in its scope does: `"refuse"` (a stream: JSON-RPC ids are
   * unique per connection; the request is not run) or `"run"` (HTTP: it runs unregistered, so a
   * posted cancel reaches the first one only).
   */
  readonly duplicates: "refuse" | "run"
  /**
   * Where the fibers of requests that suspended are kept too: closing it interrupts them (and
   * waits for their finalizers), registered or not. Without it, only the `inFlight` map's scope.
   */
  readonly keepIn?: Scope.Scope | undefined
}

/**
 * What {@link serve} did with a request: its fiber (it suspended: registered, and what a transport
 * arms a deadline beside), `"answered"` (done already: written, or ended, with no fiber left), or
 * `"refused"` (a duplicate id, not run; the transport writes the refusal).
 *
 * @category models
 * @since 0.1.0
 */
export type Served = Fiber.Fiber<void> | "answered" | "refused"

/**
 * The lifecycle of one request from the other side, the same for every transport:
 *
 * 1. a request whose id is in flight in its scope is refused, or runs unregistered, as `requests`
 *    says;
 * 2. `handle` builds the handler; one that completed without suspending (an `Exit`: see
 *    `ServerRuntime.handle`) is completed at once, with no fiber and no registration, since
 *    nothing is left to cancel;
 * 3. otherwise it runs in a fiber of its own with `services`, and its answer goes to the channel
 *    from there; a fiber that ended before returning is done too;
 * 4. a fiber that suspended is kept in `requests.keepIn`, and registered under `scope` (unless
 *    `scope` is `undefined`: a caller who cannot be told apart from others is never registered),
 *    with the channel's `cancel`; it leaves the map when it exits.
 *
 * Call it outside any fiber (a transport's input callback) or from a fiber that is not the
 * request's: what the handler needs of its services, it has from `services`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const serve = <A>(
  requests: Requests,
  scope: string | undefined,
  id: Envelope.RequestId,
  handle: () => Effect.Effect<A>,
  channel: Channel<A>,
  services: Context.Context<never>
): Served => {
  const inFlight = requests.inFlight
  // Nothing in flight (a sequential client, most requests of a burst): no id to collide with, and
  // no key to build and hash.
  if (
    requests.duplicates === "refuse" && scope !== undefined && inFlight.size() > 0 && inFlight.has(scope, id)
  ) return "refused"
  const handler = handle()
  let effect: Effect.Effect<void>
  if (isDone(handler)) {
    if (Exit.isFailure(handler)) {
      channel.ended?.(handler)
      return "answered"
    }
    const delivered = channel.complete(handler.value)
    if (delivered === undefined || Exit.isExit(delivered)) return "answered"
    // Answered, and waiting for the transport to take it (a writer that fell behind): in flight.
    effect = delivered
  } else {
    effect = Effect.flatMap(handler, (answer) => channel.complete(answer) ?? Effect.void)
  }
  const fiber = Effect.runForkWith(services)(effect)
  const ended = channel.ended
  const done = fiber.pollUnsafe()
  if (done !== undefined) {
    if (ended !== undefined) channel.ended!(done)
    return "answered"
  }
  if (ended !== undefined) fiber.addObserver((exit) => channel.ended!(exit))
  if (requests.keepIn !== undefined) Fiber.runIn(fiber, requests.keepIn)
  if (scope !== undefined) inFlight.add(scope, id, fiber, channel.cancel === undefined ? undefined : () => channel.cancel!())
  return fiber
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Peer {
  /**
   * Handles one frame; a request runs with the caller's services, in a fiber of its own unless it
   * completed without suspending (see {@link serve}).
   */
  readonly receive: (frame: string) => Effect.Effect<void>
  /**
   * {@link Peer.receive} outside any fiber, for a transport's input callback: decodes the frame
   * and answers its request, or starts its fiber (with the services of the scope that made the
   * peer), before returning.
   */
  readonly receiveUnsafe: (frame: string) => void
  /** Writes a frame no request waits for, through the bounded outbox; `false` when dropped. */
  readonly offer: (frame: string) => boolean
  /**
   * Writes a frame from outside any fiber, with nothing waiting for it (the refusal of input that
   * never reached the peer: a line too long, invalid UTF-8): through the sink's `offer` where it
   * has one, else from a fiber of its own; nothing once the peer is closed.
   */
  readonly writeUnsafe: (frame: string) => void
  /** Waits until every request in flight has been answered. */
  readonly drain: Effect.Effect<void>
  /** Requests currently in flight. */
  readonly inFlightUnsafe: () => number
  /** Characters of the frames of the requests in flight (what they hold of their input). */
  readonly inFlightCharsUnsafe: () => number
}

/**
 * What a peer is made of.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The channel's serialized writer; completes once the frame is accepted, in order. */
  readonly sink: RequestSink
  /**
   * Answers one request: the frames to write, in order (the response, and whatever must follow it
   * on this channel), or nothing. Interrupting it is cancellation: nothing is written. `services`
   * are those its fiber runs with (the peer's for `receiveUnsafe`, the caller's for `receive`):
   * an answer that is an `Exit` already (it completed without suspending) is written at once,
   * with no fiber (see {@link serve}).
   */
  readonly onRequest: (
    request: Envelope.Request,
    services: Context.Context<never>
  ) => Effect.Effect<string | ReadonlyArray<string> | undefined>
  /** The error frame for a message that never became a request in flight. */
  readonly reject: (id: Envelope.RequestId | null, error: McpError) => string
  /** Notifications other than `notifications/cancelled`. */
  readonly onNotification?: (notification: Envelope.Notification) => void
  /** The requests this peer sends to the other side, which responses answer. */
  readonly outgoing?: OutgoingRequests | undefined
  /** Messages no request waits for that may wait to be written (default {@link Outbox.defaultMax}). */
  readonly maxWaiting?: number
  /** Called whenever a request in flight has been answered (or interrupted). */
  readonly onSettled?: () => void
  /**
   * Takes every refusal of a frame that never became a request in flight (not JSON-RPC, a
   * duplicate id) instead of the peer writing it from a fiber of its own: a transport that
   * faces a hostile peer counts them, ends the connection past a budget and writes the refusals
   * through one bounded writer (the client does). `frame` is the text refused.
   */
  readonly refuse?: (id: Envelope.RequestId | null, error: McpError, frame: string) => void
}

const duplicate = (): InvalidRequest => new InvalidRequest({ message: "Invalid request: id is already in flight" })

/** A write the channel refused is dropped: the peer is closing, or its sink failed (and said so). */
const ignoreFailure = () => Effect.void

/**
 * Opens a peer whose requests live in the current scope: closing it interrupts them, and nothing
 * more is written.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options): Effect.fn.Return<Peer, never, Scope.Scope> {
  // Made first, so that its release (interrupting what is left) runs after `closed` is set below.
  const inFlight = yield* InFlight.make
  const services = (yield* Effect.context<never>()) as Context.Context<never>
  const forkHere = Effect.runForkWith(services)
  let closed = false
  let inFlightChars = 0

  const write = (frame: string): Effect.Effect<void> => Effect.catch(options.sink.write(frame), ignoreFailure)
  const writeAll = (frames: string | ReadonlyArray<string>): Effect.Effect<void> =>
    typeof frames === "string" ? write(frames) : Effect.forEach(frames, write, { discard: true })
  /** The sink's synchronous writer, where it has one (`FrameWriter`, an HTTP exchange). */
  const offerUnsafe = options.sink.offer
  /**
   * Hands a frame to the sink now; `undefined` once it took it, else what completes when it does
   * (a writer past its bounds makes the request wait, as `write` does). A sink that can no longer
   * write drops it, as a failed `write` is ignored.
   */
  const offered = (offer: NonNullable<RequestSink["offer"]>, frame: string): Effect.Effect<void> | undefined => {
    let taken = false
    let wake: ((effect: Effect.Effect<void>) => void) | undefined
    const accepted = offer(frame, () => {
      taken = true
      wake?.(Effect.void)
    })
    if (!accepted || taken) return undefined
    return Effect.callback<void>((resume) => {
      if (taken) resume(Effect.void)
      else wake = resume
    })
  }
  /** Writes a request's answer: at once where the sink can take it synchronously. */
  const deliver = (frames: string | ReadonlyArray<string> | undefined): Effect.Effect<void> | undefined => {
    if (frames === undefined) return undefined
    const offer = offerUnsafe
    if (offer === undefined) return writeAll(frames)
    if (typeof frames === "string") return offered(offer, frames)
    let waits: Array<Effect.Effect<void>> | undefined
    for (const frame of frames) {
      const wait = offered(offer, frame)
      if (wait !== undefined) (waits ??= []).push(wait)
    }
    return waits === undefined ? undefined : Effect.all(waits, { discard: true })
  }
  /** Writes from outside a fiber (refusals of frames that are not requests in flight): no fiber where the sink can. */
  const writeUnsafe = (context: Context.Context<never>, frame: string): void => {
    if (closed) return
    if (offerUnsafe !== undefined) offerUnsafe(frame)
    else Effect.runForkWith(context)(write(frame))
  }
  const outbox = Outbox.makeUnsafe({
    write: (frames, written) => void forkHere(Effect.ensuring(writeAll(frames), Effect.sync(written))),
    ...(options.maxWaiting === undefined ? {} : { max: options.maxWaiting })
  })

  const refuse = (context: Context.Context<never>, id: Envelope.RequestId | null, error: McpError, frame: string): void => {
    if (options.refuse !== undefined) return options.refuse(id, error, frame)
    writeUnsafe(context, options.reject(id, error))
  }

  const requests: Requests = { inFlight, duplicates: "refuse" }
  const channel: Channel<string | ReadonlyArray<string> | undefined> = { complete: deliver }
  const onRequest = (context: Context.Context<never>, request: Envelope.Request, frame: string): void => {
    const served = serve(requests, "", request.id, () => options.onRequest(request, context), channel, context)
    if (served === "answered") return
    if (served === "refused") return refuse(context, request.id, duplicate(), frame)
    const chars = frame.length
    inFlightChars += chars
    served.addObserver(() => {
      inFlightChars -= chars
      options.onSettled?.()
    })
  }

  const routes: Routes = {
    cancels: { inFlight, scope: "" },
    responses: options.outgoing,
    notification: options.onNotification
  }

  /** Handles a frame; `context` holds the services a request runs with. */
  const receiveWith = (context: Context.Context<never>, frame: string): void => {
    if (closed) return
    const message = Envelope.decode(frame)
    switch (message._tag) {
      case "Request":
        return onRequest(context, message, frame)
      case "Notification":
      case "Response":
        return accept(message, routes)
      case "Invalid":
        return refuse(context, message.id, message.error, frame)
      case "Ignored":
        return
    }
  }

  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      closed = true
      outbox.close()
    })
  )

  return {
    receive: (frame) => Effect.withFiber((fiber) => Effect.sync(() => receiveWith(fiber.context, frame))),
    receiveUnsafe: (frame) => receiveWith(services, frame),
    offer: (frame) => !closed && outbox.offer(frame),
    writeUnsafe: (frame) => writeUnsafe(services, frame),
    drain: inFlight.awaitEmpty,
    inFlightUnsafe: inFlight.size,
    inFlightCharsUnsafe: () => inFlightChars
  }
})

/**
 * The frame answering something that never became a request (`"id": null`), for a transport
 * that refuses a frame before a peer sees it (a line too long, invalid UTF-8).
 *
 * @category constructors
 * @since 0.1.0
 */
export const rejectFrame = (error: McpError): string => Encoder.error(null, toWire(error))
