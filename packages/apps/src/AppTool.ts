/**
 * App tools: a tool whose results a host that renders MCP Apps shows in a view (`_meta.ui.resourceUri`
 * names a `ui://` resource of the same server), and who may use it (`_meta.ui.visibility`).
 *
 * `make` takes any tool made with `Tool.make` and returns it with `_meta.ui` set (and the older
 * flat key `_meta["ui/resourceUri"]`, which hosts written before the nested form still read). The
 * handler is unchanged: it should always answer meaningful `content` (the model reads it, and a
 * host without apps shows only that); `Apps.supported` tells it whether this request's host renders
 * views, to add `structuredContent` for the view or answer plain text.
 *
 * Visibility: `["model", "app"]` (the default) is an ordinary tool whose results also render in
 * the view; `["app"]` is a tool only views call (a refresh button), which hosts keep out of the
 * model's tool list and which the `Apps` extension does not list to clients that do not render
 * views; `["model"]` is a tool the view may not call.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Tool } from "@snodo/core"
 * import * as AppResource from "@snodo/apps/AppResource"
 * import * as AppTool from "@snodo/apps/AppTool"
 *
 * const view = AppResource.make({ uri: "ui://counter/view.html", name: "counter-view" }, "<!doctype html><p>…</p>")
 *
 * const show = AppTool.make(
 *   Tool.make("counter_show", { description: "Shows the counter", input: Schema.Struct({}) }, () => Effect.succeed("Counter: 0")),
 *   { view })
 * const bump = AppTool.make(
 *   Tool.make("counter_bump", { description: "Adds one", input: Schema.Struct({}) }, () => Effect.succeed("Counter: 1")),
 *   { view, visibility: ["app"] })
 * ```
 *
 * @since 0.1.0
 */
import type * as Tool from "@snodo/core/Tool"
import { dual } from "effect/Function"
import type * as AppResource from "./AppResource.ts"
import type * as McpUi from "./McpUi.ts"

/**
 * The older, flat key some hosts read instead of `_meta.ui.resourceUri`.
 *
 * @since 0.1.0
 * @category constants
 */
export const legacyResourceUriKey = "ui/resourceUri"

/**
 * How a tool is linked to its view.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The view resource (or its `ui://` URI, for a view served some other way by this server). */
  readonly view: AppResource.AppResource<unknown> | McpUi.ViewUri
  /** Who may use the tool (default both: `["model", "app"]`, left implicit on the wire). */
  readonly visibility?: ReadonlyArray<McpUi.Visibility>
}

/**
 * The `_meta.ui` of a tool linked by `options`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const uiOf = (options: Options): McpUi.ToolMeta => ({
  resourceUri: typeof options.view === "string" ? options.view : options.view.uri,
  ...(options.visibility === undefined ? {} : { visibility: [...options.visibility] })
})

/**
 * The `_meta.ui` a tool declares, if any (any shape: see `Apps` for the check at start).
 *
 * @since 0.1.0
 * @category getters
 */
export const declared = (tool: Tool.Any): unknown => tool.description._meta?.["ui"]

/**
 * Whether a tool is for views only (`visibility` without `"model"`).
 *
 * @since 0.1.0
 * @category getters
 */
export const isAppOnly = (tool: Tool.Any): boolean => {
  const ui = declared(tool)
  if (typeof ui !== "object" || ui === null) return false
  const visibility = (ui as { readonly visibility?: unknown }).visibility
  return Array.isArray(visibility) && !visibility.includes("model")
}

/**
 * Links a tool to its view: the same tool with `_meta.ui` (and `_meta["ui/resourceUri"]`) set,
 * other `_meta` keys kept.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: {
  (options: Options): <R>(tool: Tool.Tool<R>) => Tool.Tool<R>
  <R>(tool: Tool.Tool<R>, options: Options): Tool.Tool<R>
} = dual(2, <R>(tool: Tool.Tool<R>, options: Options): Tool.Tool<R> => {
  const ui = uiOf(options)
  return {
    ...tool,
    description: {
      ...tool.description,
      _meta: { ...tool.description._meta, ui, [legacyResourceUriKey]: ui.resourceUri }
    }
  }
})

