/**
 * Admission: a request's `_meta` checked against the dialect registry.
 *
 * Runs after the method was found and before anything else. It reads only the request itself
 * (servers must not infer capabilities from earlier requests): the `_meta` must name an enabled
 * protocol version (else -32022 listing the supported ones), and the dialect of that version
 * validates the rest.
 *
 * {@link admitMeta} is the stateless revisions' rule set (2026-07-28 and later): a dialect of such a
 * revision admits with it.
 *
 * @example
 * ```ts
 * import { admit } from "@snodo/core/pipeline/Admission"
 * import { Dialect2026_07_28, DialectRegistry } from "@snodo/core/pipeline/Dialect"
 *
 * const registry = DialectRegistry.make([Dialect2026_07_28])
 * admit(registry, { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28",
 *   "io.modelcontextprotocol/clientCapabilities": {} } })
 * // { dialect, meta } or the McpError to answer with
 * ```
 *
 * @since 0.1.0
 */
import { Predicate } from "effect"
import * as Meta from "../wire/Meta.ts"
import type { Dialect, DialectRegistry, RequestMeta } from "./Dialect.ts"
import { InvalidParams, type McpError, UnsupportedProtocolVersion } from "./McpError.ts"

/** A request admitted: the dialect that speaks its version, and what its `_meta` says. @since 0.1.0 */
export interface Admitted {
  readonly dialect: Dialect
  readonly meta: RequestMeta
}

/**
 * Admits a request's params, returning its dialect and protocol context, or the error to answer with.
 *
 * @since 0.1.0
 */
export const admit = (
  registry: DialectRegistry["Service"],
  params: Readonly<Record<string, unknown>>
): Admitted | McpError => {
  const meta = params["_meta"]
  if (meta === undefined) {
    return new InvalidParams({ message: `Invalid params: missing _meta with ${Meta.ProtocolVersionKey}` })
  }
  if (!Predicate.isObject(meta) || Array.isArray(meta)) {
    return new InvalidParams({ message: "Invalid params: _meta must be an object" })
  }
  const version = meta[Meta.ProtocolVersionKey]
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
  const admitted = dialect.admit(meta)
  return "protocolVersion" in admitted ? { dialect, meta: admitted } : admitted
}

const logLevels: ReadonlySet<string> = new Set(Meta.LoggingLevel.literals)

const invalidMeta = (message: string) => new InvalidParams({ message: `Invalid _meta: ${message}` })

/** Longest progress token string, in UTF-8 bytes. @since 0.1.0 */
export const maxProgressTokenBytes = 256

const readProgressToken = (token: unknown): string | number | undefined | McpError => {
  if (token === undefined) return undefined
  if (typeof token === "string") {
    return Buffer.byteLength(token, "utf8") <= maxProgressTokenBytes
      ? token
      : invalidMeta("progressToken longer than 256 bytes")
  }
  if (typeof token === "number" && Number.isSafeInteger(token)) return token
  return invalidMeta("progressToken must be a string or an integer")
}

const validateClientInfo = (info: unknown): McpError | undefined => {
  if (!Predicate.isObject(info)) return invalidMeta(`${Meta.ClientInfoKey} must be an object`)
  if (typeof info["name"] !== "string" || typeof info["version"] !== "string") {
    return invalidMeta(`${Meta.ClientInfoKey} needs string name and version`)
  }
  for (const key of ["title", "description", "websiteUrl"]) {
    if (info[key] !== undefined && typeof info[key] !== "string") {
      return invalidMeta(`${Meta.ClientInfoKey}.${key} must be a string`)
    }
  }
  if (info["icons"] !== undefined && !Array.isArray(info["icons"])) {
    return invalidMeta(`${Meta.ClientInfoKey}.icons must be an array`)
  }
  return undefined
}

const capabilityFields = ["experimental", "roots", "sampling", "elicitation", "extensions"]

const validateCapabilities = (capabilities: unknown): McpError | undefined => {
  if (!Predicate.isObject(capabilities)) return invalidMeta(`${Meta.ClientCapabilitiesKey} must be an object`)
  for (const field of capabilityFields) {
    const value = capabilities[field]
    if (value !== undefined && !Predicate.isObject(value)) {
      return invalidMeta(`${Meta.ClientCapabilitiesKey}.${field} must be an object`)
    }
  }
  return undefined
}

/**
 * The `_meta` rules of the stateless revisions, for `version`: `clientCapabilities` required,
 * `clientInfo` validated when present, `logLevel` one of the eight levels, every key following the
 * `_meta` key grammar, `progressToken` a string of at most 256 bytes or an integer.
 *
 * @since 0.1.0
 */
export const admitMeta = (version: string) => (meta: Readonly<Record<string, unknown>>): RequestMeta | McpError => {
  for (const key in meta) {
    if (!Meta.isValidMetaKey(key)) return invalidMeta("a key does not follow the _meta key grammar")
  }
  const capabilities = meta[Meta.ClientCapabilitiesKey]
  if (capabilities === undefined) return invalidMeta(`missing required ${Meta.ClientCapabilitiesKey}`)
  const capabilitiesError = validateCapabilities(capabilities)
  if (capabilitiesError) return capabilitiesError
  const clientInfo = meta[Meta.ClientInfoKey]
  if (clientInfo !== undefined) {
    const infoError = validateClientInfo(clientInfo)
    if (infoError) return infoError
  }
  const logLevel = meta[Meta.LogLevelKey]
  if (logLevel !== undefined && (typeof logLevel !== "string" || !logLevels.has(logLevel))) {
    return invalidMeta(`${Meta.LogLevelKey} must be one of ${[...logLevels].join(", ")}`)
  }
  const progressToken = readProgressToken(meta["progressToken"])
  if (typeof progressToken === "object") return progressToken
  return {
    protocolVersion: version,
    clientCapabilities: capabilities as Record<string, unknown>,
    clientInfo: clientInfo as RequestMeta["clientInfo"],
    logLevel: logLevel as Meta.LoggingLevel | undefined,
    progressToken,
    raw: meta
  }
}
