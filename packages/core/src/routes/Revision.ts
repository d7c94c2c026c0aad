/**
 * A protocol revision as the routes see it: everything a dialect is except its method set (how a
 * request's version and capabilities are found, removed methods, result shaping, HTTP statuses,
 * the initialize-era rules), and the registry of enabled ones.
 *
 * A route's call carries the revision that admitted it; `routes/Dialect` adds the routes. The
 * split keeps a route from depending on the dialects that list it.
 *
 * @since 0.1.0
 */
import type { McpError } from "@snodo/protocol/jsonrpc/McpError"
import type { RequestMeta } from "../pipeline/RequestMeta.ts"
import type { CacheHint } from "../pipeline/Shaping.ts"
import type { Session } from "../runtime/Session.ts"

/**
 * One protocol revision.
 *
 * @category models
 * @since 0.1.0
 */
export interface Revision {
  readonly version: string
  /** Validates `_meta` (already known to be an object naming this version). */
  readonly admit: (meta: Readonly<Record<string, unknown>>) => RequestMeta | McpError
  /**
   * Methods of other revisions this one does not have: answered -32601 like any unknown method,
   * with a message that names the supported versions (a legacy client has something to show).
   */
  readonly removed: ReadonlySet<string>
  /**
   * What every result of this revision carries (result type, server info, cache hints). Must be
   * pure (the same arguments give the same result, read nothing else): a list page is shaped and
   * serialized once per page and revision, and that text answers every later request for it.
   */
  readonly shape: (
    result: Readonly<Record<string, unknown>>,
    serverInfo: Readonly<Record<string, unknown>>,
    cache: CacheHint | undefined
  ) => Record<string, unknown>
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
 * The enabled revisions, preferred first: the shape of the `DialectRegistry` service.
 *
 * @category models
 * @since 0.1.0
 */
export interface Registry<D extends Revision = Revision> {
  /** Enabled versions, preferred first, as advertised by `server/discover` and -32022. */
  readonly supported: ReadonlyArray<string>
  /** The enabled dialects, preferred first. */
  readonly dialects: ReadonlyArray<D>
  /** The enabled initialize-era dialects (with a `session`), preferred first; usually none. */
  readonly legacy: ReadonlyArray<D>
  readonly get: (version: string) => D | undefined
}
