/**
 * `ping` (initialize-era dialects): answered `{}` at once, before `initialize` too.
 *
 * @since 0.1.0
 */
import * as Methods from "@snodo/protocol/methods/Methods"
import { Effect } from "effect"
import { PingRequestParams } from "@snodo/protocol/wire/Lifecycle"
import * as Route from "./Route.ts"

const pong = Effect.succeed(Route.acknowledged)

/**
 * `ping`.
 *
 * @category constants
 * @since 0.1.0
 */
export const route = Route.make({
  method: Methods.Ping,
  params: PingRequestParams.schema,
  run: () => pong
})
