/**
 * `server/discover`: the versions this server speaks, its capabilities and instructions.
 *
 * Always available, cacheable, and the same for every caller (capabilities are catalog-wide), so
 * the result is built once per server.
 *
 * @since 0.1.0
 */
import * as Methods from "@snodo/protocol/methods/Methods"
import { Effect } from "effect"
import * as Route from "./Route.ts"

const built = new WeakMap<Route.Environment, Effect.Effect<Route.Reply>>()

const replyOf = (environment: Route.Environment): Effect.Effect<Route.Reply> => {
  let reply = built.get(environment)
  if (reply === undefined) {
    const { capabilities, instructions } = environment.settings
    reply = Effect.succeed(Route.result({
      supportedVersions: environment.supportedVersions,
      capabilities,
      ...(instructions === undefined ? {} : { instructions })
    }))
    built.set(environment, reply)
  }
  return reply
}

/**
 * `server/discover`.
 *
 * @category constants
 * @since 0.1.0
 */
export const Discover = Route.make({
  method: Methods.ServerDiscover,
  run: (call) => replyOf(call.environment)
})
