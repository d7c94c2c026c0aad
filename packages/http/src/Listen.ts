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
import { type Duration, Effect, Latch, Scope } from "effect"
import { HttpServerResponse } from "effect/http"
import * as Encoder from "@snodo/core/pipeline/Encoder"
import type * as Envelope from "@snodo/core/pipeline/Envelope"
import * as CoreListen from "@snodo/core/runtime/Listen"
import type { ServerRuntime } from "@snodo/core/runtime/ServerRuntime"
import type * as Cancellations from "./Cancellations.ts"
import * as Exchange from "./Exchange.ts"

/** The listen streams of one HTTP application. @since 0.1.0 */
export interface Listen {
  /** Answers one `subscriptions/listen` request. */
  readonly answer: (
    request: Envelope.Request,
    principal: string,
    scope: Scope.Scope
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse>
  /** Open streams. */
  readonly open: () => number
  /**
   * Ends every open stream gracefully, refuses new ones, and waits (at most `timeout`) until their
   * responses are finished, so that a server closing next finds their connections idle.
   */
  readonly closeAll: (timeout?: Duration.Input) => Effect.Effect<void>
}


/**
 * The listen side of an HTTP application; `registry` is the application's cancellation registry,
 * so a posted `notifications/cancelled` reaches a stream too.
 *
 * @since 0.1.0
 */
export const make = (
  runtime: ServerRuntime["Service"],
  registry: Cancellations.Registry,
  maxSubscriptions: number = CoreListen.defaultHttpStreams
): Listen => {
  const streams = CoreListen.makeStreams(maxSubscriptions)
  // Listen responses not finished yet; `idle` is open whenever there are none.
  let responding = 0
  const idle = Latch.makeUnsafe(true)
  const busy = (id: Envelope.RequestId) =>
    HttpServerResponse.text(
      Encoder.error(id, { code: -32603, message: "Server busy: too many open subscriptions", data: { retryable: true, limit: maxSubscriptions } }),
      { status: 503, contentType: "application/json", headers: { "retry-after": "1" } }
    )

  const answer = Effect.fnUntraced(function*(request: Envelope.Request, principal: string, scope: Scope.Scope) {
    // The runtime refuses too (-32603 inside the stream); answering here keeps the common case a 503.
    if (streams.open() >= streams.limit) return busy(request.id)
    const exchange = yield* Exchange.make(request.id, true)
    // Registered and released as one step, so an interruption in between leaks nothing.
    yield* Effect.uninterruptible(Effect.suspend(() => {
      const unregister = registry.register(principal, request.id, exchange)
      if (responding++ === 0) idle.closeUnsafe()
      return Scope.addFinalizer(scope, Effect.sync(() => {
        unregister()
        exchange.close()
        if (--responding === 0) idle.openUnsafe()
      }))
    }))
    exchange.fiber = yield* Effect.forkDetach(
      Effect.map(
        runtime.handle(request, { transport: "http", sink: exchange.sink, subscriptions: streams }),
        (outcome) => exchange.complete(outcome)
      ),
      { startImmediately: true }
    )
    return yield* Exchange.response(exchange)
  })

  const closeAll = (timeout: Duration.Input = "1 second") =>
    Effect.suspend(() => {
      streams.closeAll()
      return Effect.timeoutOrElse(idle.await, { duration: timeout, orElse: () => Effect.void })
    })

  return { answer, open: streams.open, closeAll }
}
