/**
 * `logging/setLevel` (initialize-era dialects): the session's log level, from then on the level
 * of every request's `McpLog` (the same service a handler uses on 2026-07-28, where the level is
 * in each request's `_meta`). Served when the server enables `logging`; refused (-32601) on a
 * session that cannot remember it (sessionless HTTP, which does not advertise `logging`).
 *
 * @since 0.1.0
 */
import * as Methods from "@snodo/protocol/methods/Methods"
import { Effect } from "effect"
import { MethodNotFound, type McpError } from "@snodo/protocol/jsonrpc/McpError"
import { SetLevelRequestParams } from "@snodo/protocol/wire/Lifecycle"
import * as Route from "./Route.ts"

/**
 * `logging/setLevel`.
 *
 * @category constants
 * @since 0.1.0
 */
export const route = Route.make({
  method: Methods.LoggingSetLevel,
  params: SetLevelRequestParams.schema,
  run: (call) =>
    Effect.suspend((): Effect.Effect<Route.Reply, McpError> => {
      const session = call.transport.session
      if (session === undefined || !session.persistent) {
        return Effect.fail(new MethodNotFound({ message: "Method not found: logging/setLevel needs a session (this server runs sessionless)" }))
      }
      session.setLogLevel(call.params.level)
      return Effect.succeed(Route.acknowledged)
    })
})
