/**
 * MCP Apps on the initialize era (2025-11-25): a host declares `io.modelcontextprotocol/ui` once,
 * in `initialize`, and every call of the session sees it. The official v1 SDK client
 * (`@modelcontextprotocol/sdk` 1.32.2) against the everything server over a real stdio child
 * process, once with the MCP Apps capability and once without.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const main = fileURLToPath(new URL("../../examples/everything/main.mjs", import.meta.url))

const connect = async (capabilities: Record<string, unknown>) => {
  const client = new Client({ name: "v1-host", version: "1.0.0" }, { capabilities })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [main, "--stdio"], stderr: "pipe" }))
  return client
}

describe("MCP Apps on 2025-11-25", () => {
  it("answers a session whose initialize declared the extension for its view, and any other with plain content", async () => {
    const [apps, plain] = await Promise.all([
      connect({ extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } }),
      connect({})
    ])
    try {
      expect(apps.getServerCapabilities()).not.toHaveProperty("extensions")
      const { tools } = await apps.listTools()
      const calculator = tools.find((tool) => tool.name === "app_calculator")
      expect(calculator?._meta).toMatchObject({ ui: { resourceUri: "ui://everything/calculator.html" } })
      // no extension wraps on this era: the app-only tool is listed, marked for the host to keep from its model
      expect(tools.find((tool) => tool.name === "app_calculator_add")?._meta).toMatchObject({ ui: { visibility: ["app"] } })

      const rendered = await apps.callTool({ name: "app_calculator", arguments: { a: 2, b: 3 } })
      expect(rendered).toMatchObject({ content: [{ type: "text", text: "2 + 3 = 5" }], structuredContent: { a: 2, b: 3, sum: 5 } })
      const text = await plain.callTool({ name: "app_calculator", arguments: { a: 2, b: 3 } })
      expect(text).toMatchObject({ content: [{ type: "text", text: "2 + 3 = 5" }] })
      expect(text).not.toHaveProperty("structuredContent")

      const read = await apps.readResource({ uri: "ui://everything/calculator.html" })
      expect(read.contents[0]).toMatchObject({ mimeType: "text/html;profile=mcp-app", _meta: { ui: { prefersBorder: true } } })
    } finally {
      await Promise.all([apps.close(), plain.close()])
    }
  })
})
