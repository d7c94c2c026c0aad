/**
 * The {@link Exchange.Delivery} of Effect's HTTP server: the exchange's answer as an
 * `HttpServerResponse`, known once the exchange settles or opens its stream.
 *
 * A settled exchange becomes a plain JSON response; an opened one a `text/event-stream` whose
 * body is fed from an unbounded queue (the handler's writes wait for the stream to take each
 * event, so the queue holds at most the events in flight plus the last one).
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
import { type Cause, Deferred, Effect, Exit, Queue, Stream } from "effect"
import type { HttpServerResponse } from "effect/http"
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
  Effect.map(notifications ? Queue.unbounded<Event, Cause.Done>() : Effect.succeed(undefined), (queue) => {
    const first = Deferred.makeUnsafe<HttpServerResponse.HttpServerResponse>()
    const delivery: Delivery = {
      settle: (reply) => Deferred.doneUnsafe(first, Exit.succeed(reply === undefined ? emptyStream : Replies.toResponse(reply))),
      open: () => {
        if (queue === undefined) return noEvents()
        const body = Stream.fromQueue(queue).pipe(Stream.map((item) => {
          item.written?.()
          return item.bytes
        }))
        Deferred.doneUnsafe(first, Exit.succeed(Replies.eventStream(body)))
      },
      event: (text, written) => {
        if (queue === undefined) return noEvents()
        Queue.offerUnsafe(queue, { bytes: encoder.encode(text), written })
      },
      end: () => {
        if (queue !== undefined) Queue.endUnsafe(queue)
      }
    }
    return { delivery, response: Deferred.await(first) }
  })
