// The official SDK's one-tool server over stdio, as its README writes one.
import { McpServer } from "@modelcontextprotocol/server"
import { serveStdio } from "@modelcontextprotocol/server/stdio"
import { z } from "zod"

const Text = z.object({ text: z.string() })

serveStdio(() => {
  const server = new McpServer({ name: "echo", version: "1.0.0" }, { capabilities: { tools: {} } })
  server.registerTool("echo", {
    description: "Echoes its text",
    inputSchema: Text,
    outputSchema: Text
  }, async ({ text }) => ({ content: [{ type: "text", text: JSON.stringify({ text }) }], structuredContent: { text } }))
  return server
}, { legacy: "reject" })
