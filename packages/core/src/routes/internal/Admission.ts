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
 * A request that names no version in `_meta` belongs to an initialize-era dialect when the registry
 * enables one and the transport brought a session: the session's negotiated dialect admits it
 * from the session, and before `initialize` only the methods that open a session (`initialize`,
 * `ping`) are admitted, by the preferred initialize-era dialect; anything else is -32600. Without
 * such a dialect (the default) nothing changes: the request is -32602 for its missing `_meta`.
 *
 * @example
 * ```ts
 * import { admit } from "@snodo/core/dialect/Admission"
 * import { DialectRegistry } from "@snodo/core/dialect"
 *
 * const registry = DialectRegistry.defaultRegistry
 * admit(registry, { method: "tools/list", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28",
 *   "io.modelcontextprotocol/clientCapabilities": {} } } })
 * // { dialect, meta } or the McpError to answer with
 * ```
 *
 * @since 0.1.0
 */
import { InvalidParams, InvalidRequest, type McpError, UnsupportedProtocolVersion } from "@snodo/protocol/jsonrpc/McpError"
import { readProgressToken, type RequestMeta } from "../../pipeline/RequestMeta.ts"
import type { Session } from "../../runtime/Session.ts"
import * as Meta from "@snodo/protocol/wire/Meta"
import type { Dialect } from "../Dialect.ts"
import type { Registry } from "../Revision.ts"
import { isObject } from "../../pipeline/internal/IsObject.ts"

/**
 * A request admitted: the dialect that speaks its version, and what its `_meta` says.
 *
 * @category models
 * @since 0.1.0
 */
export interface Admitted {
  readonly dialect: Dialect
  readonly meta: RequestMeta
}

/**
 * What admission reads of a request.
 *
 * @category models
 * @since 0.1.0
 */
export interface Admissible {
  readonly method: string
  readonly params: Readonly<Record<string, unknown>>
}

/**
 * Admits a request, returning its dialect and protocol context, or the error to answer with.
 * `session` is the transport's initialize-era session, if it keeps one.
 *
 * @category combinators
 * @since 0.1.0
 */
export const admit = (
  registry: Registry<Dialect>,
  request: Admissible,
  session?: Session
): Admitted | McpError => {
  const params = request.params
  const meta = params["_meta"]
  if (meta === undefined) {
    return session === undefined || registry.legacy.length === 0
      ? new InvalidParams({ message: `Invalid params: missing _meta with ${Meta.ProtocolVersionKey}` })
      : admitSession(registry, request, session)
  }
  if (!isObject(meta)) {
    return new InvalidParams({ message: "Invalid params: _meta must be an object" })
  }
  const version = meta[Meta.ProtocolVersionKey]
  if (typeof version !== "string") {
    return session === undefined || registry.legacy.length === 0 || Meta.ProtocolVersionKey in meta
      ? new InvalidParams({ message: `Invalid _meta: missing required ${Meta.ProtocolVersionKey}` })
      : admitSession(registry, request, session)
  }
  const dialect = registry.get(version)
  if (dialect === undefined || dialect.session !== undefined) {
    return new UnsupportedProtocolVersion({
      message: dialect === undefined
        ? "Unsupported protocol version"
        : `Unsupported protocol version: ${version} is negotiated with initialize, not named in _meta`,
      data: { supported: [...registry.supported], requested: version }
    })
  }
  const admitted = dialect.admit(meta)
  return "protocolVersion" in admitted ? { dialect, meta: admitted } : admitted
}

/**
 * A request of an initialize-era session: the dialect the session negotiated admits it; before
 * `initialize`, the preferred initialize-era dialect admits the methods that open a session.
 */
const admitSession = (registry: Registry<Dialect>, request: Admissible, session: Session): Admitted | McpError => {
  const negotiated = session.negotiated
  const dialect = negotiated === undefined ? registry.legacy[0] : registry.get(negotiated.version)
  const rules = dialect?.session
  if (dialect === undefined || rules === undefined) {
    return new InvalidRequest({ message: "Invalid request: the session negotiated a version this server does not enable" })
  }
  if (negotiated === undefined && !rules.opening.has(request.method)) return notInitialized(registry)
  const meta = rules.admit(session, request.params)
  return "protocolVersion" in meta ? { dialect, meta } : meta
}

const notInitialized = (registry: Registry<Dialect>): InvalidRequest => {
  const stateless = registry.dialects.filter((dialect) => dialect.session === undefined).map((dialect) => dialect.version)
  const legacy = registry.legacy.map((dialect) => dialect.version).join(", ")
  return new InvalidRequest({
    message: stateless.length === 0
      ? `Invalid request: the session is not initialized (send initialize first; ${legacy})`
      : `Invalid request: the session is not initialized (send initialize first; ${legacy}), and the request names no version in _meta.${Meta.ProtocolVersionKey} (${stateless.join(", ")})`
  })
}

const noMeta: Readonly<Record<string, unknown>> = {}

/**
 * The rules of the initialize-era revisions, for `version`: the protocol context is the session's
 * (capabilities and client info from `initialize`, the level from `logging/setLevel`), and of the
 * request's own `_meta` only `progressToken` is read (a string of at most 256 bytes or an integer).
 *
 * @category combinators
 * @since 0.1.0
 */
export const admitFromSession = (version: string) =>
(session: Session, params: Readonly<Record<string, unknown>>): RequestMeta | McpError => {
  const meta = params["_meta"]
  const raw = isObject(meta) ? meta : noMeta
  const progressToken = readProgressToken(raw["progressToken"])
  if (typeof progressToken === "object") return progressToken
  const negotiated = session.negotiated
  return {
    protocolVersion: version,
    clientCapabilities: negotiated?.clientCapabilities ?? noMeta,
    clientInfo: negotiated?.clientInfo,
    logLevel: session.logLevel,
    progressToken,
    raw
  }
}
