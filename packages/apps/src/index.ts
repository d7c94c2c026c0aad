/**
 * @snodo/apps: the MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865) for snodo servers.
 *
 * `AppResource.make` defines a view (a `ui://` HTML resource with its CSP origins and
 * permissions), `AppTool.make` links a tool to it (`_meta.ui.resourceUri`, `visibility`),
 * `Apps.extension()` adds the extension to a server, and `Apps.supported` tells a handler whether
 * the host of the current request renders views. `McpUi` holds the metadata Schemas.
 *
 * @since 0.1.0
 */
export * as AppResource from "./AppResource.ts"
export * as Apps from "./Apps.ts"
export * as AppTool from "./AppTool.ts"
export * as McpUi from "./McpUi.ts"
