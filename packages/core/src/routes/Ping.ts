/**
 * `ping` (initialize-era dialects): answered `{}` at once, before `initialize` too.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { PingRequestParams } from "../wire/Lifecycle.ts"
import * as Route from "./Route.ts"

const pong = Effect.succeed(Route.acknowledged)

/**
 * `ping`.
 *
 * @category constants
 * @since 0.1.0
 */
export const route = Route.make({
  method: "ping",
  params: PingRequestParams.schema,
  run: () => pong
})
