/**
 * The Apps extension through the in-memory client: what `tools/list`, `resources/list` and
 * `resources/read` say of app tools and views (checked against the ext-apps `schema.json`), the
 * per-request answer of `Apps.supported`, app-only tools left out for hosts without views, and the
 * checks that fail the Layer.
 */
import { describe, expect, it } from "@effect/vitest"
import { Content, McpRequest, McpServer, Tool, ToolResult } from "@snodo/core"
import { McpTestClient } from "@snodo/testing"
import { Ajv2020 } from "ajv/dist/2020.js"
import { Effect, Layer, Option, Schema } from "effect"
import { createRequire } from "node:module"
import { AppResource, Apps, AppTool, McpUi } from "@snodo/apps"

const extAppsSchema = createRequire(import.meta.url)("@modelcontextprotocol/ext-apps/schema.json") as {
  readonly $defs: Readonly<Record<string, object>>
}
const ajv = new Ajv2020({ strict: false })
for (const [key, definition] of Object.entries(extAppsSchema.$defs)) ajv.addSchema({ ...definition, $id: `ext-apps:${key}` })
const validate = (definition: string, value: unknown): ReadonlyArray<string> => {
  const check = ajv.getSchema(`ext-apps:${definition}`)
  if (check === undefined) throw new Error(`no ${definition} in the ext-apps schema`)
  return check(value) ? [] : (check.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ""}`)
}

const views = { extensions: { [Apps.name]: { mimeTypes: [McpUi.mimeType] } } }

const view = AppResource.make({
  uri: "ui://counter/view.html",
  name: "counter-view",
  description: "The counter",
  csp: { connectDomains: ["https://api.example.com"], resourceDomains: ["https://*.cdn.example.com"] },
  permissions: { clipboardWrite: {} },
  prefersBorder: true
}, "<!doctype html><html><body><p id=count></p></body></html>")

const show = AppTool.make(
  Tool.make("counter_show", { description: "Shows the counter", input: Schema.Struct({}) }, () =>
    Effect.map(Apps.supported, (rendered) =>
      rendered ? ToolResult.content([Content.text("Counter: 1")], { structuredContent: { count: 1 } }) : "Counter: 1 (text only)")),
  { view, visibility: ["model", "app"] }
)
// data-last, as in a pipe
const bump = AppTool.make({ view, visibility: ["app"] })(
  Tool.make("counter_bump", { description: "Adds one", input: Schema.Struct({}) }, () => Effect.succeed("2"))
)
const plain = Tool.make("plain", { description: "No view", input: Schema.Struct({}) }, () => Effect.succeed("plain"))

const server = McpServer.make({ name: "counter", version: "1.0.0" }).add(view, show, bump, plain)
const layerOf = (definition: McpServer.McpServer<McpRequest.McpRequest>) => McpTestClient.layer.pipe(Layer.provide(definition.layer))
const Client = layerOf(server.extend(Apps.extension()))

const names = (result: Readonly<Record<string, unknown>>) => (result["tools"] as ReadonlyArray<{ readonly name: string }>).map((tool) => tool.name)

describe("Apps", () => {
  it.effect("lists app tools with _meta.ui (McpUiToolMeta) to a host that renders views, app-only ones included", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const listed = yield* client.request("tools/list", {}, { capabilities: views })
      expect(names(listed)).toEqual(["counter_show", "counter_bump", "plain"])
      const [shown, bumped] = listed["tools"] as ReadonlyArray<{ readonly _meta: Readonly<Record<string, unknown>> }>
      expect(shown?._meta).toEqual({ ui: { resourceUri: "ui://counter/view.html", visibility: ["model", "app"] }, "ui/resourceUri": "ui://counter/view.html" })
      expect(bumped?._meta["ui"]).toEqual({ resourceUri: "ui://counter/view.html", visibility: ["app"] })
      expect(validate("McpUiToolMeta", shown?._meta["ui"])).toEqual([])
      expect(validate("McpUiToolMeta", bumped?._meta["ui"])).toEqual([])
    }).pipe(Effect.provide(Client)))

  it.effect("leaves app-only tools out of tools/list for a host without views, ", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      expect(names(yield* client.request("tools/list", {}))).toEqual(["counter_show", "plain"])
      // declared without the MCP App MIME type: not a host that renders views
      expect(names(yield* client.request("tools/list", {}, { capabilities: { extensions: { [Apps.name]: {} } } }))).toEqual(["counter_show", "plain"])
    }).pipe(Effect.provide(Client)))

  it.effect("keeps the cursors of the list without app-only tools apart from the full list's", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const first = yield* client.request("tools/list", {})
      const second = yield* client.request("tools/list", { cursor: first["nextCursor"] })
      expect([names(first), names(second), second["nextCursor"]]).toEqual([["counter_show"], ["plain"], undefined])
      const refused = yield* Effect.flip(client.request("tools/list", { cursor: first["nextCursor"] }, { capabilities: views }))
      expect(refused.code).toBe(-32602)
    }).pipe(Effect.provide(layerOf(McpServer.make({ name: "paged", version: "1.0.0", pageSize: 1 }).add(view, show, bump, plain).extend(Apps.extension())))))

  it.effect("lists app-only tools to every request with appOnlyTools: \"all\"", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      expect(names(yield* client.request("tools/list", {}))).toEqual(["counter_show", "counter_bump", "plain"])
    }).pipe(Effect.provide(layerOf(server.extend(Apps.extension({ appOnlyTools: "all" }))))))

  it.effect("serves the view as text/html;profile=mcp-app with _meta.ui (McpUiResourceMeta) in the list and the contents", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const resources = yield* client.list("resources")
      const listed = resources.find((resource) => resource.uri === view.uri)
      expect(listed).toMatchObject({ name: "counter-view", mimeType: "text/html;profile=mcp-app" })
      expect(validate("McpUiResourceMeta", listed?._meta?.["ui"])).toEqual([])
      const read = yield* client.readResource(view.uri)
      const [contents] = read["contents"] as ReadonlyArray<Readonly<Record<string, unknown>>>
      expect(contents).toMatchObject({ uri: view.uri, mimeType: McpUi.mimeType, text: expect.stringContaining("<p id=count>") })
      const ui = (contents?.["_meta"] as Readonly<Record<string, unknown>> | undefined)?.["ui"]
      expect(ui).toEqual({
        csp: { connectDomains: ["https://api.example.com"], resourceDomains: ["https://*.cdn.example.com"] },
        permissions: { clipboardWrite: {} },
        prefersBorder: true
      })
      expect(validate("McpUiResourceMeta", ui)).toEqual([])
    }).pipe(Effect.provide(Client)))

  it.effect("tells a handler per request whether the host renders views", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const rendered = yield* client.callTool("counter_show", {}, { capabilities: views })
      expect(rendered.structuredContent).toEqual({ count: 1 })
      const plainText = yield* client.callTool("counter_show", {})
      expect(plainText.structuredContent).toBeUndefined()
      expect(plainText.content).toEqual([{ type: "text", text: "Counter: 1 (text only)" }])
    }).pipe(Effect.provide(Client)))

  it.effect("advertises io.modelcontextprotocol/ui in server/discover", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const discovered = yield* client.discover()
      expect(discovered.capabilities.extensions).toEqual({ [Apps.name]: {} })
    }).pipe(Effect.provide(Client)))

  it.effect("fails the Layer when a tool's view is missing or not an app view, or a _meta.ui is malformed", () =>
    Effect.gen(function*() {
      const build = (definition: McpServer.McpServer<McpRequest.McpRequest>) =>
        Effect.flip(Layer.build(definition.extend(Apps.extension()).layer).pipe(Effect.scoped)).pipe(Effect.map((error) => String(error.message)))
      const base = McpServer.make({ name: "broken", version: "1.0.0" })
      expect(yield* build(base.add(show))).toContain("names the view ui://counter/view.html, which is not a resource of this server")
      const notHtml = AppTool.make(Tool.make("t", { input: Schema.Struct({}) }, () => Effect.succeed("")), { view: "ui://text" })
      expect(yield* build(base.add(notHtml).add(
        AppResource.make({ uri: "ui://other", name: "other" }, "x"),
        // a ui:// resource written by hand with another MIME type
        { ...AppResource.make({ uri: "ui://text", name: "text" }, "x"), description: { uri: "ui://text", name: "text", mimeType: "text/plain" } }
      ))).toContain("has the MIME type text/plain")
      const badVisibility = Tool.make("v", { input: Schema.Struct({}), _meta: { ui: { resourceUri: "ui://x", visibility: ["everyone"] } } }, () => Effect.succeed(""))
      expect(yield* build(base.add(badVisibility))).toContain("is not an McpUiToolMeta")
      const jsView = AppResource.make({ uri: "https://example.com/view" as McpUi.ViewUri, name: "js" }, "x")
      expect(yield* build(base.add(jsView))).toContain("the view https://example.com/view does not have a ui:// URI")
      const badCsp = AppResource.make({ uri: "ui://csp", name: "csp", csp: { connectDomains: "https://api.example.com" } as unknown as McpUi.Csp }, "x")
      expect(yield* build(base.add(badCsp))).toContain("the view ui://csp has a _meta.ui that is not an McpUiResourceMeta")
      const cached = McpServer.make({ name: "cached", version: "1.0.0", cache: { "tools/list": { ttlMs: 60_000, cacheScope: "public" } } })
      expect(yield* build(cached.add(view, bump))).toContain("so its cache hint cannot be public")
      const notUi = Tool.make("u", { input: Schema.Struct({}), _meta: { ui: { resourceUri: "https://example.com/view" } } }, () => Effect.succeed(""))
      expect(yield* build(base.add(notUi))).toContain("which is not a ui:// URI")
    }))

  it("reads the host's declaration from client capabilities", () => {
    expect(Apps.capabilityOf({})).toEqual(Option.none())
    expect(Apps.capabilityOf(views)).toEqual(Option.some({ mimeTypes: [McpUi.mimeType] }))
    expect(Apps.capabilityOf({ extensions: { [Apps.name]: { mimeTypes: "text/html" } } })).toEqual(Option.none())
    expect(Apps.rendersViews(views)).toBe(true)
    expect(Apps.rendersViews({ extensions: { [Apps.name]: { mimeTypes: ["text/html"] } } })).toBe(false)
    expect(AppTool.isAppOnly(bump)).toBe(true)
    expect(AppTool.isAppOnly(show)).toBe(false)
    expect(AppTool.isAppOnly(plain)).toBe(false)
  })
})
