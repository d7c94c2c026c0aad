/**
 * The Vercel AI SDK's MCP client (`@ai-sdk/mcp` 2.0.99, which understands MCP Apps) against the
 * everything server over Streamable HTTP (a real listener on port 0): with the MCP Apps client
 * capabilities it lists `app_calculator` with its UI metadata, keeps the app-only tool apart from
 * the model's, reads the view and gets `structuredContent` for it; without them it never sees the
 * app-only tool and gets the sum as text.
 */
import { createMCPClient, mcpAppClientCapabilities, readMCPAppResource, splitMCPAppTools } from "@ai-sdk/mcp"
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import * as NodeServe from "@snodo/http/NodeServe"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ServerLayer } from "../../examples/everything/server.ts"

let runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>
let url: string

beforeAll(async () => {
  runtime = ManagedRuntime.make(NodeServe.layer({ port: 0 }).pipe(Layer.provide(ServerLayer)))
  const server = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  if (server.address._tag === "UnixPathAddress") throw new Error("expected TCP")
  url = `http://127.0.0.1:${server.address.port}/mcp`
})
afterAll(async () => {
  await runtime?.dispose()
})

const view = "ui://everything/calculator.html"

describe("the AI SDK MCP client and MCP Apps", () => {
  it("lists the app tool with its UI metadata to a host that renders apps, reads the view, and gets structuredContent", async () => {
    const client = await createMCPClient({ transport: { type: "http", url }, capabilities: mcpAppClientCapabilities })
    try {
      const tools = await client.tools()
      const calculator = tools["app_calculator"]
      expect(calculator).toBeDefined()
      expect(calculator?._meta).toMatchObject({ ui: { resourceUri: view }, "ui/resourceUri": view })
      expect((calculator as { readonly metadata?: unknown } | undefined)?.metadata).toMatchObject({
        toolName: "app_calculator",
        app: { resourceUri: view, mimeType: "text/html;profile=mcp-app" }
      })
      expect((tools["app_calculator_add"] as { readonly metadata?: unknown } | undefined)?.metadata).toMatchObject({
        app: { resourceUri: view, visibility: ["app"] }
      })

      const { modelVisible, appVisible } = splitMCPAppTools(await client.listTools())
      expect(modelVisible.tools.map((tool) => tool.name)).toContain("app_calculator")
      expect(modelVisible.tools.map((tool) => tool.name)).not.toContain("app_calculator_add")
      expect(appVisible.tools.map((tool) => tool.name)).toEqual(["app_calculator_add"])

      const resource = await readMCPAppResource({ client, uri: view })
      expect(resource).toMatchObject({ uri: view, mimeType: "text/html;profile=mcp-app", meta: { prefersBorder: true } })
      expect(resource.html).toContain("ui/initialize")

      const result = await client.callTool({ name: "app_calculator", arguments: { a: 1, b: 2 } })
      expect(result).toMatchObject({ content: [{ type: "text", text: "1 + 2 = 3" }], structuredContent: { a: 1, b: 2, sum: 3 } })
    } finally {
      await client.close()
    }
  })

  it("answers a client without MCP Apps with plain content, and lists no app-only tool to it", async () => {
    const client = await createMCPClient({ transport: { type: "http", url } })
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name)
      expect(names).toContain("app_calculator")
      expect(names).not.toContain("app_calculator_add")
      const result = await client.callTool({ name: "app_calculator", arguments: { a: 1, b: 2 } })
      expect(result).toMatchObject({ content: [{ type: "text", text: "1 + 2 = 3" }] })
      expect(result).not.toHaveProperty("structuredContent")
    } finally {
      await client.close()
    }
  })
})
