/**
 * An MCP App's view: a `ui://` resource whose contents are one HTML document
 * (`text/html;profile=mcp-app`), with the origins it may reach (`csp`), the browser permissions it
 * asks for, and rendering hints, in `_meta.ui`.
 *
 * The `_meta.ui` is written twice, as the SDKs do: on the `resources/list` entry (what a host can
 * review before any call) and on the contents `resources/read` returns (which a host prefers).
 * The host builds the iframe's Content Security Policy from `csp`; without it the host applies
 * its restrictive default (inline scripts and styles only, no network).
 *
 * An `AppResource` is a `Resource`: add it to the server like any other (`.add(view)`), and link
 * tools to it with `AppTool.make`.
 *
 * @example
 * ```ts
 * import * as AppResource from "@snodo/apps/AppResource"
 *
 * const view = AppResource.make({
 *   uri: "ui://weather/view.html",
 *   name: "weather-view",
 *   description: "The forecast as a chart",
 *   csp: { connectDomains: ["https://api.weather.example"] },
 *   prefersBorder: true
 * }, "<!doctype html><html><body><canvas id=chart></canvas></body></html>")
 * ```
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as Resource from "@snodo/core/Resource"
import type * as ComponentOptions from "@snodo/core/ComponentOptions"
import type * as Content from "@snodo/core/Content"
import * as McpUi from "./McpUi.ts"

const TypeId: unique symbol = Symbol.for("@snodo/apps/AppResource")

/**
 * What `make` takes besides the HTML: the resource's description (its MIME type is always
 * `text/html;profile=mcp-app`), its `_meta.ui` fields, and the usual component limits and cache
 * hint.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends Omit<Resource.Description, "uri" | "mimeType" | "_meta">, ComponentOptions.ComponentOptions {
  readonly uri: McpUi.ViewUri
  /** Origins the view may reach (`connect-src`, `img-src`/`script-src`/…, `frame-src`, `base-uri`). */
  readonly csp?: McpUi.Csp
  /** Browser permissions the view asks for (camera, microphone, geolocation, clipboard write). */
  readonly permissions?: McpUi.Permissions
  /** A dedicated sandbox origin, in the format of the host it is meant for. */
  readonly domain?: string
  /** Whether the host should draw a border and background around the view. */
  readonly prefersBorder?: boolean
  /** Other `_meta` keys of the resource (`ui` is written from the fields above). */
  readonly _meta?: Readonly<Record<string, unknown>>
  readonly cache?: Resource.CacheHint
}

/**
 * A view resource: a `Resource` that also carries its URI and `_meta.ui`.
 *
 * @since 0.1.0
 * @category models
 */
export interface AppResource<out R = never> extends Resource.Resource<R> {
  readonly [TypeId]: typeof TypeId
  readonly uri: McpUi.ViewUri
  readonly ui: McpUi.ResourceMeta
}

/**
 * Whether a value is a view resource made by {@link make}.
 *
 * @since 0.1.0
 * @category guards
 */
export const isAppResource = (u: unknown): u is AppResource<unknown> => typeof u === "object" && u !== null && TypeId in u

/**
 * The HTML of a view: a string, an Effect, or a function returning one (called for every read,
 * with the request services in context, like a resource's read).
 *
 * @since 0.1.0
 * @category models
 */
export type Html<E, R> = string | Effect.Effect<string, E, R> | (() => Effect.Effect<string, E, R>)

/**
 * The `_meta.ui` of `options`: only the fields given.
 *
 * @since 0.1.0
 * @category constructors
 */
export const uiOf = (options: Pick<Options, "csp" | "permissions" | "domain" | "prefersBorder">): McpUi.ResourceMeta => ({
  ...(options.csp === undefined ? {} : { csp: options.csp }),
  ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
  ...(options.domain === undefined ? {} : { domain: options.domain }),
  ...(options.prefersBorder === undefined ? {} : { prefersBorder: options.prefersBorder })
})

/**
 * Defines a view resource from its HTML document.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as AppResource from "@snodo/apps/AppResource"
 *
 * const fixed = AppResource.make({ uri: "ui://clock/view.html", name: "clock" }, "<!doctype html><p>tick</p>")
 * const fromDisk = AppResource.make({ uri: "ui://report/view.html", name: "report" },
 *   () => Effect.promise(() => import("node:fs/promises").then((fs) => fs.readFile("dist/report.html", "utf8"))))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <E = never, R = never>(options: Options, html: Html<E, R>): AppResource<R> => {
  const { uri, csp: _csp, permissions: _permissions, domain: _domain, prefersBorder: _prefersBorder, _meta, ...rest } = options
  const ui = uiOf(options)
  const meta: Record<string, unknown> | undefined = Object.keys(ui).length === 0
    ? _meta === undefined ? undefined : { ..._meta }
    : { ..._meta, ui }
  const source: Effect.Effect<string, E, R> = typeof html === "string"
    ? Effect.succeed(html)
    : Effect.isEffect(html)
    ? html
    : Effect.suspend(html)
  const read = Effect.map(source, (text): Content.ResourceContents =>
    meta === undefined ? { uri, mimeType: McpUi.mimeType, text } : { uri, mimeType: McpUi.mimeType, text, _meta: meta })
  const resource = Resource.make<E, R>({ ...rest, uri, mimeType: McpUi.mimeType, ...(meta === undefined ? {} : { _meta: meta }) }, read)
  return { ...resource, [TypeId]: TypeId, uri, ui }
}
