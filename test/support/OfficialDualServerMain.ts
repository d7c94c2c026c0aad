/**
 * The official TypeScript server 2.4.0 over stdio serving both eras (`serveStdio`'s default
 * `legacy: "serve"`): one `echo` tool. For the client's interop test on 2025-11-25.
 */
import { McpServer } from "@modelcontextprotocol/server"
import { serveStdio } from "@modelcontextprotocol/server/stdio"
import { z } from "zod"

serveStdio(() => {
  const server = new McpServer({ name: "official-dual", version: "2.4.0" }, { capabilities: { tools: {} } })
  server.registerTool("echo", {
    description: "Echoes its text back as structured content",
    inputSchema: z.object({ text: z.string() }),
    outputSchema: z.object({ text: z.string() })
  }, async ({ text }) => ({ content: [{ type: "text", text }], structuredContent: { text } }))
  return server
})
