/**
 * One HTTP request/response exchange for one JSON-RPC request: how the answer is delivered.
 *
 * The response stays undecided until the handler either finishes (a plain `application/json`
 * response) or writes its first request-scoped notification (progress, a log message): only then
 * does the response become a `text/event-stream`, with that notification as its first event and
 * the terminal JSON-RPC response as its last. A sink write completes once the stream handed the
 * event to the connection, so every notification precedes the response on the wire.
 *
 * Whatever ends the exchange first wins, and nothing is written after it: the handler's outcome,
 * the deadline (504, or a terminal -32603 event inside an open stream), a cancellation (no
 * JSON-RPC message at all), or the client going away (the handler's fiber is interrupted and its
 * finalizers run).
 *
 * @since 0.1.0
 */
import { type Cause, Deferred, Effect, Exit, type Fiber, Queue, Stream } from "effect"
import * as Encoder from "@snodo/core/pipeline/Encoder"
import type { RequestId } from "@snodo/core/pipeline/Envelope"
import { type RequestSink, SinkClosed } from "@snodo/core/runtime/RequestSink"
import type { Outcome } from "@snodo/core/runtime/ServerRuntime"
import type { HttpServerResponse } from "effect/http"
import * as Replies from "./Replies.ts"

/** How the exchange is answered, decided by whatever happens first. @since 0.1.0 */
export type First =
  | { readonly _tag: "Json"; readonly status: number; readonly frame: string }
  | { readonly _tag: "Stream"; readonly body: Stream.Stream<Uint8Array> }
  | { readonly _tag: "Cancelled" }

interface Event {
  readonly bytes: Uint8Array
  readonly written: Deferred.Deferred<void, SinkClosed> | undefined
}

const encoder = new TextEncoder()
const event = (frame: string): Uint8Array => encoder.encode(`data: ${frame}\n\n`)

const Pending = 0
const Streaming = 1
const Ended = 2

const closed = Effect.fail(new SinkClosed({ message: "The HTTP response has ended" }))

/**
 * The state of one exchange. The runtime's handler runs in `fiber`, outside the request fiber.
 *
 * @since 0.1.0
 */
export class Exchange {
  readonly id: RequestId
  readonly first: Deferred.Deferred<First> = Deferred.makeUnsafe<First>()
  /** Where notifications go; `undefined` when the request asked for none (no progress token, no log level). */
  readonly sink: RequestSink | undefined
  fiber: Fiber.Fiber<unknown> | undefined = undefined
  private state = Pending
  private readonly queue: Queue.Queue<Event, Cause.Done> | undefined

  constructor(id: RequestId, queue: Queue.Queue<Event, Cause.Done> | undefined) {
    this.id = id
    this.queue = queue
    this.sink = queue === undefined ? undefined : { write: (frame) => this.write(frame) }
  }

  private write(frame: string): Effect.Effect<void, SinkClosed> {
    const queue = this.queue!
    if (this.state === Ended) return closed
    const written = Deferred.makeUnsafe<void, SinkClosed>()
    Queue.offerUnsafe(queue, { bytes: event(frame), written })
    if (this.state === Pending) {
      this.state = Streaming
      const body = Stream.fromQueue(queue).pipe(Stream.map((item) => {
        if (item.written !== undefined) Deferred.doneUnsafe(item.written, Exit.void)
        return item.bytes
      }))
      Deferred.doneUnsafe(this.first, Exit.succeed<First>({ _tag: "Stream", body }))
    }
    return Deferred.await(written)
  }

  /** Ends an open stream, with a last event or without one. */
  private end(frame: string | undefined): void {
    const queue = this.queue!
    if (frame !== undefined) Queue.offerUnsafe(queue, { bytes: event(frame), written: undefined })
    Queue.endUnsafe(queue)
  }

  /** Settles the exchange; `false` when something else already did. */
  private settle(pending: First, frame: string | undefined): boolean {
    const state = this.state
    if (state === Ended) return false
    this.state = Ended
    if (state === Pending) Deferred.doneUnsafe(this.first, Exit.succeed(pending))
    else this.end(frame)
    return true
  }

  /** The handler's outcome. */
  complete(outcome: Outcome): void {
    this.settle({ _tag: "Json", status: outcome._tag === "Result" ? 200 : Replies.statusOf(outcome.code), frame: outcome.frame }, outcome.frame)
  }

  /** The deadline passed: the handler is interrupted and the client told so. */
  expire(): void {
    const frame = Encoder.error(this.id, { code: -32603, message: "Request deadline exceeded" })
    if (this.settle({ _tag: "Json", status: 504, frame }, frame)) this.interrupt()
  }

  /** The client cancelled (`notifications/cancelled`): no JSON-RPC message is written for it. */
  cancel(): void {
    if (this.settle({ _tag: "Cancelled" }, undefined)) this.interrupt()
  }

  /** The request is over (answered, or the client went away): stop the handler, close the sink. */
  close(): void {
    if (this.state === Streaming) this.end(undefined)
    this.state = Ended
    this.interrupt()
  }

  private interrupt(): void {
    const fiber = this.fiber
    if (fiber !== undefined && fiber.pollUnsafe() === undefined) fiber.interruptUnsafe()
  }
}

/**
 * A new exchange; `notifications` says whether the request can receive any (it carried a
 * progress token or a log level), so that plain requests allocate no queue.
 *
 * @since 0.1.0
 */
export const make = (id: RequestId, notifications: boolean): Effect.Effect<Exchange> =>
  notifications
    ? Effect.map(Queue.unbounded<Event, Cause.Done>(), (queue) => new Exchange(id, queue))
    : Effect.sync(() => new Exchange(id, undefined))

const emptyStream = Replies.eventStream(Stream.empty)

/**
 * The HTTP response of an exchange, once its first event is known: plain JSON, the SSE stream, or
 * an empty stream when the request was cancelled before anything was written.
 *
 * @since 0.1.0
 */
export const response = (exchange: Exchange): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.map(Deferred.await(exchange.first), (first) => {
    switch (first._tag) {
      case "Json":
        return Replies.json(first.frame, first.status)
      case "Stream":
        return Replies.eventStream(first.body)
      case "Cancelled":
        return emptyStream
    }
  })
