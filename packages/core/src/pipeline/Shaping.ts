/**
 * Result shaping: what every result carries whatever handler produced it.
 *
 * Adds `resultType` (default `"complete"`), `_meta["io.modelcontextprotocol/serverInfo"]` (merged
 * with any `_meta` the handler set) and, on complete results of cacheable methods, `ttlMs` and
 * `cacheScope`.
 *
 * @example
 * ```ts
 * import * as Shaping from "@snodo/core/extension/Shaping"
 *
 * const shaped = Shaping.shape({ tools: [] }, { name: "calc", version: "1.0.0" }, { ttlMs: 0, cacheScope: "private" })
 * ```
 *
 * @since 0.1.0
 */
import { ServerInfoKey } from "@snodo/protocol/wire/Meta"

/**
 * A caching hint.
 *
 * @category models
 * @since 0.1.0
 */
export interface CacheHint {
  readonly ttlMs: number
  readonly cacheScope: "public" | "private"
}

/**
 * Default hint: immediately stale, private.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultCacheHint: CacheHint = { ttlMs: 0, cacheScope: "private" }

// `{ [ServerInfoKey]: serverInfo }` written with the key as a literal name: a computed key in an
// object literal is defined by a runtime call each time (~1.6k instructions per result,
// bench/PROFILE.md). `satisfies` checks that the name is `ServerInfoKey`.
const serverInfoMeta = (serverInfo: unknown): Record<string, unknown> =>
  ({ "io.modelcontextprotocol/serverInfo": serverInfo }) satisfies Record<typeof ServerInfoKey, unknown>

const withServerInfo = (handlerMeta: Record<string, unknown>, serverInfo: unknown): Record<string, unknown> =>
  ({ ...handlerMeta, "io.modelcontextprotocol/serverInfo": serverInfo }) satisfies Record<typeof ServerInfoKey, unknown>

/**
 * Shapes a result object in place of a copy (the handler's object is never mutated).
 *
 * @category combinators
 * @since 0.1.0
 */
export const shape = (
  result: Readonly<Record<string, unknown>>,
  serverInfo: Readonly<Record<string, unknown>>,
  cache: CacheHint | undefined
): Record<string, unknown> => {
  const resultType = result["resultType"] ?? "complete"
  const handlerMeta = result["_meta"] as Record<string, unknown> | undefined
  // One literal: a `_meta` the result has keeps its place, as a member assigned after the copy would.
  const shaped: Record<string, unknown> = {
    ...result,
    resultType,
    _meta: handlerMeta === undefined ? serverInfoMeta(serverInfo) : withServerInfo(handlerMeta, serverInfo)
  }
  if (cache !== undefined && resultType === "complete") {
    shaped["ttlMs"] = cache.ttlMs
    shaped["cacheScope"] = cache.cacheScope
  }
  return shaped
}
