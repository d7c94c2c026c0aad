/**
 * `initialize` (initialize-era dialects): negotiates the session's version, records the client's
 * capabilities and identity in the transport's session, and answers with the server's.
 *
 * Version negotiation: the requested version when an enabled initialize-era dialect speaks it,
 * else the preferred one (the client disconnects if it cannot speak that). A persistent session
 * (stdio, an HTTP session) is initialized once; a second `initialize` is -32600. Once initialized,
 * the session follows the `SubscriptionHub` (when the server has one), so list changes and
 * updates of subscribed resources reach the client.
 *
 * The capabilities answered are the server's, as that era knows them: no `extensions` (negotiated
 * per request in 2026-07-28 only), and for a session that cannot outlive its request (sessionless
 * HTTP) no `logging`, `resources.subscribe` or `listChanged`, which need a session to remember or
 * a channel to notify on.
 *
 * @since 0.1.0
 */
import * as Methods from "@snodo/protocol/methods/Methods"
import { Effect } from "effect"
import type { Registry, Revision } from "./Revision.ts"
import { InternalError, InvalidRequest, type McpError } from "@snodo/protocol/jsonrpc/McpError"
import type { Session } from "../runtime/Session.ts"
import { InitializeRequestParams } from "@snodo/protocol/wire/Lifecycle"
import * as Route from "./Route.ts"

/**
 * The initialize-era dialect that answers a client requesting `requested`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const negotiate = (registry: Registry<Revision>, requested: string): Revision | undefined => {
  const exact = registry.get(requested)
  return exact?.session !== undefined ? exact : registry.legacy[0]
}

const withoutKeys = (value: unknown, keys: ReadonlyArray<string>): unknown => {
  if (typeof value !== "object" || value === null) return value
  const copy: Record<string, unknown> = { ...value }
  for (const key of keys) delete copy[key]
  return copy
}

/**
 * The server's capabilities for a session (see the module description).
 *
 * @category combinators
 * @since 0.1.0
 */
export const capabilitiesFor = (
  capabilities: Readonly<Record<string, unknown>>,
  session: Session
): Record<string, unknown> => {
  const { extensions: _extensions, ...rest } = capabilities
  if (session.persistent) return rest
  const { logging: _logging, ...remembered } = rest
  const out: Record<string, unknown> = { ...remembered }
  for (const kind of ["tools", "prompts", "resources"]) {
    if (out[kind] !== undefined) out[kind] = withoutKeys(out[kind], ["listChanged", "subscribe"])
  }
  return out
}

/**
 * `initialize`.
 *
 * @category constants
 * @since 0.1.0
 */
export const route = Route.make({
  method: Methods.Initialize,
  params: InitializeRequestParams.schema,
  run: (call) =>
    Effect.suspend((): Effect.Effect<Route.Reply, McpError> => {
      const session = call.transport.session
      if (session === undefined) {
        return Effect.fail(new InternalError({ message: "This transport keeps no session: initialize is not available on it" }))
      }
      if (session.negotiated !== undefined) {
        return Effect.fail(new InvalidRequest({ message: "Invalid request: the session is already initialized" }))
      }
      const { environment, params } = call
      const dialect = negotiate(environment.dialects, params.protocolVersion)
      if (dialect === undefined) return Effect.fail(new InternalError({ message: "No initialize-era dialect is enabled" }))
      session.negotiate({ version: dialect.version, clientCapabilities: params.capabilities, clientInfo: params.clientInfo })
      const { capabilities, instructions, serverInfo } = environment.settings
      const result: Record<string, unknown> = {
        protocolVersion: dialect.version,
        capabilities: capabilitiesFor(capabilities, session),
        serverInfo
      }
      if (instructions !== undefined) result["instructions"] = instructions
      const hub = environment.hub
      const follow = hub === undefined ? Effect.void : session.follow(hub, call.principal, environment.listen.support)
      return Effect.as(follow, Route.result(result))
    })
})
