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
  shape
}
