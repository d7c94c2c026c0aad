/**
 * MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865) from the host's side: tell the server the
 * client renders views, and read a tool's view.
 *
 * A host declares the extension in its client capabilities: `McpClient.layer({ extensions:
 * Apps.extensions })` sends `extensions["io.modelcontextprotocol/ui"] = { mimeTypes:
 * ["text/html;profile=mcp-app"] }` (in every request's `_meta` on 2026-07-28, in `initialize` on
 * 2025-11-25), and a server that adapts to the host (`Apps.supported` in `@snodo/apps`) answers
 * for a view. A tool with a view names a `ui://` resource in `_meta.ui.resourceUri` (or the older
 * flat `_meta["ui/resourceUri"]`); {@link AppsClient.view} reads it: one HTML document with the
 * MIME type `text/html;profile=mcp-app` and its `_meta.ui` (CSP, permissions, border), which the
 * host renders in a sandboxed iframe.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { Apps, McpClient, StdioClientTransport } from "@snodo/client"
 *
 * const program = Effect.gen(function*() {
 *   const apps = yield* Apps.make
 *   const tools = yield* (yield* McpClient).listTools
 *   const withView = tools.find((tool) => Apps.viewUri(tool) !== undefined)
 *   if (withView !== undefined) {
 *     const view = yield* apps.view(withView)
 *     yield* Effect.log(view.uri, view.html.length, view.ui)
 *   }
 * }).pipe(Effect.provide(McpClient.layer({ extensions: Apps.extensions }).pipe(
 *   Layer.provide(StdioClientTransport.layerNode({ command: "node", args: ["server.js"] }))
 * )))
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Predicate, Schema } from "effect"
import type * as Tools from "@snodo/protocol/wire/Tools"
import { McpClient } from "./McpClient.ts"
import type { McpClientError } from "./McpClientError.ts"

/**
 * The extension's identifier.
 *
 * @category constants
 * @since 0.1.0
 */
export const extensionName = "io.modelcontextprotocol/ui"

/**
 * The MIME type of a view.
 *
 * @category constants
 * @since 0.1.0
 */
export const mimeType = "text/html;profile=mcp-app"

/**
 * The client capability of a host that renders views, for `McpClient`'s `extensions` option.
 *
 * @category constants
 * @since 0.1.0
 */
export const extensions: Readonly<Record<string, unknown>> = { [extensionName]: { mimeTypes: [mimeType] } }

/**
 * Who may call a tool: the model, the server's views, or both (absent: both).
 *
 * @category models
 * @since 0.1.0
 */
export type Visibility = ReadonlyArray<"model" | "app">

/**
 * A tool's view could not be read: the tool names none (`NoView`), or the resource is not one
 * HTML document of the Apps MIME type (`NotAView`).
 *
 * @category errors
 * @since 0.1.0
 */
export class AppViewError extends Schema.TaggedError<AppViewError>()("AppViewError", {
  reason: Schema.Literals(["NoView", "NotAView"]),
  tool: Schema.String,
  message: Schema.String
}) {}

/**
 * A tool's view as the server serves it.
 *
 * @category models
 * @since 0.1.0
 */
export interface View {
  readonly uri: string
  readonly mimeType: string
  readonly html: string
  /** Its `_meta.ui`: `csp`, `permissions`, `domain`, `prefersBorder` (as the server wrote them). */
  readonly ui: Readonly<Record<string, unknown>>
}

/**
 * The Apps side of the connected server.
 *
 * @category models
 * @since 0.1.0
 */
export interface AppsClient {
  /** The server declared the extension. */
  readonly supported: boolean
  /** Reads the view of a tool (a listed tool, or a name looked up in `tools/list`). */
  readonly view: (tool: Tools.Tool | string) => Effect.Effect<View, McpClientError | AppViewError>
}

const record = (value: unknown): Readonly<Record<string, unknown>> => Predicate.isObject(value) ? value : {}

/**
 * The `ui://` URI of a tool's view, or `undefined` for a tool without one.
 *
 * @category utils
 * @since 0.1.0
 */
export const viewUri = (tool: Tools.Tool): string | undefined => {
  const meta = record(tool._meta)
  const uri = record(meta["ui"])["resourceUri"] ?? meta["ui/resourceUri"]
  return typeof uri === "string" ? uri : undefined
}

/**
 * Who may call a tool (`["model", "app"]` when it does not say).
 *
 * @category utils
 * @since 0.1.0
 */
export const visibility = (tool: Tools.Tool): Visibility => {
  const given = record(record(tool._meta)["ui"])["visibility"]
  return Array.isArray(given) ? given.filter((who): who is "model" | "app" => who === "model" || who === "app") : ["model", "app"]
}

/**
 * The Apps client of the {@link McpClient} in context.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: Effect.Effect<AppsClient, never, McpClient> = Effect.gen(function*() {
  const client = yield* McpClient
  const view: AppsClient["view"] = (tool) =>
    Effect.gen(function*() {
      const listed = typeof tool === "string" ? (yield* client.listTools).find((candidate) => candidate.name === tool) : tool
      const name = typeof tool === "string" ? tool : tool.name
      const uri = listed === undefined ? undefined : viewUri(listed)
      if (uri === undefined) return yield* new AppViewError({ reason: "NoView", tool: name, message: `The tool ${name} has no view (_meta.ui.resourceUri)` })
      const result = yield* client.readResource(uri)
      const content = result.contents.find((item) => item.uri === uri) ?? result.contents[0]
      const html = content !== undefined && "text" in content && typeof content.text === "string" ? content.text : undefined
      if (content === undefined || html === undefined || content.mimeType !== mimeType) {
        return yield* new AppViewError({
          reason: "NotAView",
          tool: name,
          message: `The view ${uri} of ${name} is not an HTML document of type ${mimeType} (got ${content?.mimeType ?? "no contents"})`
        })
      }
      return { uri, mimeType: content.mimeType, html, ui: record(record(content._meta)["ui"]) }
    })
  return { supported: record(client.server.capabilities["extensions"])[extensionName] !== undefined, view }
})
