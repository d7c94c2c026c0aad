/**
 * The official TypeScript server 2.4.0 (`@modelcontextprotocol/server` + `@modelcontextprotocol/node`)
 * in both of its set-ups, for test/client/ForeignServers.test.ts:
 *
 * - `handler`: `serveStdio(factory)` over stdio, `createMcpHandler(factory)` through `toNodeHandler`
 *   on node:http (the 2.x way; both eras served);
 * - `readme`: what its README shows, `server.connect(new StdioServerTransport())` over stdio, and
 *   the stateless HTTP example (`NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined })`,
 *   a server and a transport per request, behind the localhost Host and Origin checks).
 *
 * Tools: `echo` (input and output schemas), `plain` (no output schema: text only), `fail` (an
 * `isError` result whose text says why).
 *
 *   node OfficialServerMain.ts handler --stdio
 *   node OfficialServerMain.ts readme --http --port 3000
 */
import { createServer } from "node:http"
import {
  localhostHostValidation,
  localhostOriginValidation,
  type NodeIncomingMessageLike,
  NodeStreamableHTTPServerTransport,
  toNodeHandler
} from "@modelcontextprotocol/node"
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server"
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio"
import { z } from "zod"

const [setup = "handler", transport = "--stdio"] = process.argv.slice(2)
const port = Number(process.argv[process.argv.indexOf("--port") + 1])

const factory = (): McpServer => {
  const server = new McpServer({ name: `official-${setup}`, version: "2.4.0" }, { capabilities: { tools: {} } })
  server.registerTool("echo", {
    description: "Echoes its text back as structured content",
    inputSchema: z.object({ text: z.string() }),
    outputSchema: z.object({ text: z.string() })
  }, async ({ text }) => ({ content: [{ type: "text", text: JSON.stringify({ text }) }], structuredContent: { text } }))
  server.registerTool("plain", {
    description: "Answers text, with no output schema",
    inputSchema: z.object({ text: z.string() })
  }, async ({ text }) => ({ content: [{ type: "text", text: `plain: ${text}` }] }))
  server.registerTool("fail", {
    description: "Always fails, saying why",
    inputSchema: z.object({ reason: z.string() })
  }, async ({ reason }) => ({ content: [{ type: "text", text: `refused: ${reason}` }], isError: true }))
  return server
}

if (setup === "handler" && transport === "--stdio") {
  serveStdio(factory)
} else if (setup === "handler") {
  const node = toNodeHandler(createMcpHandler(factory))
  createServer((req, res) => void node(req as NodeIncomingMessageLike, res)).listen(port, "127.0.0.1")
} else if (transport === "--stdio") {
  await factory().connect(new StdioServerTransport())
} else {
  const validateHost = localhostHostValidation()
  const validateOrigin = localhostOriginValidation()
  createServer(async (req, res) => {
    if (!validateHost(req, res) || !validateOrigin(req, res)) return
    const server = factory()
    const perRequest = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    await server.connect(perRequest)
    await perRequest.handleRequest(req, res)
  }).listen(port, "127.0.0.1")
}
