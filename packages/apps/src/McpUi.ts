/**
 * The MCP Apps metadata (`io.modelcontextprotocol/ui`, SEP-1865) as Effect Schemas: what a tool
 * says in `_meta.ui`, what a view resource says in `_meta.ui`, and what a host declares in its
 * client capabilities.
 *
 * Written from the definitions of the same names in `schema.json` of
 * `@modelcontextprotocol/ext-apps` 2.0.4 (`McpUiToolMeta`, `McpUiResourceMeta`, `McpUiResourceCsp`,
 * `McpUiResourcePermissions`, `McpUiClientCapabilities`, `McpUiToolVisibility`); our tests check
 * what the server writes against that file. Decoding ignores keys it does not know (a newer host
 * or server may send more), so reading a capability never fails on a field added later.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import * as McpUi from "@snodo/apps/McpUi"
 *
 * const meta: McpUi.ResourceMeta = { csp: { connectDomains: ["https://api.example.com"] }, prefersBorder: true }
 * Schema.decodeUnknownSync(McpUi.ResourceMeta)(meta)
 * ```
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * The MIME type of an MCP App's HTML view: `text/html;profile=mcp-app`.
 *
 * @since 0.1.0
 * @category constants
 */
export const mimeType = "text/html;profile=mcp-app"

/**
 * The URI scheme every view resource uses.
 *
 * @since 0.1.0
 * @category constants
 */
export const scheme = "ui://"

/**
 * A view resource's URI: `ui://` and a path.
 *
 * @since 0.1.0
 * @category models
 */
export type ViewUri = `ui://${string}`

/**
 * Who may use a tool: `"model"` (the agent sees and calls it), `"app"` (views of this server call
 * it through the host). Default both.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Visibility = Schema.Literals(["model", "app"])

/**
 * @since 0.1.0
 * @category models
 */
export type Visibility = typeof Visibility.Type

/**
 * A tool's `_meta.ui`: the view that renders its results, and who may use it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolMeta = Schema.Struct({
  resourceUri: Schema.optionalKey(Schema.String),
  visibility: Schema.optionalKey(Schema.Array(Visibility))
})

/**
 * @since 0.1.0
 * @category models
 */
export type ToolMeta = typeof ToolMeta.Type

const Origins = Schema.optionalKey(Schema.Array(Schema.String))

/**
 * The origins a view may reach, mapped by the host to its Content Security Policy. Each list
 * empty or absent means none (the host's restrictive default).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Csp = Schema.Struct({
  /** `connect-src`: fetch, XHR, WebSocket. */
  connectDomains: Origins,
  /** `img-src`, `script-src`, `style-src`, `font-src`, `media-src`; `https://*.example.com` allowed. */
  resourceDomains: Origins,
  /** `frame-src`: nested iframes. */
  frameDomains: Origins,
  /** `base-uri`. */
  baseUriDomains: Origins
})

/**
 * @since 0.1.0
 * @category models
 */
export type Csp = typeof Csp.Type

const Granted = Schema.optionalKey(Schema.Struct({}))

/**
 * Browser permissions a view asks for (the host may set the iframe's `allow` from them; a view
 * should not assume they are granted).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Permissions = Schema.Struct({
  camera: Granted,
  microphone: Granted,
  geolocation: Granted,
  clipboardWrite: Granted
})

/**
 * @since 0.1.0
 * @category models
 */
export type Permissions = typeof Permissions.Type

/**
 * A view resource's `_meta.ui`: its CSP origins, permissions, a dedicated sandbox domain (its
 * format is the host's) and whether it prefers a border.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResourceMeta = Schema.Struct({
  csp: Schema.optionalKey(Csp),
  permissions: Schema.optionalKey(Permissions),
  domain: Schema.optionalKey(Schema.String),
  prefersBorder: Schema.optionalKey(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ResourceMeta = typeof ResourceMeta.Type

/**
 * What a host declares under `capabilities.extensions["io.modelcontextprotocol/ui"]`: the view
 * MIME types it renders (`text/html;profile=mcp-app` for MCP Apps).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ClientCapabilities = Schema.Struct({
  mimeTypes: Schema.optionalKey(Schema.Array(Schema.String))
})

/**
 * @since 0.1.0
 * @category models
 */
export type ClientCapabilities = typeof ClientCapabilities.Type
