/**
 * `subscriptions/listen`: one long-lived stream of change notifications (see runtime/Listen for
 * how a stream lives and ends).
 *
 * Served only with a `SubscriptionHub`. The stream takes a place among the transport's open
 * streams (or the server's own, for a transport that has none). When the server ends it, the
 * request is answered with the `SubscriptionsListenResult` (or, on overflow under `"close"`, a
 * -32603), and the reply carries the `notifications/cancelled` that ends the stream on a shared
 * channel (stdio).
 *
 * @since 0.1.0
 */
import * as Methods from "@snodo/protocol/methods/Methods"
import { Effect } from "effect"
import { InternalError } from "@snodo/protocol/jsonrpc/McpError"
import * as CoreListen from "../runtime/Listen.ts"
import { SubscriptionsListenRequestParams } from "@snodo/protocol/wire/Notifications"
import * as Route from "./Route.ts"

const noHub = (): InternalError => new InternalError({ message: "subscriptions/listen needs a SubscriptionHub" })

const notifications = (params: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> =>
  params["notifications"] as Readonly<Record<string, unknown>>

/**
 * `subscriptions/listen`.
 *
 * @category constants
 * @since 0.1.0
 */
export const route = Route.make({
  method: Methods.SubscriptionsListen,
  params: SubscriptionsListenRequestParams.schema,
  // The capability is enabled only with a hub; a route table never offers the method without one.
  resolve: (params, environment) => environment.hub === undefined ? noHub() : { params, hub: environment.hub },
  run: (call, { hub }) => {
    const { environment, request } = call
    return CoreListen.run({
      id: request.id,
      requested: notifications(request.params),
      decoded: call.params.notifications,
      hub,
      support: environment.listen.support,
      limits: environment.settings.listen,
      filters: environment.listen.filters,
      negotiated: call.negotiated,
      sink: call.transport.sink,
      streams: call.transport.subscriptions ?? environment.listen.streams,
      principal: call.principal,
      observer: environment.observers?.listen(request.id, call.principal.id)
    }).pipe(
      Effect.map((end): Route.Reply =>
        end._tag === "Graceful"
          ? {
            _tag: "Result",
            result: CoreListen.closedResult(request.id),
            streamEnd: CoreListen.cancelledFrame(request.id, "The server closed the subscription")
          }
          : {
            _tag: "Error",
            error: CoreListen.overflowError(end.queue),
            streamEnd: CoreListen.cancelledFrame(request.id, "The subscription overflowed: the client did not keep up")
          }
      )
    )
  }
})
