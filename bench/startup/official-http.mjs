// The official SDK's one-tool server over Streamable HTTP, on node:http through its Node adapter.
import { createServer } from "node:http"
import { toNodeHandler } from "@modelcontextprotocol/node"
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server"
import { z } from "zod"

const Text = z.object({ text: z.string() })

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: "echo", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.registerTool("echo", {
    description: "Echoes its text",
    inputSchema: Text,
    outputSchema: Text
  }, async ({ text }) => ({ content: [{ type: "text", text: JSON.stringify({ text }) }], structuredContent: { text } }))
  return server
}, { legacy: "reject" })

const node = toNodeHandler(handler)
createServer((req, res) => void node(req, res)).listen(Number(process.env.PORT ?? 3000), "127.0.0.1")
