/**
 * `subscriptions/listen` over Streamable HTTP: the POST's response is the stream.
 *
 * A listen request becomes a `text/event-stream` from its first event (the acknowledgement) and
 * stays open: unlike other requests it has no deadline. At most `maxSubscriptions` streams are
 * open at once; beyond that the POST is answered 503 (`Retry-After: 1`) with a retryable -32603
 * before anything runs. The client ends a stream by closing the response (or disconnecting), or by
 * posting `notifications/cancelled` for its id as the same principal: either interrupts the stream's
 * fiber, which unregisters it from the hub, and nothing more is written. The server ends streams
 * gracefully with {@link Listen.closeAll} (shutdown): each one's last event is the
 * `SubscriptionsListenResult`, and then the response ends.
 *
 * @example
 * ```ts
 * import * as McpHttp from "@snodo/http/McpHttp"
 *
 * // 1,000 open listen streams per server instead of 256
 * McpHttp.layerRoute({ path: "/mcp", maxSubscriptions: 1000 })
 * ```
 *
 * @since 0.1.0
 */
import { type Context, type Duration, Effect, Latch } from "effect"
import * as Encoder from "@snodo/protocol/jsonrpc/Encoder"
import * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import * as CoreListen from "@snodo/core/extension/Listen"
import type * as Authentication from "./Authentication.ts"
import * as Exchange from "./Exchange.ts"
import * as Reply from "./Reply.ts"
import type * as RequestHead from "./RequestHead.ts"

/**
 * The listen streams of one HTTP application.
 *
 * @category models
 * @since 0.1.0
 */
export interface Listen {
  /**
   * Starts one `subscriptions/listen` stream on `delivery`, with the handler's fiber running on
   * `context`; returns the release to call once its response is over, or the 503 refusal when
   * `maxSubscriptions` streams are open. The stream ends with an error event when `grant` lapses.
   */
  readonly start: (
    request: Envelope.Request,
    principal: string,
    delivery: Exchange.Delivery,
    context: Context.Context<never>,
    grant?: Authentication.Grant["Service"],
    trace?: RequestHead.Trace
  ) => (() => void) | Reply.Reply
  /** Open streams. */
  readonly open: () => number
  /**
   * Ends every open stream gracefully, refuses new ones, and waits (at most `timeout`) until their
   * responses are finished, so that a server closing next finds their connections idle.
   */
  readonly closeAll: (timeout?: Duration.Input) => Effect.Effect<void>
}

const busyHeaders = { "retry-after": "1" }

/**
 * The listen side of an HTTP application; its exchanges share the application's in-flight map,
 * so a posted `notifications/cancelled` reaches a stream too. Each stream rests `paceMillis` after
 * writing what waited (the `subscriptionInterval` option), its changes meanwhile coalesced; a
 * stream that wrote nothing within that time writes a change at once, from the publisher's loop.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  environment: Exchange.Environment,
  maxSubscriptions: number = CoreListen.defaultHttpStreams,
  maxSubscriptionBytes: number = CoreListen.defaultStreamBytes,
  paceMillis = 0
): Listen => {
  const streams = CoreListen.makeStreams(maxSubscriptions, maxSubscriptionBytes, paceMillis)
  // Listen responses not finished yet; `idle` is open whenever there are none.
  let responding = 0
  const idle = Latch.makeUnsafe(true)
  const busy = (id: Envelope.RequestId) =>
    Reply.json(
      Encoder.error(id, { code: -32603, message: "Server busy: too many open subscriptions", data: { retryable: true, limit: maxSubscriptions } }),
      503,
      busyHeaders
    )

  const start = (
    request: Envelope.Request,
    principal: string,
    delivery: Exchange.Delivery,
    context: Context.Context<never>,
    grant?: Authentication.Grant["Service"],
    trace?: RequestHead.Trace
  ): (() => void) | Reply.Reply => {
    // The runtime refuses too (-32603 inside the stream); answering here keeps the common case a 503.
    if (streams.open() >= streams.limit) return busy(request.id)
    if (responding++ === 0) idle.closeUnsafe()
    // The stream keeps its request for as long as it is open: not the body it was decoded from.
    const release = Exchange.start(environment, Envelope.detach(request), principal, delivery, {
      context,
      notifications: true,
      deadlineMillis: undefined,
      subscriptions: streams,
      grant,
      trace
    })
    return () => {
      release()
      if (--responding === 0) idle.openUnsafe()
    }
  }

  const closeAll = (timeout: Duration.Input = "1 second") =>
    Effect.suspend(() => {
      streams.closeAll()
      return Effect.timeoutOrElse(idle.await, { duration: timeout, orElse: () => Effect.void })
    })

  return { start, open: streams.open, closeAll }
}
