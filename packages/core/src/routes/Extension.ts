/**
 * Extensions: protocol features beyond a revision (`io.modelcontextprotocol/tasks` is the first),
 * added to a server by the application and negotiated per request.
 *
 * An extension is a value with a name, the settings a server advertises for it in
 * `server/discover` (`capabilities.extensions[name]`), and a `make` effect run when the server's
 * Layer is built. `make` sees the server's {@link Route.Environment} (catalog, settings, executor,
 * hub) and returns what the extension contributes:
 *
 * - `routes`: methods of its own. They exist only for a request that names the extension in its
 *   `clientCapabilities.extensions`; any other request for them is answered -32021 with
 *   `data.requiredCapabilities.extensions[name] = {}`, before its params are looked at.
 * - `openRoutes`: methods of its own that every request may call (of a dialect that takes
 *   extensions), for an extension whose specification makes the server's declaration in
 *   `server/discover` the whole negotiation (Skills: a client calls `skills/list` once it has seen
 *   `capabilities.extensions["io.modelcontextprotocol/skills"]`, without declaring anything).
 * - `removed`: methods the extension reserves and does not serve (answered -32601, like an unknown
 *   method, before anything else).
 * - `wraps`: replacements for routes of the dialects (a route wrapped by {@link wrap} receives the
 *   original and decides per request, with `call.negotiated(name)`, whether to do its own thing).
 *   Several extensions may wrap one route: each receives the route as the extensions added before
 *   it left it.
 * - `listen`: keys of the `subscriptions/listen` filter it honours; their changes travel through the
 *   `SubscriptionHub` as topics (see {@link ListenFilter}).
 *
 * Installing an extension's package never enables it: a server serves an extension only when the
 * application adds it (`McpServer.make(...).extend(extension)`).
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import * as Extension from "@snodo/core/extension/Extension"
 * import * as Route from "@snodo/core/extension/Route"
 *
 * const Echo = Extension.make({
 *   name: "com.example/echo",
 *   make: () => Effect.succeed({
 *     routes: [Route.make({
 *       method: "echo/say",
 *       params: Schema.Struct({ text: Schema.String }),
 *       run: (call) => Effect.succeed(Route.result({ said: call.params.text }))
 *     })]
 *   })
 * })
 *
 * const Server = McpServer.make({ name: "demo", version: "1.0.0" }).extend(Echo)
 * ```
 *
 * @since 0.1.0
 */
import type { Effect, Scope } from "effect"
import type { CatalogError } from "../catalog/Catalog.ts"
import type { ConfigurationError } from "../pipeline/ConfigurationError.ts"
import type { ListenFilter } from "../runtime/Listen.ts"
import type * as Route from "./Route.ts"

const TypeId: unique symbol = Symbol.for("@snodo/core/Extension")


/**
 * A replacement of a dialect route, made by {@link wrap}.
 *
 * @category models
 * @since 0.1.0
 */
export interface Wrap {
  readonly original: Route.Any
  readonly replace: (route: Route.Any) => Route.Any
}

/**
 * Replaces `route` (a route of the dialects, by identity) with what `f` makes of it.
 *
 * @category combinators
 * @since 0.1.0
 */
export const wrap = <P, T>(route: Route.Route<P, T>, f: (route: Route.Route<P, T>) => Route.Route<P, T>): Wrap => ({
  original: route as unknown as Route.Any,
  // Applied only to the route object passed here, so the types `f` was written for hold.
  replace: f as unknown as (route: Route.Any) => Route.Any
})

/**
 * What an extension adds to a server.
 *
 * @category models
 * @since 0.1.0
 */
export interface Contribution {
  readonly routes?: ReadonlyArray<Route.Any>
  readonly openRoutes?: ReadonlyArray<Route.Any>
  readonly removed?: ReadonlyArray<string>
  readonly wraps?: ReadonlyArray<Wrap>
  readonly listen?: ReadonlyArray<ListenFilter>
}

/**
 * An extension.
 *
 * @category models
 * @since 0.1.0
 */
export interface Extension<out R = never> {
  readonly [TypeId]: typeof TypeId
  /** The extension identifier (`io.modelcontextprotocol/tasks`). */
  readonly name: string
  /** Advertised as `capabilities.extensions[name]` (default `{}`). */
  readonly settings: Readonly<Record<string, unknown>>
  /** Builds the contribution when the server's Layer is built (in its scope). */
  readonly make: (environment: Route.Environment) => Effect.Effect<Contribution, CatalogError | ConfigurationError, R | Scope.Scope>
}

/**
 * Whether a value is an extension.
 *
 * @category guards
 * @since 0.1.0
 */
export const isExtension = (u: unknown): u is Extension<unknown> => typeof u === "object" && u !== null && TypeId in u

/**
 * Defines an extension.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <R = never>(options: {
  readonly name: string
  readonly settings?: Readonly<Record<string, unknown>>
  /** Runs in the server Layer's scope: what it forks or acquires lives as long as the server. */
  readonly make: (environment: Route.Environment) => Effect.Effect<Contribution, CatalogError | ConfigurationError, R>
}): Extension<Exclude<R, Scope.Scope>> => ({
  [TypeId]: TypeId,
  name: options.name,
  settings: options.settings ?? {},
  // R is contained in Exclude<R, Scope> | Scope; the compiler cannot see it for a generic R.
  make: options.make as (environment: Route.Environment) => Effect.Effect<Contribution, CatalogError | ConfigurationError, Exclude<R, Scope.Scope> | Scope.Scope>
})

export { negotiated, required } from "../pipeline/Negotiation.ts"

export type { ListenFilter } from "../runtime/Listen.ts"
