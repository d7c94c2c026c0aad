/**
 * `resources/subscribe` and `resources/unsubscribe` (initialize-era dialects): the URIs whose
 * `notifications/resources/updated` the session receives, from the same `SubscriptionHub` that
 * feeds 2026-07-28's `subscriptions/listen` streams.
 *
 * Served with a hub (the server then advertises `resources.subscribe`). The URI must be absolute;
 * a session holds at most `subscriptions.maxResourceSubscriptions` of them (-32602 beyond).
 * Subscribing to a URI no resource has yet is allowed (a resource may appear later); unsubscribing
 * from one never subscribed is acknowledged too. Refused (-32601) on a session that cannot notify
 * (sessionless HTTP, which does not advertise `resources.subscribe`).
 *
 * @since 0.1.0
 */
import * as Methods from "@snodo/protocol/methods/Methods"
import { Effect } from "effect"
import { InvalidParams, MethodNotFound, type McpError } from "@snodo/protocol/jsonrpc/McpError"
import type { Session } from "../runtime/Session.ts"
import { SubscribeRequestParams } from "@snodo/protocol/wire/Lifecycle"
import * as Route from "./Route.ts"

const absoluteUri = /^[A-Za-z][A-Za-z0-9+.-]*:/

const sessionOf = (call: Route.Call, method: string): Session | MethodNotFound => {
  const session = call.transport.session
  return session === undefined || !session.persistent
    ? new MethodNotFound({ message: `Method not found: ${method} needs a session (this server runs sessionless)` })
    : session
}

/**
 * `resources/subscribe`.
 *
 * @category constants
 * @since 0.1.0
 */
export const subscribe = Route.make({
  method: Methods.ResourcesSubscribe,
  params: SubscribeRequestParams.schema,
  run: (call) =>
    Effect.suspend((): Effect.Effect<Route.Reply, McpError> => {
      const session = sessionOf(call, "resources/subscribe")
      if (session instanceof MethodNotFound) return Effect.fail(session)
      const uri = call.params.uri
      if (!absoluteUri.test(uri)) return Effect.fail(new InvalidParams({ message: "Invalid params: uri must be an absolute URI" }))
      const max = call.environment.settings.listen.maxResourceSubscriptions
      if (!session.resourceSubscriptions.has(uri) && session.resourceSubscriptions.size >= max) {
        return Effect.fail(new InvalidParams({ message: `Invalid params: at most ${max} resource subscriptions per session` }))
      }
      session.subscribe(uri)
      return Effect.succeed(Route.acknowledged)
    })
})

/**
 * `resources/unsubscribe`.
 *
 * @category constants
 * @since 0.1.0
 */
export const unsubscribe = Route.make({
  method: Methods.ResourcesUnsubscribe,
  params: SubscribeRequestParams.schema,
  run: (call) =>
    Effect.suspend((): Effect.Effect<Route.Reply, McpError> => {
      const session = sessionOf(call, "resources/unsubscribe")
      if (session instanceof MethodNotFound) return Effect.fail(session)
      session.unsubscribe(call.params.uri)
      return Effect.succeed(Route.acknowledged)
    })
})
