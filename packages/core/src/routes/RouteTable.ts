/**
 * The route table: every method a server serves, per dialect, with the extensions' routes.
 *
 * Built once with the runtime from the enabled dialects and extensions: a route whose capability
 * the server does not offer is left out (its method is then unknown, -32601), extension wraps
 * replace the dialect routes they name; each route's params decoder is compiled at its first request. A
 * dialect that takes no extensions (`extensions: false`, the initialize era) gets neither their
 * methods nor their wraps: it serves its own routes as they are.
 * Transports ask the table what a method is (does it stream, which param is `Mcp-Name`).
 *
 * @example
 * ```ts
 * import * as RouteTable from "@snodo/core/extension/RouteTable"
 * import * as Methods from "@snodo/protocol/methods/Methods"
 *
 * const route = runtime.routes.find(Methods.ToolsCall.name)
 * route?.nameParam // "name": an HTTP client mirrors params.name in Mcp-Name
 * ```
 *
 * @since 0.1.0
 */
import type * as Extension from "./Extension.ts"
import type { Dialect } from "./Dialect.ts"
import { InvalidParams, MethodNotFound } from "@snodo/protocol/jsonrpc/McpError"
import * as Route from "./Route.ts"

/**
 * A route as the table holds it: its decoder, and the extension it belongs to (negotiated per
 * request), if any.
 *
 * @category models
 * @since 0.1.0
 */
export interface Entry {
  readonly route: Route.Any
  readonly decode: (params: unknown) => unknown
  readonly extension: string | undefined
}

/**
 * A method as the table knows it, found with one lookup: what it is (for transports), whether an
 * enabled dialect or extension serves it, and its entry under each dialect. A transport that looked
 * a method up (to check its headers, or whether it streams) hands this to `ServerRuntime.handle`
 * with the request, so a request's method is looked up once.
 *
 * @category models
 * @since 0.1.0
 */
export interface Resolved {
  /** The method's route under the preferred dialect (or any): what {@link RouteTable.find} answers. */
  readonly route: Route.Any
  /** Whether any enabled dialect or extension serves it: what {@link RouteTable.serves} answers. */
  readonly served: boolean
  /** Its entry under each dialect that serves it: what {@link RouteTable.lookup} answers. */
  readonly entries: ReadonlyMap<Dialect, Entry>
}

/**
 * @category models
 * @since 0.1.0
 */
export interface RouteTable {
  /** `method` as the table knows it, or `undefined` when no dialect or extension has it (one lookup). */
  readonly resolve: (method: string) => Resolved | undefined
  /** The route of `method` under `dialect`, or `undefined` (-32601). */
  readonly lookup: (dialect: Dialect, method: string) => Entry | undefined
  /** Whether any enabled dialect or extension serves `method` (checked before admission). */
  readonly serves: (method: string) => boolean
  /**
   * What `method` is under the preferred dialect (or any), for transports: whether it streams,
   * which params are mirrored in headers. Known even when the server does not offer its capability.
   */
  readonly find: (method: string) => Route.Any | undefined
  /** Every method served, in table order. */
  readonly methods: ReadonlyArray<string>
  /**
   * The -32601 for a method under `dialect` (default: the preferred one): a method the dialect
   * removed says so, so a client of another revision has something to show.
   */
  readonly notFound: (method: string, dialect?: Dialect) => MethodNotFound
}

/**
 * An extension's contribution, named.
 *
 * @category models
 * @since 0.1.0
 */
export interface Contributed {
  readonly name: string
  readonly contribution: Extension.Contribution
}

/**
 * A route's entry. Its params decoder is compiled at the first request to the route, so that the
 * routes a server enables but is not asked for cost nothing at start (docs/startup.md).
 */
const entryOf = (route: Route.Any, extension: string | undefined): Entry => {
  let decode: ((params: unknown) => unknown) | undefined
  return { route, decode: (params) => (decode ??= Route.decoderOf(route))(params), extension }
}

/**
 * Whether a decode failed.
 *
 * @category guards
 * @since 0.1.0
 */
export const isInvalid = (decoded: unknown): decoded is InvalidParams => decoded instanceof InvalidParams

/**
 * Builds the table.
 *
 * @category constructors
 * @since 0.1.0
 */
/**
 * What a refusal of an initialize-era method says to a server that enables no initialize-era
 * dialect: the option that enables one.
 *
 * @category constants
 * @since 0.1.0
 */
export const initializeEraHint =
  'initialize-era clients (MCP 2025-11-25) are served once the server enables that dialect: McpServer.make({ dialects: ["2026-07-28", "2025-11-25"] })'

export const make = (options: {
  readonly dialects: ReadonlyArray<Dialect>
  readonly extensions: ReadonlyArray<Contributed>
  /** Whether the server offers a capability (tools, resources, …, subscriptions). */
  readonly offers: (capability: Route.Capability) => boolean
}): RouteTable => {
  const { dialects, extensions } = options
  const enabled = (route: Route.Any) => route.capability === undefined || options.offers(route.capability)
  // Several extensions may wrap one route (Tasks wraps tools/call, Apps tools/list): their wraps
  // compose, in the order the extensions were added.
  const wraps = new Map<Route.Any, Array<Extension.Wrap>>()
  for (const { contribution } of extensions) {
    for (const wrap of contribution.wraps ?? []) {
      const existing = wraps.get(wrap.original)
      if (existing === undefined) wraps.set(wrap.original, [wrap])
      else existing.push(wrap)
    }
  }
  const replaced = new Map<Route.Any, Route.Any>()
  /** A dialect route as the extensions leave it (replaced once, however many dialects share it). */
  const wrapped = (route: Route.Any): Route.Any => {
    let result = replaced.get(route)
    if (result === undefined) {
      result = (wraps.get(route) ?? []).reduce((inner, wrap) => wrap.replace(inner), route)
      replaced.set(route, result)
    }
    return result
  }
  const extensionEntries = new Map<string, Entry>()
  for (const { contribution, name } of extensions) {
    for (const route of contribution.routes ?? []) {
      if (enabled(route)) extensionEntries.set(route.method, entryOf(route, name))
    }
    // Served without negotiation: the entry names no extension, so the runtime does not ask for one.
    for (const route of contribution.openRoutes ?? []) {
      if (enabled(route)) extensionEntries.set(route.method, entryOf(route, undefined))
    }
  }
  const byDialect = new Map<Dialect, Map<string, Entry>>()
  // A route shared by several dialects is wrapped and compiled once (once more, unwrapped, for the
  // dialects that take no extensions).
  const shared = new Map<Route.Any, Entry>()
  const plain = new Map<Route.Any, Entry>()
  for (const dialect of dialects) {
    const extended = dialect.extensions !== false
    const entries = new Map<string, Entry>()
    for (const route of dialect.routes) {
      if (!enabled(route)) continue
      const cache = extended ? shared : plain
      let entry = cache.get(route)
      if (entry === undefined) {
        entry = entryOf(extended ? wrapped(route) : route, undefined)
        cache.set(route, entry)
      }
      entries.set(route.method, entry)
    }
    if (extended) for (const [method, entry] of extensionEntries) if (!entries.has(method)) entries.set(method, entry)
    byDialect.set(dialect, entries)
  }
  // A method an extension reserves is unknown even if a dialect served it.
  const reserved = new Set(extensions.flatMap(({ contribution }) => contribution.removed ?? []))
  const all = new Map<string, Route.Any>()
  for (const entries of byDialect.values()) {
    for (const [method, entry] of entries) if (!all.has(method)) all.set(method, entry.route)
  }
  for (const method of reserved) all.delete(method)
  const known = new Map<string, Route.Any>()
  for (const dialect of dialects) {
    for (const route of dialect.routes) if (!known.has(route.method)) known.set(route.method, wrapped(route))
  }
  for (const { contribution } of extensions) {
    for (const route of [...(contribution.routes ?? []), ...(contribution.openRoutes ?? [])]) {
      if (!known.has(route.method)) known.set(route.method, route)
    }
  }
  for (const method of reserved) known.delete(method)
  const resolved = new Map<string, Resolved>()
  const entriesOf = (method: string): ReadonlyMap<Dialect, Entry> => {
    const entries = new Map<Dialect, Entry>()
    for (const [dialect, served] of byDialect) {
      const entry = reserved.has(method) ? undefined : served.get(method)
      if (entry !== undefined) entries.set(dialect, entry)
    }
    return entries
  }
  // Every served method is known (`all` is a subset of `known`); both without the reserved ones.
  for (const method of new Set([...known.keys(), ...all.keys()])) {
    resolved.set(method, { route: all.get(method) ?? known.get(method)!, served: all.has(method), entries: entriesOf(method) })
  }
  const supported = dialects.map((dialect) => dialect.version).join(", ")
  const preferred = dialects[0]
  // An initialize-era method refused by a server that enables no such era: say how to enable one.
  const eraHint = dialects.some((dialect) => dialect.session !== undefined) ? "" : `; ${initializeEraHint}`
  return {
    resolve: (method) => resolved.get(method),
    lookup: (dialect, method) => resolved.get(method)?.entries.get(dialect),
    serves: (method) => resolved.get(method)?.served === true,
    find: (method) => resolved.get(method)?.route,
    methods: [...all.keys()],
    notFound: (method, dialect = preferred) =>
      new MethodNotFound({
        message: dialect !== undefined && dialect.removed.has(method) && !reserved.has(method)
          ? `Method not found: ${method} is not part of MCP ${dialect.version} (${
            dialect.session === undefined ? "stateless" : "initialize-era"
          }; supported versions: ${supported})${dialect.session === undefined ? eraHint : ""}`
          : `Method not found: ${method}`
      })
  }
}
