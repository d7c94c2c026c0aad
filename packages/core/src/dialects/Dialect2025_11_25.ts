/**
 * The 2025-11-25 revision as a dialect: the initialize era. Opt-in: a server speaks it only when
 * the application enables it (`McpServer.make({ ..., dialects: ["2026-07-28", "2025-11-25"] })`).
 *
 * - Its version is not in `_meta`: `initialize` negotiates it and the transport's session keeps it
 *   (a stdio connection; an HTTP session, or each request of a sessionless server). A request
 *   naming `2025-11-25` in `_meta` is -32022 (see pipeline/Admission): that version is not spoken
 *   statelessly.
 * - Methods: `initialize` and `ping` (the only ones before `initialize`), `logging/setLevel`,
 *   `resources/subscribe` and `resources/unsubscribe`, and the methods both eras share (the same
 *   routes, handlers and catalog as 2026-07-28). `server/discover` and `subscriptions/listen` are
 *   not part of it.
 * - No extensions: their negotiation is per-request `_meta`, which this era does not have (the
 *   Tasks extension's methods and its `tools/call` wrap do not exist for these sessions).
 * - `Input.elicit`, `Input.sample` and `Input.roots` become server-to-client requests on the
 *   request's stream; the handler resumes with the answer (see internal/ClientInput).
 * - Results carry no `resultType`, no server-info `_meta` and no cache hints.
 * - Over HTTP a JSON-RPC error answering an admitted request travels in a 200, as that era's
 *   transport has it; only a frame that is not a valid request (-32700, -32600) is a 400.
 *
 * @since 0.1.0
 */
import type { RequestMeta } from "../pipeline/RequestMeta.ts"
import { admitFromSession } from "../routes/internal/Admission.ts"
import type { Dialect } from "../routes/Dialect.ts"
import { InvalidRequest, type McpError } from "@snodo/protocol/jsonrpc/McpError"
import type { CacheHint } from "../pipeline/Shaping.ts"
import * as Complete from "../routes/Complete.ts"
import * as Initialize from "../routes/Initialize.ts"
import * as List from "../routes/List.ts"
import * as Ping from "../routes/Ping.ts"
import * as PromptGet from "../routes/PromptGet.ts"
import * as ResourceRead from "../routes/ResourceRead.ts"
import type * as Route from "../routes/Route.ts"
import * as SetLevel from "../routes/SetLevel.ts"
import * as Subscribe from "../routes/Subscribe.ts"
import * as ToolCall from "../routes/ToolCall.ts"

const version = "2025-11-25"

/**
 * Every method of 2025-11-25 snodo serves (the experimental `tasks/*` of that revision are not
 * among them; see docs/dialects.md).
 *
 * @category constants
 * @since 0.1.0
 */
const routes: ReadonlyArray<Route.Any> = [
  Initialize.route,
  Ping.route,
  List.ToolsList,
  ToolCall.route,
  List.ResourcesList,
  ResourceRead.route,
  List.ResourceTemplatesList,
  Subscribe.subscribe,
  Subscribe.unsubscribe,
  List.PromptsList,
  PromptGet.route,
  Complete.route,
  SetLevel.route
]

/**
 * Methods of 2026-07-28 that 2025-11-25 does not have.
 *
 * @category constants
 * @since 0.1.0
 */
const removed: ReadonlySet<string> = new Set(["server/discover", "subscriptions/listen"])

/**
 * The result as 2025-11-25 has it: without `resultType`, server-info `_meta` or cache hints (a
 * `_meta` the handler set is kept).
 *
 * @category combinators
 * @since 0.1.0
 */
const shape = (
  result: Readonly<Record<string, unknown>>,
  _serverInfo: Readonly<Record<string, unknown>>,
  _cache: CacheHint | undefined
): Record<string, unknown> => {
  if (!("resultType" in result || "ttlMs" in result || "cacheScope" in result)) return { ...result }
  const { cacheScope: _scope, resultType: _type, ttlMs: _ttl, ...rest } = result
  return rest
}

/**
 * A `_meta` naming 2025-11-25: that version is negotiated by `initialize`, never named per request
 * (admission answers such a request -32022 before asking the dialect).
 */
const admit = (_meta: Readonly<Record<string, unknown>>): RequestMeta | McpError =>
  new InvalidRequest({ message: `Invalid request: ${version} is negotiated with initialize, not named in _meta` })

/**
 * The 2025-11-25 dialect.
 *
 * @category constants
 * @since 0.1.0
 */
export const Dialect2025_11_25: Dialect = {
  version,
  admit,
  routes,
  removed,
  shape,
  session: { admit: admitFromSession(version), opening: new Set(["initialize", "ping"]) },
  extensions: false,
  inputs: "requests"
}
