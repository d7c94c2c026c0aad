/**
 * The official TypeScript SDK v1 (`@modelcontextprotocol/sdk` 1.32.2, 2025-11-25 only) over
 * Streamable HTTP as its README sets it up (sessions, one transport per `initialize`; express
 * replaced by node:http): a POST that is neither an `initialize` nor carries a known session is
 * answered with HTTP 400 and a JSON-RPC error whose `id` is null. What our client's
 * `server/discover` probe meets first. Prints its URL: `npx node OfficialV1ReadmeServerMain.ts`.
 */
import { randomUUID } from "node:crypto"
import http from "node:http"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import { z } from "zod"

const transports: Record<string, StreamableHTTPServerTransport> = {}

const server = http.createServer((req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (chunk: Buffer) => chunks.push(chunk))
  req.on("end", async () => {
    const text = Buffer.concat(chunks).toString("utf8")
    const body: unknown = text === "" ? undefined : JSON.parse(text)
    const sessionId = req.headers["mcp-session-id"]
    let transport: StreamableHTTPServerTransport | undefined
    if (typeof sessionId === "string" && transports[sessionId] !== undefined) {
      transport = transports[sessionId]
    } else if (sessionId === undefined && req.method === "POST" && isInitializeRequest(body)) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void (transports[id] = created)
      })
      transport = created
      const mcp = new McpServer({ name: "official-v1-readme", version: "1.32.2" })
      mcp.registerTool("echo", { inputSchema: { text: z.string() } }, async ({ text: said }) => ({ content: [{ type: "text", text: said }] }))
      await mcp.connect(created)
    } else {
      res.writeHead(400, { "content-type": "application/json" })
      res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Bad Request: No valid session ID provided" }, id: null }))
      return
    }
    await transport.handleRequest(req, res, body)
  })
})
server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  process.stdout.write(`http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/mcp\n`)
})
