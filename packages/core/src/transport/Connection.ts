/**
 * A bidirectional message connection (stdio, the in-memory test transport): the part both share.
 *
 * A connection receives frames, answers each request exactly once from its own fiber, honours
 * `notifications/cancelled` by interrupting the target request's fiber (matched per connection;
 * unknown or finished ids are ignored), never answers notifications or response objects, and on
 * close drains (or interrupts) whatever is in flight. It holds at most `maxSubscriptions` listen
 * streams (the runtime refuses more with -32603), writes the frame that ends a stream on this
 * shared channel right after the response that closed it, and `end` closes its streams gracefully
 * before draining. It knows framing and lifetimes, not MCP semantics: those live in
 * {@link ServerRuntime}.
 *
 * @since 0.1.0
 */
import { Effect, FiberMap, Scope } from "effect"
import * as Encoder from "../pipeline/Encoder.ts"
import * as Envelope from "../pipeline/Envelope.ts"
import { InvalidRequest, type McpError, toWire } from "../pipeline/McpError.ts"
import * as Listen from "../runtime/Listen.ts"
import type { TransportKind } from "../runtime/McpRequest.ts"
import type { RequestSink } from "../runtime/RequestSink.ts"
import { ServerRuntime } from "../runtime/ServerRuntime.ts"

/** @since 0.1.0 */
export interface Connection {
  /** Handles one frame. Requests run in their own fibers; this returns once they are started. */
  readonly receive: (frame: string) => Effect.Effect<void>
  /** Waits until every request in flight has been answered (an open listen stream never is). */
  readonly drain: Effect.Effect<void>
  /** Ends the connection's listen streams gracefully, then drains. */
  readonly end: Effect.Effect<void>
  /** Requests currently in flight. */
  readonly inFlight: Effect.Effect<number>
}

/**
 * The frame answering something that never became a request (`"id": null`).
 *
 * @since 0.1.0
 */
export const rejectFrame = (error: McpError): string => Encoder.error(null, toWire(error))

/**
 * Opens a connection whose requests live in the current scope (closing it interrupts them).
 *
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: {
  readonly transport: TransportKind
  /** The connection's serialized writer; completes once the frame is written. */
  readonly sink: RequestSink
  /** Open listen streams at once (default 32). */
  readonly maxSubscriptions?: number
}): Effect.fn.Return<Connection, never, ServerRuntime | Scope.Scope> {
  const runtime = yield* ServerRuntime
  const requests = yield* FiberMap.make<string, void, never>()
  const subscriptions = Listen.makeStreams(options.maxSubscriptions ?? Listen.defaultStdioStreams)
  const context = { transport: options.transport, sink: options.sink, subscriptions }
  const write = (frame: string) => Effect.ignore(options.sink.write(frame))

  const onRequest = (request: Envelope.Request): Effect.Effect<void> => {
    const key = Encoder.idKey(request.id)
    return FiberMap.has(requests, key).pipe(
      Effect.flatMap((busy) =>
        busy
          ? write(runtime.reject(request.id, new InvalidRequest({ message: "Invalid request: id is already in flight" })).frame)
          : FiberMap.run(requests, key, { startImmediately: true })(
            runtime.handle(request, context).pipe(Effect.flatMap((outcome) =>
              outcome.streamEnd === undefined ? write(outcome.frame) : Effect.andThen(write(outcome.frame), write(outcome.streamEnd))
            ))
          ).pipe(Effect.asVoid)
      )
    )
  }

  const onNotification = (notification: Envelope.Notification): Effect.Effect<void> => {
    if (notification.method !== "notifications/cancelled") return Effect.void
    const id = notification.params["requestId"]
    return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id))
      ? FiberMap.remove(requests, Encoder.idKey(id))
      : Effect.void
  }

  const receive = (frame: string): Effect.Effect<void> => {
    const message = Envelope.decode(frame)
    switch (message._tag) {
      case "Request":
        return onRequest(message)
      case "Notification":
        return onNotification(message)
      case "Invalid":
        return write(runtime.reject(message.id, message.error).frame)
      case "Response":
      case "Ignored":
        return Effect.void
    }
  }

  return {
    receive,
    drain: FiberMap.awaitEmpty(requests),
    end: Effect.andThen(Effect.sync(() => subscriptions.closeAll()), FiberMap.awaitEmpty(requests)),
    inFlight: FiberMap.size(requests)
  }
})
