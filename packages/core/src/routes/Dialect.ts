/**
 * Dialects: the protocol revisions a server speaks, as an allowlist of profiles.
 *
 * A dialect is a value that owns what differs between revisions: how a request's version and
 * capabilities are found (`admit`), the methods it serves (`routes`) and those it removed, and the
 * shape every result gets (`shape`). (The HTTP status of an error is the HTTP transport's matter:
 * `@snodo/http`'s `Status`.)
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
 * import { Dialect, Dialect2026_07_28, DialectRegistry, RequestMeta } from "@snodo/core/dialect"
 *
 * const Next: Dialect.Dialect = {
 *   ...Dialect2026_07_28,
 *   version: "2099-01-01",
 *   admit: RequestMeta.admitMeta("2099-01-01"),
 *   routes: [...Dialect2026_07_28.routes, ExampleRoute]
 * }
 * const Both = DialectRegistry.layer([Dialect2026_07_28, Next])
 * ```
 *
 * @since 0.1.0
 */
import type * as Route from "./Route.ts"
import type { Revision } from "./Revision.ts"

/**
 * One protocol revision: a {@link Revision} and the methods it serves.
 *
 * @category models
 * @since 0.1.0
 */
export interface Dialect extends Revision {
  /** The methods this revision serves. */
  readonly routes: ReadonlyArray<Route.Any>
}
