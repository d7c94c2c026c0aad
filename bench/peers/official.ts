/**
 * Peer: the official TypeScript SDK server 2.4.0 with the bench's tools, over Streamable HTTP
 * (`createMcpHandler` on node:http through `toNodeHandler`, JSON responses for non-streaming calls)
 * or stdio (`serveStdio`). The SDK builds a fresh `McpServer` per HTTP request by design.
 *
 *   npx node bench/peers/official.ts --http --port 3001 [--tools list|listen]
 *   npx node bench/peers/official.ts --stdio
 */
import http from "node:http"
import { type NodeIncomingMessageLike, toNodeHandler } from "@modelcontextprotocol/node"
import { createMcpHandler, McpServer, type ServerNotifier } from "@modelcontextprotocol/server"
import { serveStdio } from "@modelcontextprotocol/server/stdio"
import { z } from "zod"
import { host, listToolNames, parseArgs, toolDescription } from "./args.ts"

const args = parseArgs()
const names = args.catalog === "list" ? listToolNames : ["echo"]
const input = z.object({ text: z.string() })
const output = z.object({ text: z.string() })

/** Where `publish` sends its change: the HTTP handler's (or nowhere over stdio). */
let notifier: ServerNotifier | undefined

const factory = (): McpServer => {
  const server = new McpServer({ name: "bench-official", version: "2.4.0" }, { capabilities: { tools: {} } })
  for (const name of names) {
    server.registerTool(name, {
      description: toolDescription(name),
      inputSchema: input,
      outputSchema: output,
      annotations: { readOnlyHint: true, idempotentHint: true }
    }, async ({ text }) => ({ content: [{ type: "text", text: JSON.stringify({ text }) }], structuredContent: { text } }))
  }
  if (args.catalog === "listen") {
    server.registerTool("publish", { description: "Publishes tools/list_changed to every open listen stream", inputSchema: z.object({}) }, async () => {
      notifier?.toolsChanged()
      return { content: [{ type: "text", text: "published" }] }
    })
  }
  return server
}

if (args.transport === "stdio") {
  serveStdio(factory, { legacy: "reject" })
} else {
  const handler = createMcpHandler(factory, { legacy: "reject" })
  notifier = handler.notify
  const node = toNodeHandler(handler)
  const server = http.createServer((req, res) => void node(req as NodeIncomingMessageLike, res)) // IncomingMessage types url as `string | undefined`
  server.keepAliveTimeout = 60_000
  server.listen(args.port, host)
}
