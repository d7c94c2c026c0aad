/**
 * Dialects: the protocol revisions a server speaks, as an allowlist.
 *
 * A dialect owns the per-request `_meta` rules of its revision. The `DialectRegistry` service is
 * the allowlist: a request whose `io.modelcontextprotocol/protocolVersion` names no registered
 * dialect is refused with -32022 listing what is supported. Only 2026-07-28 is registered by
 * default; installing a package never enables another revision by itself.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { DialectRegistry, Dialect2026_07_28 } from "@snodo/core/pipeline/Dialect"
 *
 * const OnlyModern = DialectRegistry.layer([Dialect2026_07_28])
 * ```
 *
 * @since 0.1.0
 */
import { Context, Layer, Predicate } from "effect"
import * as Meta from "../wire/Meta.ts"
import { InvalidParams, type McpError } from "./McpError.ts"

/**
 * What admission learnt from a request's `_meta`: the request's own protocol context. Servers
 * must not infer anything from earlier requests, so every field comes from this request alone.
 *
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

/**
 * One protocol revision's admission rules.
 *
 * @since 0.1.0
 */
export interface Dialect {
  readonly version: string
  /** Validates `_meta` (already known to be an object naming this version). */
  readonly admit: (meta: Readonly<Record<string, unknown>>) => RequestMeta | McpError
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
 * The 2026-07-28 revision: `protocolVersion` and `clientCapabilities` required, `clientInfo`
 * validated when present, `logLevel` one of the eight levels, every key following the `_meta`
 * key grammar, `progressToken` a string of at most 256 bytes or an integer.
 *
 * @since 0.1.0
 */
export const Dialect2026_07_28: Dialect = {
  version: "2026-07-28",
  admit: (meta) => {
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
      protocolVersion: "2026-07-28",
      clientCapabilities: capabilities as Record<string, unknown>,
      clientInfo: clientInfo as RequestMeta["clientInfo"],
      logLevel: logLevel as Meta.LoggingLevel | undefined,
      progressToken,
      raw: meta
    }
  }
}

/**
 * The allowlist of enabled dialects.
 *
 * @since 0.1.0
 */
export class DialectRegistry extends Context.Service<DialectRegistry, {
  /** Enabled versions, newest first, as advertised by `server/discover` and -32022. */
  readonly supported: ReadonlyArray<string>
  readonly get: (version: string) => Dialect | undefined
}>()("@snodo/core/DialectRegistry") {
  /** A registry of exactly these dialects (the first is the preferred one). */
  static readonly make = (dialects: ReadonlyArray<Dialect>): DialectRegistry["Service"] => {
    const byVersion = new Map(dialects.map((dialect) => [dialect.version, dialect]))
    return { supported: dialects.map((dialect) => dialect.version), get: (version) => byVersion.get(version) }
  }
  static readonly layer = (dialects: ReadonlyArray<Dialect>): Layer.Layer<DialectRegistry> =>
    Layer.succeed(DialectRegistry, DialectRegistry.make(dialects))
  /** The dialects enabled when the application provides no registry: 2026-07-28 only. */
  static readonly defaultDialects: ReadonlyArray<Dialect> = [Dialect2026_07_28]
  /** Only 2026-07-28. */
  static readonly layerDefault: Layer.Layer<DialectRegistry> = DialectRegistry.layer([Dialect2026_07_28])
}
