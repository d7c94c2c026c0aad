/**
 * A server's side of a bidirectional message connection (stdio, a socket, the in-memory test
 * transport): a {@link Peer} whose requests the server's pipeline answers.
 *
 * The peer answers each request exactly once from its own fiber, honours `notifications/cancelled`
 * by interrupting the target request's fiber, refuses a request whose id is already in flight
 * (-32600), never answers notifications or responses, and on close interrupts whatever is in
 * flight. This module adds what a server needs of a connection: at most `maxSubscriptions` listen
 * streams (the runtime refuses more with -32603), the frame that ends a stream written on this
 * shared channel right after the response that closed it, and `end` closing its streams gracefully
 * before draining.
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
 * // inside a scope, with the ServerRuntime provided: a transport of one's own
 * const connection = yield* Connection.make({ transport: "tcp", sink })
 * socket.on("line", (line) => connection.receiveUnsafe(line))
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Scope } from "effect"
import * as Listen from "../runtime/Listen.ts"
import type { TransportKind } from "../runtime/McpRequest.ts"
import type { RequestContext } from "../runtime/RequestContext.ts"
import * as Session from "../runtime/Session.ts"
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
   * Handles one frame. Requests run in their own fibers, with the caller's services; this returns
   * once they are started.
   */
  readonly receive: (frame: string) => Effect.Effect<void>
  /**
   * {@link Connection.receive} outside any fiber, for a transport's input callback: decodes the
   * frame and starts its request's fiber (with the services of the scope that made the
   * connection) before returning.
   */
  readonly receiveUnsafe: (frame: string) => void
  /** Waits until every request in flight has been answered (an open listen stream never is). */
  readonly drain: Effect.Effect<void>
  /** Ends the connection's listen streams gracefully, then drains. */
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
}): Effect.fn.Return<Connection, never, ServerRuntime | Scope.Scope> {
  const runtime = yield* ServerRuntime
  const scope = yield* Scope.Scope
  const subscriptions = Listen.makeStreams(options.maxSubscriptions ?? Listen.defaultStdioStreams)
  // Only a server that enables an initialize-era dialect keeps a session per connection; its
  // notifications (list changes, resource updates) go through the peer's bounded outbox.
  let offer: (frame: string) => boolean = () => false
  const outgoing = runtime.dialects.legacy.length === 0 ? undefined : OutgoingRequests.make()
  const session = outgoing === undefined ? undefined : Session.makeUnsafe({ outbound: (frame) => void offer(frame), requests: outgoing })
  const context: RequestContext = session === undefined
    ? { transport: options.transport, sink: options.sink, subscriptions }
    : { transport: options.transport, sink: options.sink, subscriptions, session }
  // Runs after the peer's own finalizer (finalizers run in reverse): waiting server-to-client requests fail.
  if (session !== undefined) yield* Scope.addFinalizer(scope, session.end)
  const peer = yield* Peer.make({
    sink: options.sink,
    onRequest: (request) => Effect.map(runtime.handle(request, context), framesOf),
    reject: (id, error) => runtime.reject(id, error).frame,
    onNotification: (notification) => {
      if (notification.method === "notifications/initialized") session?.markInitialized()
    },
    outgoing,
    ...(options.onSettled === undefined ? {} : { onSettled: options.onSettled })
  })
  offer = peer.offer
  return {
    receive: peer.receive,
    receiveUnsafe: peer.receiveUnsafe,
    drain: peer.drain,
    end: Effect.andThen(Effect.sync(() => subscriptions.closeAll()), peer.drain),
    inFlight: Effect.sync(peer.inFlightUnsafe),
    inFlightUnsafe: peer.inFlightUnsafe,
    inFlightCharsUnsafe: peer.inFlightCharsUnsafe
  }
})
