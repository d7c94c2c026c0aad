/**
 * Admission: a request's `_meta` checked against the dialect registry.
 *
 * Runs before authorization and routing. It reads only the request itself (servers must not infer
 * capabilities from earlier requests).
 *
 * @example
 * ```ts
 * import { admit } from "@snodo/core/pipeline/Admission"
 * import { DialectRegistry, Dialect2026_07_28 } from "@snodo/core/pipeline/Dialect"
 *
 * const registry = DialectRegistry.make([Dialect2026_07_28])
 * admit(registry, { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28",
 *   "io.modelcontextprotocol/clientCapabilities": {} } })
 * ```
 *
 * @since 0.1.0
 */
import * as Meta from "../wire/Meta.ts"
import type { DialectRegistry, RequestMeta } from "./Dialect.ts"
import { InvalidParams, type McpError, UnsupportedProtocolVersion } from "./McpError.ts"

/**
 * Admits a request's params, returning its protocol context or the error to answer with.
 *
 * @since 0.1.0
 */
export const admit = (
  registry: DialectRegistry["Service"],
  params: Readonly<Record<string, unknown>>
): RequestMeta | McpError => {
  const meta = params["_meta"]
  if (meta === undefined) {
    return new InvalidParams({ message: `Invalid params: missing _meta with ${Meta.ProtocolVersionKey}` })
  }
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) {
    return new InvalidParams({ message: "Invalid params: _meta must be an object" })
  }
  const record = meta as Record<string, unknown>
  const version = record[Meta.ProtocolVersionKey]
  if (typeof version !== "string") {
    return new InvalidParams({ message: `Invalid _meta: missing required ${Meta.ProtocolVersionKey}` })
  }
  const dialect = registry.get(version)
  if (dialect === undefined) {
    return new UnsupportedProtocolVersion({
      message: "Unsupported protocol version",
      data: { supported: [...registry.supported], requested: version }
    })
  }
  return dialect.admit(record)
}
