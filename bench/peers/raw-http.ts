/**
 * Peer: the HTTP floor. node:http, reads the whole body, `JSON.parse`s it, and writes a canned
 * 2026-07-28 result with the request's id (the echo result, or with `--tools list` a listing of the
 * list catalog serialized once at start). No MCP semantics: the cost of HTTP and JSON.
 *
 *   npx node bench/peers/raw-http.ts --port 3002 [--tools list]
 */
import http from "node:http"
import { cannedToolsList, host, parseArgs } from "./args.ts"

const args = parseArgs()
const serverInfo = { "io.modelcontextprotocol/serverInfo": { name: "bench-raw", version: "0" } }
const echoResult = (text: unknown) => ({
  content: [{ type: "text", text: JSON.stringify({ text }) }],
  structuredContent: { text },
  resultType: "complete",
  _meta: serverInfo
})

const cannedList = cannedToolsList("bench-raw")

const server = http.createServer((req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (chunk: Buffer) => chunks.push(chunk))
  req.on("end", () => {
    let body: { id?: unknown; params?: { arguments?: { text?: unknown } } }
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as typeof body
    } catch {
      res.writeHead(400, { "content-type": "application/json" })
      res.end(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
      return
    }
    const frame = args.catalog === "list"
      ? `{"jsonrpc":"2.0","id":${JSON.stringify(body.id ?? null)},"result":${cannedList}}`
      : JSON.stringify({ jsonrpc: "2.0", id: body.id ?? null, result: echoResult(body.params?.arguments?.text) })
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(frame) })
    res.end(frame)
  })
})
server.keepAliveTimeout = 60_000
server.listen(args.port, host)
