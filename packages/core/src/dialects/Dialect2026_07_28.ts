/**
 * The 2026-07-28 revision as a dialect: stateless (every request carries its own `_meta`), the ten
 * methods below, `resultType` and server info on every result, cache hints on cacheable ones.
 *
 * @since 0.1.0
 */
import { admitMeta } from "../pipeline/RequestMeta.ts"
import type { Dialect } from "../routes/Dialect.ts"
import { shape } from "../pipeline/Shaping.ts"
import * as Complete from "../routes/Complete.ts"
import { Discover } from "../routes/Discover.ts"
import * as List from "../routes/List.ts"
import * as Listen from "../routes/Listen.ts"
import * as PromptGet from "../routes/PromptGet.ts"
import * as ResourceRead from "../routes/ResourceRead.ts"
import type * as Route from "../routes/Route.ts"
import * as ToolCall from "../routes/ToolCall.ts"

/**
 * Every method of 2026-07-28. This list, and the dialects and extensions a server enables, are
 * the only places a method is named.
 *
 * @category constants
 * @since 0.1.0
 */
export const routes: ReadonlyArray<Route.Any> = [
  Discover,
  List.ToolsList,
  ToolCall.route,
  List.ResourcesList,
  ResourceRead.route,
  List.ResourceTemplatesList,
  List.PromptsList,
  PromptGet.route,
  Complete.route,
  Listen.route
]

/**
 * Methods of earlier revisions that 2026-07-28 removed.
 *
 * @category constants
 * @since 0.1.0
 */
export const removed: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe"
])

/**
 * The HTTP status of a JSON-RPC error code: -32700, -32600, -32602 and the MCP codes -32020..-32022
 * are 400, -32601 is 404, -32603 is 500; any other (application) code travels in a 200.
 *
 * @category combinators
 * @since 0.1.0
 */
export const httpStatus = (code: number): number => {
  switch (code) {
    case -32700:
    case -32600:
    case -32602:
    case -32020:
    case -32021:
    case -32022:
      return 400
    case -32601:
      return 404
    case -32603:
      return 500
    default:
      return 200
  }
}

/**
 * The 2026-07-28 dialect.
 *
 * @category constants
 * @since 0.1.0
 */
export const Dialect2026_07_28: Dialect = {
  version: "2026-07-28",
  admit: admitMeta("2026-07-28"),
  routes,
  removed,
  shape,
  httpStatus
}
