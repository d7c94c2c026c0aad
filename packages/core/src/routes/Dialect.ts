/**
 * Dialects: the protocol revisions a server speaks, as an allowlist of profiles.
 *
 * A dialect is a value that owns what differs between revisions: how a request's version and
 * capabilities are found (`admit`), the methods it serves (`routes`) and those it removed, the
 * shape every result gets (`shape`) and the HTTP status of each JSON-RPC error code (`httpStatus`).
 * The `DialectRegistry` service is the allowlist: a request whose `_meta` names no registered
 * dialect is refused with -32022 listing what is supported. Only 2026-07-28 is registered by
 * default; installing a package never enables another revision by itself.
 *
 * 2025-11-25 is built in and enabled by naming it:
 *
 * @example
 * ```ts
 * import { McpServer } from "@snodo/core"
 *
 * const Server = McpServer.make({ name: "calc", version: "1.0.0", dialects: ["2026-07-28", "2025-11-25"] })
 * ```
 *
 * An initialize-era revision (2025-11-25) is a dialect with a `session`: its version is not in
 * `_meta` but negotiated by `initialize` and kept by the transport's session, which admission asks
 * for the request's protocol context. Such a dialect usually takes no extensions (their
 * negotiation is per-request `_meta`) and sends `Input` asks to the client as server-to-client
 * requests (`inputs: "requests"`) instead of `input_required` rounds.
 *
 * A new stateless revision is a dialect built from an existing one; nothing in the core changes:
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { admitMeta } from "@snodo/core/pipeline/Admission"
 * import { Dialect2026_07_28, DialectRegistry } from "@snodo/core/routes/Dialect"
 *
 * const Next: Dialect = {
 *   ...Dialect2026_07_28,
 *   version: "2099-01-01",
 *   admit: admitMeta("2099-01-01"),
 *   routes: [...Dialect2026_07_28.routes, ExampleRoute]
 * }
 * const Both = DialectRegistry.layer([Dialect2026_07_28, Next])
 * ```
 *
 * @since 0.1.0
 */
import { Context, Layer } from "effect"
import type * as Route from "./Route.ts"
import type { Session } from "../runtime/Session.ts"
import type * as Meta from "../wire/Meta.ts"
import type { McpError } from "../pipeline/McpError.ts"
import type { CacheHint } from "../pipeline/Shaping.ts"

export { Dialect2025_11_25 } from "../dialects/Dialect2025_11_25.ts"
export { Dialect2026_07_28 } from "../dialects/Dialect2026_07_28.ts"

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
 * One protocol revision.
 *
 * @since 0.1.0
 */
export interface Dialect {
  readonly version: string
  /** Validates `_meta` (already known to be an object naming this version). */
  readonly admit: (meta: Readonly<Record<string, unknown>>) => RequestMeta | McpError
  /** The methods this revision serves. */
  readonly routes: ReadonlyArray<Route.Any>
  /**
   * Methods of other revisions this one does not have: answered -32601 like any unknown method,
   * with a message that names the supported versions (a legacy client has something to show).
   */
  readonly removed: ReadonlySet<string>
  /** What every result of this revision carries (result type, server info, cache hints). */
  readonly shape: (
    result: Readonly<Record<string, unknown>>,
    serverInfo: Readonly<Record<string, unknown>>,
    cache: CacheHint | undefined
  ) => Record<string, unknown>
  /** The HTTP status an error with this JSON-RPC code is answered with. */
  readonly httpStatus: (code: number) => number
  /**
   * Present on an initialize-era revision: requests name no version in `_meta`; `initialize`
   * negotiates it and the transport's session keeps it. `admit` reads a request's protocol context
   * from that session (already known to have negotiated this version).
   */
  readonly session?: {
    readonly admit: (session: Session, params: Readonly<Record<string, unknown>>) => RequestMeta | McpError
    /** The methods admitted before `initialize` was answered (`initialize` itself, `ping`). */
    readonly opening: ReadonlySet<string>
  }
  /** Whether extensions (their methods, route wraps and listen keys) apply to this revision. Default true. */
  readonly extensions?: boolean
  /**
   * How a handler's `Input` asks reach the client: `"rounds"` (default), as MRTR `input_required`
   * results the client answers by retrying; `"requests"`, as server-to-client requests on the
   * request's stream, the handler resuming with the answer.
   */
  readonly inputs?: "rounds" | "requests"
}

/**
 * The allowlist of enabled dialects.
 *
 * @since 0.1.0
 */
export class DialectRegistry extends Context.Service<DialectRegistry, {
  /** Enabled versions, preferred first, as advertised by `server/discover` and -32022. */
  readonly supported: ReadonlyArray<string>
  /** The enabled dialects, preferred first. */
  readonly dialects: ReadonlyArray<Dialect>
  /** The enabled initialize-era dialects (with a `session`), preferred first; usually none. */
  readonly legacy: ReadonlyArray<Dialect>
  readonly get: (version: string) => Dialect | undefined
}>()("@snodo/core/DialectRegistry") {
  /** A registry of exactly these dialects (the first is the preferred one; at least one, each version once). */
  static readonly make = (dialects: ReadonlyArray<Dialect>): DialectRegistry["Service"] => {
    if (dialects.length === 0) throw new Error("A DialectRegistry needs at least one dialect")
    const byVersion = new Map(dialects.map((dialect) => [dialect.version, dialect]))
    if (byVersion.size !== dialects.length) throw new Error("A DialectRegistry names each version once")
    return {
      supported: dialects.map((dialect) => dialect.version),
      dialects,
      legacy: dialects.filter((dialect) => dialect.session !== undefined),
      get: (version) => byVersion.get(version)
    }
  }
  static readonly layer = (dialects: ReadonlyArray<Dialect>): Layer.Layer<DialectRegistry> =>
    Layer.sync(DialectRegistry, () => DialectRegistry.make(dialects))
}
