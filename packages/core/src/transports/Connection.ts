/**
 * A bidirectional message connection (stdio, the in-memory test transport): the part both share.
 *
 * A connection receives frames, answers each request exactly once from its own fiber, honours
 * `notifications/cancelled` by interrupting the target request's fiber (matched per connection;
 * unknown or finished ids are ignored), refuses a request whose id is already in flight (-32600),
 * never answers notifications or response objects, and on close drains (or interrupts) whatever is
 * in flight. It holds at most `maxSubscriptions` listen streams (the runtime refuses more with
 * -32603), writes the frame that ends a stream on this shared channel right after the response that
 * closed it, and `end` closes its streams gracefully before draining. It knows framing and
 * lifetimes, not MCP semantics: those live in {@link ServerRuntime}.
 *
 * When the server enables an initialize-era dialect the connection is that era's session
 * (runtime/Session): every request carries it, `notifications/initialized` marks it, the responses
 * the client sends answer the server-to-client requests of its handlers, and the hub's changes it
 * follows are written on this channel. Closing the connection ends the session.
 *
 * A request's fiber is started synchronously by `receiveUnsafe` (a transport calls it straight
 * from its input callback, no fiber in between) or `receive`. One that answers without suspending
 * is done there; one that suspends is kept in a `FiberMap` by id until it exits, and closing the
 * connection's scope interrupts whatever is left.
 *
 * @since 0.1.0
 */
import { Effect, FiberMap, Option, Scope } from "effect"
import type { Context } from "effect"
import * as Encoder from "../pipeline/Encoder.ts"
import * as Envelope from "../pipeline/Envelope.ts"
import { InvalidRequest, type McpError, toWire } from "../pipeline/McpError.ts"
import * as Listen from "../runtime/Listen.ts"
import type { TransportKind } from "../runtime/McpRequest.ts"
import type { RequestSink } from "../runtime/RequestSink.ts"
import * as ClientRequests from "../runtime/ClientRequests.ts"
import { type Outcome, type RequestContext, ServerRuntime } from "../server/ServerRuntime.ts"
import * as Session from "../runtime/Session.ts"

/** @since 0.1.0 */
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
 * @since 0.1.0
 */
export const rejectFrame = (error: McpError): string => Encoder.error(null, toWire(error))

const duplicate = new InvalidRequest({ message: "Invalid request: id is already in flight" })

/**
 * Opens a connection whose requests live in the current scope (closing it interrupts them).
 *
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
  // Made first, so that its release (interrupting what is left) runs after `closed` is set below.
  const requests = yield* FiberMap.make<string, void, never>()
  const services = (yield* Effect.context<never>()) as Context.Context<never>
  const forkHere = Effect.runForkWith(services)
  const subscriptions = Listen.makeStreams(options.maxSubscriptions ?? Listen.defaultStdioStreams)
  let closed = false
  // What the requests in flight hold, for the transport's read backpressure.
  let inFlight = 0
  let inFlightChars = 0
  // Only a server that enables an initialize-era dialect keeps a session per connection. Its
  // notifications (list changes, resource updates) are dropped beyond 64 waiting to be written.
  let notifying = 0
  const notify = (frame: string): void => {
    if (closed || notifying >= Session.maxWaitingNotifications) return
    notifying++
    forkHere(Effect.ensuring(write(frame), Effect.sync(() => void notifying--)))
  }
  const session = runtime.dialects.legacy.length === 0
    ? undefined
    : Session.make({ outbound: notify, requests: ClientRequests.make() })
  const context: RequestContext = session === undefined
    ? { transport: options.transport, sink: options.sink, subscriptions }
    : { transport: options.transport, sink: options.sink, subscriptions, session }

  const write = (frame: string): Effect.Effect<void> => Effect.ignore(options.sink.write(frame))
  const respond = (outcome: Outcome): Effect.Effect<void> =>
    outcome.streamEnd === undefined ? write(outcome.frame) : Effect.andThen(write(outcome.frame), write(outcome.streamEnd))
  type Fork = typeof forkHere
  /** Writes from outside a fiber (refusals of frames that are not requests in flight). */
  const writeUnsafe = (fork: Fork, frame: string): void => {
    if (!closed) fork(write(frame))
  }

  const onRequest = (fork: Fork, request: Envelope.Request, chars: number): void => {
    const key = Encoder.idKey(request.id)
    if (FiberMap.hasUnsafe(requests, key)) return writeUnsafe(fork, runtime.reject(request.id, duplicate).frame)
    const fiber = fork(Effect.flatMap(runtime.handle(request, context), respond))
    if (fiber.pollUnsafe() !== undefined) return // answered without suspending
    FiberMap.setUnsafe(requests, key, fiber) // removed when it exits
    inFlight++
    inFlightChars += chars
    fiber.addObserver(() => {
      inFlight--
      inFlightChars -= chars
      options.onSettled?.()
    })
  }

  const onNotification = (notification: Envelope.Notification): void => {
    if (notification.method === "notifications/initialized") return session?.markInitialized()
    if (notification.method !== "notifications/cancelled") return
    const id = notification.params["requestId"]
    if (typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id))) {
      const target = FiberMap.getUnsafe(requests, Encoder.idKey(id))
      if (Option.isSome(target)) target.value.interruptUnsafe()
    }
  }

  /** Handles a frame; `fork` starts fibers with the services a request runs with. */
  const receiveWith = (fork: Fork, frame: string): void => {
    if (closed) return
    const message = Envelope.decode(frame)
    switch (message._tag) {
      case "Request":
        return onRequest(fork, message, frame.length)
      case "Notification":
        return onNotification(message)
      case "Invalid":
        return writeUnsafe(fork, runtime.reject(message.id, message.error).frame)
      case "Response":
        return void session?.requests?.receive(message)
      case "Ignored":
        return
    }
  }

  // Runs after `closed` is set (finalizers run in reverse): waiting server-to-client requests fail.
  if (session !== undefined) yield* Scope.addFinalizer(scope, session.end)
  yield* Scope.addFinalizer(scope, Effect.sync(() => void (closed = true)))

  return {
    receive: (frame) => Effect.withFiber((fiber) => Effect.sync(() => receiveWith(Effect.runForkWith(fiber.context), frame))),
    receiveUnsafe: (frame) => receiveWith(forkHere, frame),
    drain: FiberMap.awaitEmpty(requests),
    end: Effect.andThen(Effect.sync(() => subscriptions.closeAll()), FiberMap.awaitEmpty(requests)),
    inFlight: FiberMap.size(requests),
    inFlightUnsafe: () => inFlight,
    inFlightCharsUnsafe: () => inFlightChars
  }
})
