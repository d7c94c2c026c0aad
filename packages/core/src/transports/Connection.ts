/**
 * A server's side of a bidirectional message connection (stdio, a socket, the in-memory test
 * transport): a {@link Peer} whose requests the server's pipeline answers.
 *
 * The peer answers each request exactly once (one the pipeline completes without suspending at
 * once, with no fiber: the connection names the caller in the request context; any other from a
 * fiber of its own), honours `notifications/cancelled` by interrupting the target request's fiber,
 * refuses a request whose id is already in flight
 * (-32600), never answers notifications or responses, and on close interrupts whatever is in
 * flight. This module adds what a server needs of a connection: at most `maxSubscriptions` listen
 * streams (the runtime refuses more with -32603), the frame that ends a stream written on this
 * shared channel right after the response that closed it, and `end` closing its streams gracefully
 * before draining.
 *
 * **Read backpressure** lives here too, so that a transport of one's own gets it: made with
 * `backpressure`, the connection stops taking input while `maxInFlight` requests are in flight or
 * their frames plus the transport's output waiting reach `maxPendingChars` characters. A frame
 * received past the bounds is held (in order, with the refusals of {@link Connection.rejectUnsafe});
 * once the held input reaches `maxHeldChars` characters, `pause` is called: a push transport stops
 * reading there (Node's `socket.pause()`), a pull
 * transport awaits {@link Connection.ready} before its next read. Each answer, and each write the
 * transport reports with {@link Connection.writtenUnsafe}, looks again; once the held frames are
 * handled under the bounds, `resume` is called and `ready` completes. A peer that sends without
 * reading its answers fills its own pipe, not the server's memory. Frames that free capacity rather
 * than take it are not held behind the requests: a `notifications/cancelled` (of a request in
 * flight, or of one still held, which then never starts and is never answered) and a response to
 * a request of the server's own (a 2025-11-25 session's elicitation or sampling) are handled as
 * soon as they are read, so a client can still cancel what it waits for, and a handler waiting
 * for the client's answer gets it, while the server is at its bounds.
 *
 * When the server enables an initialize-era dialect the connection is that era's session
 * (runtime/Session): every request carries it, `notifications/initialized` marks it, the responses
 * the client sends answer the server-to-client requests of its handlers, and the hub's changes it
 * follows go through the peer's bounded outbox. Closing the connection ends the session.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Connection from "@snodo/core/transport/Connection"
 *
 * // inside a scope, with the ServerRuntime provided: a transport of one's own, on a socket
 * const writer = FrameWriter.make(
 *   { write: (text, done) => void socket.write(text, done) },
 *   { queue: 1024, queueChars: 256 * 1024, stallMillis: 5000, onFail: () => socket.destroy(), onWritten: () => connection.writtenUnsafe() }
 * )
 * const connection = yield* Connection.make({
 *   transport: "tcp",
 *   sink: writer,
 *   backpressure: { pendingOutput: writer.pendingChars, pause: () => socket.pause(), resume: () => socket.resume() }
 * })
 * socket.on("line", (line) => connection.receiveUnsafe(line))
 * ```
 *
 * @since 0.1.0
 */
import { type Context, Effect, Latch, Scope } from "effect"
import type { McpError } from "@snodo/protocol/jsonrpc/McpError"
import * as Immediate from "@snodo/protocol/peer/Immediate"
import * as Listen from "../runtime/Listen.ts"
import { fromContext } from "../runtime/Principal.ts"
import type { TransportKind } from "../runtime/McpRequest.ts"
import type { RequestContext } from "../runtime/RequestContext.ts"
import * as Session from "../runtime/Session.ts"
import * as Encoder from "@snodo/protocol/jsonrpc/Encoder"
import * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import * as OutgoingRequests from "@snodo/protocol/peer/OutgoingRequests"
import * as Peer from "@snodo/protocol/peer/Peer"
import type { RequestSink } from "@snodo/protocol/peer/RequestSink"
import { type Outcome, ServerRuntime } from "../server/ServerRuntime.ts"

/**
 * @category models
 * @since 0.1.0
 */
export interface Connection {
  /**
   * Handles one frame. Requests run with the caller's services (in fibers of their own unless
   * they complete without suspending); this returns once they are answered or started. Under read backpressure a frame past the bounds is held as
   * {@link Connection.receiveUnsafe} holds it (and runs with the connection's services).
   */
  readonly receive: (frame: string) => Effect.Effect<void>
  /**
   * {@link Connection.receive} outside any fiber, for a transport's input callback: decodes the
   * frame and answers its request, or starts its fiber (with the services of the scope that made
   * the connection), before returning. Under read backpressure, a frame received past the bounds (or
   * behind frames held already) is held until they allow it.
   */
  readonly receiveUnsafe: (frame: string) => void
  /**
   * Answers something that never became a frame (a line too long, invalid UTF-8) with an error of
   * `"id": null`, in order with the frames received before it.
   */
  readonly rejectUnsafe: (error: McpError) => void
  /**
   * Tells the connection its transport wrote output (what `pendingOutput` counts shrank): held
   * frames are handled if the bounds allow now. A `FrameWriter`'s `onWritten`.
   */
  readonly writtenUnsafe: () => void
  /**
   * Completes once the connection reads input again (at once unless the held input reached
   * `maxHeldChars`): a pull transport awaits it before each read.
   */
  readonly ready: Effect.Effect<void>
  /** Whether the read backpressure holds input now (reading may still go on below `maxHeldChars`). */
  readonly pausedUnsafe: () => boolean
  /** Waits until every request in flight has been answered (an open listen stream never is). */
  readonly drain: Effect.Effect<void>
  /** Handles the frames still held (input ended: nothing would resume them), ends the listen streams gracefully, then drains. */
  readonly end: Effect.Effect<void>
  /** Requests currently in flight. */
  readonly inFlight: Effect.Effect<number>
  /** {@link Connection.inFlight} outside any fiber (a transport's read backpressure). */
  readonly inFlightUnsafe: () => number
  /** Characters of the frames of the requests in flight (what they hold of their input). */
  readonly inFlightCharsUnsafe: () => number
}

/**
 * The frame answering something that never became a request (`"id": null`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const rejectFrame = Peer.rejectFrame

/**
 * The read backpressure of a connection: the bounds, what the transport's output adds to them,
 * and how the transport stops and resumes reading.
 *
 * @category models
 * @since 0.1.0
 */
export interface Backpressure {
  /** Requests in flight at which input is held until one is answered (default 64). */
  readonly maxInFlight?: number | undefined
  /**
   * Characters of the frames of the requests in flight plus `pendingOutput()` at which input is
   * held until they drain (default 1 Mi).
   */
  readonly maxPendingChars?: number | undefined
  /** Characters waiting in the transport's output (`FrameWriter`'s `pendingChars`); default none. */
  readonly pendingOutput?: (() => number) | undefined
  /**
   * Characters of held input at which reading stops (default 64 Ki): below it the transport keeps
   * reading, so that the cancellations and responses behind the held requests still arrive.
   */
  readonly maxHeldChars?: number | undefined
  /** Stops reading (Node: `stream.pause()`); called once when the held input reaches `maxHeldChars`. */
  readonly pause?: (() => void) | undefined
  /** Reads again (Node: `stream.resume()`); called once the held input is handled. */
  readonly resume?: (() => void) | undefined
}

/**
 * Defaults of the read backpressure: 64 requests in flight, 1 Mi characters pending (input in
 * flight and output waiting), reading stopped at 64 Ki characters of held input.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultBackpressure = { maxInFlight: 64, maxPendingChars: 1024 * 1024, maxHeldChars: 64 * 1024 } as const

/** A refusal held in order with the frames. */
interface Rejection {
  readonly rejection: string
}

const charsOf = (input: string | Rejection): number => typeof input === "string" ? input.length : input.rejection.length

/**
 * Whether a frame frees capacity rather than takes it: `true` for a response (to a request of the
 * server's own), the cancelled request's id for a `notifications/cancelled`, else `undefined`.
 * Only frames that can be one of them are decoded (most held frames are requests).
 */
const controlOf = (frame: string): true | { readonly cancels: unknown } | undefined => {
  const cancellation = frame.includes("notifications/cancelled")
  if (!cancellation && !frame.includes("\"result\"") && !frame.includes("\"error\"")) return undefined
  const message = Envelope.decode(frame)
  if (message._tag === "Response") return true
  if (message._tag === "Notification" && message.method === "notifications/cancelled") return { cancels: message.params["requestId"] }
  return undefined
}

const framesOf = (outcome: Outcome): string | ReadonlyArray<string> =>
  outcome.streamEnd === undefined ? outcome.frame : [outcome.frame, outcome.streamEnd]

/**
 * Opens a connection whose requests live in the current scope (closing it interrupts them).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: {
  readonly transport: TransportKind
  /** The connection's serialized writer; completes once the frame is accepted, in order. */
  readonly sink: RequestSink
  /** Open listen streams at once (default 32). */
  readonly maxSubscriptions?: number
  /** Called whenever a request in flight has been answered (or interrupted). */
  readonly onSettled?: () => void
  /** Read backpressure (none without it: every frame is handled as it comes). */
  readonly backpressure?: Backpressure | undefined
}): Effect.fn.Return<Connection, never, ServerRuntime | Scope.Scope> {
  const runtime = yield* ServerRuntime
  const scope = yield* Scope.Scope
  const subscriptions = Listen.makeStreams(options.maxSubscriptions ?? Listen.defaultStdioStreams)
  // Only a server that enables an initialize-era dialect keeps a session per connection; its
  // notifications (list changes, resource updates) go through the peer's bounded outbox.
  let offer: (frame: string) => boolean = () => false
  const outgoing = runtime.dialects.legacy.length === 0 ? undefined : OutgoingRequests.make()
  const session = outgoing === undefined ? undefined : Session.makeUnsafe({ outbound: (frame) => void offer(frame), requests: outgoing })
  // The request context names the caller as the request's fiber would see it (the services it
  // runs with, and their principal), so that the runtime answers a request that completes without
  // suspending at once, observed or not, and the peer writes it with no fiber.
  const contextFor = (of: Context.Context<never>): RequestContext =>
    session === undefined
      ? { transport: options.transport, sink: options.sink, subscriptions, principal: fromContext(of), services: of }
      : { transport: options.transport, sink: options.sink, subscriptions, session, principal: fromContext(of), services: of }
  // The connection's own services (`receiveUnsafe`'s), and the last caller's (`receive`'s), are
  // looked up once.
  let lastServices = yield* Effect.context<never>()
  let lastContext = contextFor(lastServices)
  const contextOf = (services: Context.Context<never>): RequestContext => {
    if (services !== lastServices) {
      lastContext = contextFor(services)
      lastServices = services
    }
    return lastContext
  }
  // Runs after the peer's own finalizer (finalizers run in reverse): waiting server-to-client requests fail.
  if (session !== undefined) yield* Scope.addFinalizer(scope, session.end)
  const bounds = options.backpressure
  const maxInFlight = bounds?.maxInFlight ?? defaultBackpressure.maxInFlight
  const maxPendingChars = bounds?.maxPendingChars ?? defaultBackpressure.maxPendingChars
  const maxHeldChars = bounds?.maxHeldChars ?? defaultBackpressure.maxHeldChars
  const pendingOutput = bounds?.pendingOutput ?? (() => 0)
  // Held input: frames and refusals received past the bounds, in order, from `next` on; a held
  // request cancelled before it started is `undefined`.
  let held: Array<string | Rejection | undefined> = []
  let next = 0
  let heldChars = 0
  /** Input is being held (the bounds were reached, or frames wait ahead of new ones). */
  let holding = false
  /** Reading stopped: the held input reached `maxHeldChars`. */
  let stopped = false
  let relieving = false
  const gate = Latch.makeUnsafe(true)
  const settled = bounds === undefined
    ? options.onSettled
    : () => {
      relieve()
      options.onSettled?.()
    }
  const peer = yield* Peer.make({
    sink: options.sink,
    onRequest: (request, services) => Immediate.map(runtime.handle(request, contextOf(services)), framesOf),
    reject: (id, error) => runtime.reject(id, error).frame,
    onNotification: (notification) => {
      if (notification.method === "notifications/initialized") session?.markInitialized()
    },
    outgoing,
    ...(settled === undefined ? {} : { onSettled: settled })
  })
  offer = peer.offer

  const overBounds = (): boolean =>
    peer.inFlightUnsafe() >= maxInFlight || peer.inFlightCharsUnsafe() + pendingOutput() >= maxPendingChars
  const handle = (input: string | Rejection | undefined): void => {
    if (input === undefined) return
    if (typeof input === "string") peer.receiveUnsafe(input)
    else peer.writeUnsafe(input.rejection)
  }
  const hold = (input: string | Rejection): void => {
    held.push(input)
    holding = true
    heldChars += charsOf(input)
    if (stopped || heldChars < maxHeldChars) return
    stopped = true
    gate.closeUnsafe()
    bounds?.pause?.()
  }
  /** A held request that a cancellation names never starts (and is never answered). */
  const dropHeld = (requestId: unknown): void => {
    const key = typeof requestId === "string" || typeof requestId === "number" ? Encoder.idKey(requestId) : undefined
    if (key === undefined) return
    for (let i = next; i < held.length; i++) {
      const input = held[i]
      if (typeof input !== "string") continue
      const message = Envelope.decode(input)
      if (message._tag !== "Request" || Encoder.idKey(message.id) !== key) continue
      held[i] = undefined
      heldChars -= input.length
    }
  }
  /** Frames that free capacity go past the held input (see the module's documentation). */
  const passes = (frame: string): boolean => {
    const control = controlOf(frame)
    if (control === undefined) return false
    if (control !== true) dropHeld(control.cancels)
    peer.receiveUnsafe(frame)
    relieve()
    return true
  }
  const take = (input: string | Rejection): void => {
    if (bounds === undefined) return handle(input)
    if (holding || overBounds()) {
      if (typeof input === "string" && passes(input)) return
      return hold(input)
    }
    handle(input)
  }
  /** Handles held input while under the bounds; once none is left, reading resumes. */
  function relieve(): void {
    if (!holding || relieving || overBounds()) return
    relieving = true
    while (next < held.length) {
      const input = held[next]
      if (input !== undefined) {
        if (overBounds()) break
        heldChars -= charsOf(input)
        handle(input)
      }
      next++
    }
    relieving = false
    if (next < held.length) return
    resumeReading()
  }
  const resumeReading = (): void => {
    held = []
    next = 0
    heldChars = 0
    holding = false
    if (!stopped) return
    stopped = false
    gate.openUnsafe()
    bounds?.resume?.()
  }
  /** Handles every held input at once (the input ended). */
  const release = Effect.sync(() => {
    while (next < held.length) handle(held[next++])
    resumeReading()
  })

  return {
    receive: bounds === undefined
      ? peer.receive
      : (frame) => Effect.suspend(() => holding || overBounds() ? Effect.sync(() => take(frame)) : peer.receive(frame)),
    receiveUnsafe: take,
    rejectUnsafe: (error) => take({ rejection: rejectFrame(error) }),
    writtenUnsafe: relieve,
    ready: gate.await,
    pausedUnsafe: () => holding,
    drain: peer.drain,
    end: release.pipe(Effect.andThen(Effect.sync(() => subscriptions.closeAll())), Effect.andThen(peer.drain)),
    inFlight: Effect.sync(peer.inFlightUnsafe),
    inFlightUnsafe: peer.inFlightUnsafe,
    inFlightCharsUnsafe: peer.inFlightCharsUnsafe
  }
})
