/**
 * The {@link Exchange.Delivery} of Effect's HTTP server: the exchange's answer as an
 * `HttpServerResponse`, known once the exchange settles or opens its stream.
 *
 * A settled exchange becomes a plain JSON response; an opened one a `text/event-stream` whose
 * body is fed from a bounded `Mailbox` (the handler's writes wait for the stream to take each
 * event, so it holds at most the events in flight plus the last one). Past {@link maxEvents}
 * events or {@link maxEventBytes} bytes waiting (one event alone always fits), the stream ends
 * (`"close"`): the client reads too slowly for what its request writes, and the exchange ends
 * with it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as EffectResponse from "@snodo/http/EffectResponse"
 *
 * const program = Effect.gen(function*() {
 *   const { delivery, response } = yield* EffectResponse.make(false)
 *   delivery.settle(undefined)
 *   return yield* response // an empty event stream
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Deferred, Effect, Exit, Stream } from "effect"
import type { HttpServerResponse } from "effect/http"
import * as Mailbox from "@snodo/protocol/peer/Mailbox"
import type { Delivery } from "./Exchange.ts"
import * as Replies from "./Replies.ts"

interface Event {
  readonly bytes: Uint8Array
  readonly written: (() => void) | undefined
}

const encoder = new TextEncoder()
const emptyStream = Replies.eventStream(Stream.empty)
const noEvents = (): never => {
  throw new Error("This exchange asked for no notifications")
}

/**
 * Events one event stream may hold waiting for the connection before it ends.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxEvents = 1024

/**
 * Bytes of the events one event stream may hold waiting for the connection before it ends
 * (64 MiB, as the HTTP server's bodies being read; one event alone always fits).
 *
 * @category constants
 * @since 0.1.0
 */
export const maxEventBytes = 64 * 1024 * 1024

/**
 * A delivery and the response it will produce.
 *
 * @category models
 * @since 0.1.0
 */
export interface EffectResponse {
  readonly delivery: Delivery
  readonly response: Effect.Effect<HttpServerResponse.HttpServerResponse>
}

/**
 * A new delivery; `notifications` says whether the exchange can stream, so that plain requests
 * allocate no queue.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (notifications: boolean): Effect.Effect<EffectResponse> =>
  Effect.sync(() => {
    const queue = notifications
      ? Mailbox.makeUnsafe<Event>({ capacity: maxEvents, maxChars: maxEventBytes, charsOf: (event) => event.bytes.length, overflow: "close" })
      : undefined
    const first = Deferred.makeUnsafe<HttpServerResponse.HttpServerResponse>()
    const delivery: Delivery = {
      settle: (reply) => Deferred.doneUnsafe(first, Exit.succeed(reply === undefined ? emptyStream : Replies.toResponse(reply))),
      open: () => {
        if (queue === undefined) return noEvents()
        // Each pull takes what waits (at least one event), as a queue's stream would.
        const pull = Effect.map(queue.take, (event): readonly [Event, ...Array<Event>] => {
          const events: [Event, ...Array<Event>] = [event]
          for (let next = queue.poll(); next !== undefined; next = queue.poll()) events.push(next)
          return events
        })
        const body = Stream.fromPull(Effect.succeed(pull)).pipe(Stream.map((item) => {
          item.written?.()
          return item.bytes
        }))
        Deferred.doneUnsafe(first, Exit.succeed(Replies.eventStream(body)))
      },
      event: (text, written) => {
        if (queue === undefined) return noEvents()
        queue.offer({ bytes: encoder.encode(text), written })
      },
      end: () => {
        queue?.end()
      }
    }
    return { delivery, response: Deferred.await(first) }
  })
