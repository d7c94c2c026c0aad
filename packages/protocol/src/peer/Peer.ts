/**
 * One JSON-RPC peer: the part of MCP that is the same for a server and a client and for every
 * transport. It knows ids, frames and lifetimes, not MCP methods.
 *
 * - **Requests from the other side** run in fibers of their own, started synchronously from the
 *   transport's input callback; one that suspends is kept in the {@link InFlight} map until it
 *   exits; a second request with an id already in flight is refused (-32600).
 * - **Notifications** are routed by {@link accept}: `notifications/cancelled` interrupts the
 *   request it names (matched within the peer's scope; unknown or finished ids are ignored), the
 *   rest go to the peer's handler (`notifications/initialized`, progress, changes).
 * - **Responses** answer the requests this peer sent ({@link OutgoingRequests}: numbered, bounded,
 *   with timeouts; a response to nothing pending is ignored).
 * - **Messages no request waits for** go through a bounded {@link Outbox}.
 *
 * A stream transport (stdio, a socket, an in-memory pipe) is an adapter around {@link make}: it
 * turns bytes into frames, calls `receiveUnsafe`, and owns the connection's lifetime. HTTP, whose
 * requests each bring their own response, uses the same parts one by one: an `InFlight` map for
 * the whole server, {@link accept} for posted notifications and responses, an `Outbox` per
 * session stream.
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
import { Effect, Scope } from "effect"
import type { Context } from "effect"
import * as Encoder from "../jsonrpc/Encoder.ts"
import * as Envelope from "../jsonrpc/Envelope.ts"
import { InvalidRequest, type McpError, toWire } from "../jsonrpc/McpError.ts"
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
 * @category models
 * @since 0.1.0
 */
export interface Peer {
  /** Handles one frame; requests run in fibers of their own, with the caller's services. */
  readonly receive: (frame: string) => Effect.Effect<void>
  /**
   * {@link Peer.receive} outside any fiber, for a transport's input callback: decodes the frame
   * and starts its request's fiber (with the services of the scope that made the peer) before
   * returning.
   */
  readonly receiveUnsafe: (frame: string) => void
  /** Writes a frame no request waits for, through the bounded outbox; `false` when dropped. */
  readonly offer: (frame: string) => boolean
  /**
   * Writes a frame from outside any fiber, with nothing waiting for it (the refusal of input that
   * never reached the peer: a line too long, invalid UTF-8): through the sink's `writeUnsafe`
   * where it has one, else from a fiber of its own; nothing once the peer is closed.
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
   * on this channel), or nothing. Interrupting it is cancellation: nothing is written.
   */
  readonly onRequest: (request: Envelope.Request) => Effect.Effect<string | ReadonlyArray<string> | undefined>
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
  const scope = yield* Scope.Scope
  // Made first, so that its release (interrupting what is left) runs after `closed` is set below.
  const inFlight = yield* InFlight.make
  const services = (yield* Effect.context<never>()) as Context.Context<never>
  const forkHere = Effect.runForkWith(services)
  type Fork = typeof forkHere
  let closed = false
  let inFlightChars = 0

  const write = (frame: string): Effect.Effect<void> => Effect.catch(options.sink.write(frame), ignoreFailure)
  const writeAll = (frames: string | ReadonlyArray<string> | undefined): Effect.Effect<void> =>
    frames === undefined ? Effect.void : typeof frames === "string" ? write(frames) : Effect.forEach(frames, write, { discard: true })
  /** Writes from outside a fiber (refusals of frames that are not requests in flight): no fiber where the sink can. */
  const sinkUnsafe = options.sink.writeUnsafe
  const writeUnsafe = (fork: Fork, frame: string): void => {
    if (closed) return
    if (sinkUnsafe !== undefined) sinkUnsafe(frame)
    else fork(write(frame))
  }
  const outbox = Outbox.makeUnsafe({
    write: (frames, written) => void forkHere(Effect.ensuring(writeAll(frames), Effect.sync(written))),
    ...(options.maxWaiting === undefined ? {} : { max: options.maxWaiting })
  })

  const refuse = (fork: Fork, id: Envelope.RequestId | null, error: McpError, frame: string): void => {
    if (options.refuse !== undefined) return options.refuse(id, error, frame)
    writeUnsafe(fork, options.reject(id, error))
  }

  const onRequest = (fork: Fork, request: Envelope.Request, frame: string): void => {
    // Nothing in flight (a sequential client, most requests of a burst): no id to collide with,
    // and no key to build and hash.
    if (inFlight.size() > 0 && inFlight.has("", request.id)) return refuse(fork, request.id, duplicate(), frame)
    const chars = frame.length
    const fiber = fork(Effect.flatMap(options.onRequest(request), writeAll))
    if (fiber.pollUnsafe() !== undefined) return // answered without suspending
    inFlight.add("", request.id, fiber)
    inFlightChars += chars
    fiber.addObserver(() => {
      inFlightChars -= chars
      options.onSettled?.()
    })
  }

  const routes: Routes = {
    cancels: { inFlight, scope: "" },
    responses: options.outgoing,
    notification: options.onNotification
  }

  /** Handles a frame; `fork` starts fibers with the services a request runs with. */
  const receiveWith = (fork: Fork, frame: string): void => {
    if (closed) return
    const message = Envelope.decode(frame)
    switch (message._tag) {
      case "Request":
        return onRequest(fork, message, frame)
      case "Notification":
      case "Response":
        return accept(message, routes)
      case "Invalid":
        return refuse(fork, message.id, message.error, frame)
      case "Ignored":
        return
    }
  }

  yield* Scope.addFinalizer(scope, Effect.sync(() => {
    closed = true
    outbox.close()
  }))

  return {
    receive: (frame) => Effect.withFiber((fiber) => Effect.sync(() => receiveWith(Effect.runForkWith(fiber.context), frame))),
    receiveUnsafe: (frame) => receiveWith(forkHere, frame),
    offer: (frame) => !closed && outbox.offer(frame),
    writeUnsafe: (frame) => writeUnsafe(forkHere, frame),
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
