/**
 * The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865) on snodo's extension seam.
 *
 * A host that renders apps declares `extensions["io.modelcontextprotocol/ui"] = { mimeTypes:
 * ["text/html;profile=mcp-app"] }` in its client capabilities: in every request's `_meta` on
 * 2026-07-28, in `initialize` on 2025-11-25 (snodo then gives every request of the session those
 * capabilities). Nothing carries over between requests on 2026-07-28, so the question "does this
 * host render views?" is asked per request:
 *
 * - in a handler, {@link supported} (or {@link hostCapability}) reads it from the `McpRequest`, so
 *   one tool answers a view host with `structuredContent` for its view and any other host with
 *   plain content;
 * - in `tools/list`, the extension leaves out the tools only views call (`visibility: ["app"]`)
 *   for a request whose host does not render views: such a host would hand them to the model. A
 *   host that renders views gets every tool and keeps the app-only ones from its model itself, as
 *   the spec requires of it.
 *
 * When the server's Layer is built the extension checks every tool's `_meta.ui` against the
 * ext-apps schema, and that the view it names is a resource of this server with the MCP App MIME
 * type, and every view's URI and `_meta.ui` (a `CatalogError` naming the tool or view otherwise). It is advertised in `server/discover` as
 * `extensions["io.modelcontextprotocol/ui"] = {}`.
 *
 * On the initialize era (2025-11-25) the extensions' route wraps do not apply (snodo serves that
 * era without extensions), so `tools/list` lists app-only tools to every client there, each
 * marked `visibility: ["app"]`; {@link supported} works in both eras.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Content, McpServer, Tool, ToolResult } from "@snodo/core"
 * import { Apps, AppResource, AppTool } from "@snodo/apps"
 *
 * const view = AppResource.make({ uri: "ui://time/view.html", name: "time-view" }, "<!doctype html><p id=t></p>")
 *
 * const time = AppTool.make(Tool.make("time", { description: "The time", input: Schema.Struct({}) }, () =>
 *   Effect.gen(function*() {
 *     const now = new Date().toISOString()
 *     return (yield* Apps.supported)
 *       ? ToolResult.content([Content.text(now)], { structuredContent: { now } }) // the view reads structuredContent
 *       : `It is ${now}`
 *   })), { view })
 *
 * const Server = McpServer.make({ name: "time", version: "1.0.0" }).add(view, time).extend(Apps.extension())
 * ```
 *
 * @since 0.1.0
 */
import { Catalog, McpRequest } from "@snodo/core"
import { Extension, List, Pagination, Route } from "@snodo/core/extension"
import { InvalidParams } from "@snodo/core/McpError"
import type * as Resource from "@snodo/core/Resource"
import type * as Tool from "@snodo/core/Tool"
import { Effect, Exit, Option, Schema } from "effect"
import * as AppResource from "./AppResource.ts"
import * as AppTool from "./AppTool.ts"
import * as McpUi from "./McpUi.ts"

/**
 * The extension's identifier.
 *
 * @since 0.1.0
 * @category constants
 */
export const name = "io.modelcontextprotocol/ui"

const decodeCapability = Schema.decodeUnknownOption(McpUi.ClientCapabilities)

/**
 * What a host declared for MCP Apps in these client capabilities, if anything (a malformed
 * declaration is none).
 *
 * @example
 * ```ts
 * import * as Apps from "@snodo/apps/Apps"
 *
 * Apps.capabilityOf({ extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } })
 * // Option.some({ mimeTypes: ["text/html;profile=mcp-app"] })
 * ```
 *
 * @since 0.1.0
 * @category capabilities
 */
export const capabilityOf = (clientCapabilities: Readonly<Record<string, unknown>>): Option.Option<McpUi.ClientCapabilities> => {
  if (!Extension.negotiated(clientCapabilities, name)) return Option.none()
  return decodeCapability((clientCapabilities["extensions"] as Readonly<Record<string, unknown>>)[name])
}

/**
 * Whether these client capabilities say the host renders MCP App views: the extension declared
 * with `text/html;profile=mcp-app` among its `mimeTypes` (the spec makes `mimeTypes` required).
 *
 * @since 0.1.0
 * @category capabilities
 */
export const rendersViews = (clientCapabilities: Readonly<Record<string, unknown>>): boolean =>
  Option.match(capabilityOf(clientCapabilities), {
    onNone: () => false,
    onSome: (capability) => capability.mimeTypes?.includes(McpUi.mimeType) === true
  })

/**
 * The current request's MCP Apps declaration, if its host made one.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const hostCapability: Effect.Effect<Option.Option<McpUi.ClientCapabilities>, never, McpRequest.McpRequest> = McpRequest.McpRequest
  .useSync((request) => capabilityOf(request.meta.clientCapabilities))

/**
 * Whether the current request's host renders MCP App views (see {@link rendersViews}).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Apps from "@snodo/apps/Apps"
 *
 * const answer = Effect.map(Apps.supported, (views) => views ? "rendered in the view" : "plain text")
 * ```
 *
 * @since 0.1.0
 * @category capabilities
 */
export const supported: Effect.Effect<boolean, never, McpRequest.McpRequest> = McpRequest.McpRequest
  .useSync((request) => rendersViews(request.meta.clientCapabilities))

/**
 * Options of {@link extension}.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Which requests `tools/list` shows the app-only tools (`visibility: ["app"]`) to:
   * `"views"` (the default) only requests whose host renders views; `"all"` every request.
   */
  readonly appOnlyTools?: "views" | "all"
}

const decodeToolMeta = Schema.decodeUnknownExit(McpUi.ToolMeta, { onExcessProperty: "error" })

const fail = (message: string) => Effect.fail(new Catalog.CatalogError({ message: `Apps: ${message}` }))

/** Checks one tool's `_meta.ui`; fails the Layer with what is wrong. */
const checkTool = (tool: Tool.Any, catalog: Catalog.Catalog): Effect.Effect<void, Catalog.CatalogError> => {
  const declared = AppTool.declared(tool)
  if (declared === undefined) return Effect.void
  const decoded = decodeToolMeta(declared)
  if (Exit.isFailure(decoded)) {
    return fail(`the tool "${tool.name}" has a _meta.ui that is not an McpUiToolMeta (resourceUri, visibility of "model" | "app")`)
  }
  const uri = decoded.value.resourceUri
  if (uri === undefined) return Effect.void
  if (!uri.startsWith(McpUi.scheme)) return fail(`the tool "${tool.name}" names the view ${uri}, which is not a ui:// URI`)
  const resource = catalog.resources.get(uri)
  if (resource === undefined) return fail(`the tool "${tool.name}" names the view ${uri}, which is not a resource of this server`)
  if (resource.description.mimeType !== McpUi.mimeType) {
    return fail(`the view ${uri} of the tool "${tool.name}" has the MIME type ${String(resource.description.mimeType)}, not ${McpUi.mimeType}`)
  }
  return Effect.void
}

const decodeResourceMeta = Schema.decodeUnknownExit(McpUi.ResourceMeta, { onExcessProperty: "error" })

/** Checks a view made with `AppResource.make` (its type says as much; JavaScript callers get it here). */
const checkView = (resource: Resource.Resource<unknown>): Effect.Effect<void, Catalog.CatalogError> => {
  if (!AppResource.isAppResource(resource)) return Effect.void
  if (!resource.uri.startsWith(McpUi.scheme)) return fail(`the view ${resource.uri} does not have a ui:// URI`)
  if (Exit.isFailure(decodeResourceMeta(resource.ui))) {
    return fail(`the view ${resource.uri} has a _meta.ui that is not an McpUiResourceMeta (csp, permissions, domain, prefersBorder)`)
  }
  return Effect.void
}

/**
 * The MCP Apps extension. Add the view resources and app tools to the server as usual, then
 * `.extend(Apps.extension())`.
 *
 * @example
 * ```ts
 * import { McpServer } from "@snodo/core"
 * import * as Apps from "@snodo/apps/Apps"
 *
 * const Server = McpServer.make({ name: "weather", version: "1.0.0" }).add(view, forecast, refresh).extend(Apps.extension())
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const extension = (options: Options = {}): Extension.Extension =>
  Extension.make({
    name,
    settings: {},
    make: (environment) =>
      Effect.gen(function*() {
        const { catalog } = environment
        for (const resource of catalog.resources.values()) yield* checkView(resource)
        for (const compiled of catalog.tools.values()) yield* checkTool(compiled.tool, catalog)
        const appOnly = new Set([...catalog.tools.values()].filter((compiled) => AppTool.isAppOnly(compiled.tool)).map((compiled) => compiled.tool.name))
        if (appOnly.size === 0 || options.appOnlyTools === "all") return {}
        if (environment.settings.cache["tools/list"]?.cacheScope === "public") {
          return yield* fail(
            `tools/list differs by host (the app-only tools ${[...appOnly].join(", ")} are left out for hosts without views), so its cache hint cannot be public; make it private, or list them to all with appOnlyTools: "all"`
          )
        }

        // A principal's view of the list is one object while the catalog stands: its filtered copy is made once.
        const hidden = new WeakMap<Pagination.PagedList<Readonly<Record<string, unknown>>>, Pagination.PagedList<Readonly<Record<string, unknown>>>>()
        const withoutAppOnly = (list: Pagination.PagedList<Readonly<Record<string, unknown>>>) => {
          let filtered = hidden.get(list)
          if (filtered === undefined) {
            const items = list.items.filter((entry) => !appOnly.has(String(entry["name"])))
            // A scope of its own: a cursor of the full list is refused on this one, and the other way round.
            filtered = Pagination.makeList(items, list.pageSize, `${list.fingerprint}/${name}`)
            hidden.set(list, filtered)
          }
          return filtered
        }

        const toolsList = Extension.wrap(List.ToolsList, (route) => ({
          ...route,
          run: (call, target) => {
            if (rendersViews(call.meta.clientCapabilities)) return route.run(call, target)
            const list = withoutAppOnly(call.environment.views("tools", { principal: call.principal, method: call.request.method }))
            const page = Pagination.page(list, call.params.cursor)
            if (page instanceof InvalidParams) return Effect.fail(page)
            return Effect.succeed(Route.result(page.nextCursor === undefined ? { tools: page.items } : { tools: page.items, nextCursor: page.nextCursor }))
          }
        }))
        return { wraps: [toolsList] }
      })
  })
