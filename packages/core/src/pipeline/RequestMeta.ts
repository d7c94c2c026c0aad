/**
 * A request's own protocol context, read from its `_meta`, and the `_meta` rules of the stateless
 * revisions (2026-07-28 and later): {@link admitMeta}.
 *
 * Servers must not infer anything from earlier requests, so every field comes from the request
 * alone. A dialect of a stateless revision admits with {@link admitMeta}; which dialect a request
 * belongs to is decided above this floor (routes/Admission).
 *
 * @example
 * ```ts
 * import { admitMeta } from "@snodo/core/dialect/RequestMeta"
 *
 * admitMeta("2026-07-28")({ "io.modelcontextprotocol/clientCapabilities": {} })
 * // a RequestMeta, or the McpError (-32602) to answer with
 * ```
 *
 * @since 0.1.0
 */
import * as Meta from "@snodo/protocol/wire/Meta"
import { InvalidParams, type McpError } from "@snodo/protocol/jsonrpc/McpError"
import { isObject } from "./internal/IsObject.ts"

/**
 * What admission learnt from a request's `_meta`: the request's own protocol context. Servers
 * must not infer anything from earlier requests, so every field comes from this request alone.
 *
 * @category models
 * @since 0.1.0
 */
export interface RequestMeta {
  readonly protocolVersion: string
  readonly clientCapabilities: Readonly<Record<string, unknown>>
  readonly clientInfo: { readonly name: string; readonly version: string } | undefined
  readonly logLevel: Meta.LoggingLevel | undefined
  readonly progressToken: string | number | undefined
  /** The whole `_meta` object as received. */
  readonly raw: Readonly<Record<string, unknown>>
}

const logLevels: ReadonlySet<string> = new Set(Meta.LoggingLevel.literals)

const invalidMeta = (message: string) => new InvalidParams({ message: `Invalid _meta: ${message}` })

/**
 * Longest progress token string, in UTF-8 bytes.
 *
 * @category constants
 * @since 0.1.0
 */
const maxProgressTokenBytes = 256

/**
 * A `progressToken` as the rules allow it: a string of at most 256 UTF-8 bytes or a safe integer.
 *
 * @category combinators
 * @since 0.1.0
 */
export const readProgressToken = (token: unknown): string | number | undefined | McpError => {
  if (token === undefined) return undefined
  if (typeof token === "string") {
    return Buffer.byteLength(token, "utf8") <= maxProgressTokenBytes
      ? token
      : invalidMeta("progressToken longer than 256 bytes")
  }
  if (typeof token === "number" && Number.isSafeInteger(token)) return token
  return invalidMeta("progressToken must be a string or an integer")
}

/** A `clientInfo` member that is absent or a string. */
const optionalString = (value: unknown): boolean => value === undefined || typeof value === "string"

// Each member is read by its own name (a named load), not by a key from a list: a keyed load with
// changing names goes through V8's megamorphic keyed IC on every request (bench/PROFILE.md).
const validateClientInfo = (info: unknown): McpError | undefined => {
  if (!isObject(info)) return invalidMeta(`${Meta.ClientInfoKey} must be an object`)
  if (typeof info.name !== "string" || typeof info.version !== "string") {
    return invalidMeta(`${Meta.ClientInfoKey} needs string name and version`)
  }
  if (!optionalString(info.title)) return invalidMeta(`${Meta.ClientInfoKey}.title must be a string`)
  if (!optionalString(info.description)) return invalidMeta(`${Meta.ClientInfoKey}.description must be a string`)
  if (!optionalString(info.websiteUrl)) return invalidMeta(`${Meta.ClientInfoKey}.websiteUrl must be a string`)
  if (info.icons !== undefined && !Array.isArray(info.icons)) {
    return invalidMeta(`${Meta.ClientInfoKey}.icons must be an array`)
  }
  return undefined
}

/** A capability that is absent or an object. */
const optionalObject = (value: unknown): boolean => value === undefined || isObject(value)

const validateCapabilities = (capabilities: unknown): McpError | undefined => {
  if (!isObject(capabilities)) return invalidMeta(`${Meta.ClientCapabilitiesKey} must be an object`)
  const invalid = (field: string) => invalidMeta(`${Meta.ClientCapabilitiesKey}.${field} must be an object`)
  if (!optionalObject(capabilities.experimental)) return invalid("experimental")
  if (!optionalObject(capabilities.roots)) return invalid("roots")
  if (!optionalObject(capabilities.sampling)) return invalid("sampling")
  if (!optionalObject(capabilities.elicitation)) return invalid("elicitation")
  if (!optionalObject(capabilities.extensions)) return invalid("extensions")
  return undefined
}

/**
 * The `_meta` rules of the stateless revisions, for `version`: `clientCapabilities` required,
 * `clientInfo` validated when present, `logLevel` one of the eight levels, every key following the
 * `_meta` key grammar, `progressToken` a string of at most 256 bytes or an integer.
 *
 * @category combinators
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

