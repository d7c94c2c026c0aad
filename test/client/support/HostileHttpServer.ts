/**
 * A hostile Streamable HTTP server on a loopback port (node:http, port 0), for the client's tests
 * of issue 38: it answers `server/discover` (or, `legacy-*`, `initialize` with a session) and
 * `ping` as a server should, and misbehaves on `tools/call` or `subscriptions/listen` as the
 * scenario says. Run in the test's process, or as `npx node HostileHttpServer.ts <scenario>` (it
 * prints its URL), so that the client measured in a child process holds only the client.
 */
import http from "node:http"

export type Scenario =
  | "listen-flood"
  | "big-json"
  | "sse-line"
  | "sse-event"
  | "result-then-open"
  | "legacy-no-delete"

const MiB = 1024 * 1024

/** Writes `total` bytes of `piece` with the socket's backpressure, until done or the client goes away. */
const pour = async (res: http.ServerResponse, piece: string, total: number): Promise<void> => {
  let written = 0
  const state = { closed: false }
  res.once("close", () => state.closed = true)
  while (written < total && !state.closed) {
    if (!res.write(piece)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off("drain", done)
          res.off("close", done)
          resolve()
        }
        res.on("drain", done).on("close", done)
      })
    }
    written += piece.length
  }
}

const json = (res: http.ServerResponse, value: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(200, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify(value))
}

const sse = (res: http.ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
const event = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`

/** What the server saw: DELETEs, open streams closed by the client. */
export interface Seen {
  deletes: number
  closedStreams: number
}

/** Starts the server; `close` stops it (and every connection). */
export const start = (scenario: Scenario, count = 100_000): Promise<{ readonly url: string; readonly seen: Seen; readonly close: () => Promise<void> }> => {
  const seen: Seen = { deletes: 0, closedStreams: 0 }
  const legacy = scenario.startsWith("legacy-")
  const server = http.createServer((req, res) => {
    if (req.method === "DELETE") {
      seen.deletes++
      return // never answered (legacy-no-delete); the client must not wait for it forever
    }
    if (req.method === "GET") {
      res.writeHead(405).end()
      return
    }
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id?: string | number; method?: string; params?: { notifications?: unknown } }
      const { id, method } = message
      if (id === undefined || method === undefined) return void res.writeHead(202).end()
      const result = (value: unknown, headers?: Record<string, string>) => json(res, { jsonrpc: "2.0", id, result: value }, headers)
      switch (method) {
        case "server/discover":
          if (legacy) return json(res, { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } })
          return result({ resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: { tools: { listChanged: true } }, serverInfo: { name: "hostile-http", version: "0" } })
        case "initialize":
          return result({ protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "hostile-http", version: "0" } }, { "mcp-session-id": "session-1" })
        case "ping":
          return result({})
        case "subscriptions/listen": {
          sse(res)
          const meta = { "io.modelcontextprotocol/subscriptionId": id }
          res.write(event({ jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { notifications: message.params?.notifications ?? {}, _meta: meta } }))
          res.once("close", () => seen.closedStreams++)
          if (scenario !== "listen-flood") return
          void (async () => {
            const change = event({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: meta } })
            await pour(res, change.repeat(64), 64 * change.length * Math.ceil(count / 64))
            res.end(event({ jsonrpc: "2.0", id, result: { resultType: "complete", _meta: meta } })) // the server ends the stream
          })()
          return
        }
        case "tools/call":
          switch (scenario) {
            case "big-json":
              res.writeHead(200, { "content-type": "application/json" })
              res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`)
              return void pour(res, "x".repeat(MiB), 300 * MiB)
            case "sse-line":
              sse(res)
              res.write("data: ")
              return void pour(res, "x".repeat(MiB), 300 * MiB)
            case "sse-event":
              sse(res)
              return void pour(res, `data: ${"x".repeat(1022)}\n`.repeat(1024), 300 * MiB)
            case "result-then-open":
              sse(res)
              res.write(event({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "the answer" }] } }))
              res.once("close", () => seen.closedStreams++)
              return // the stream stays open
            default:
              return result({ content: [{ type: "text", text: "fine" }] })
          }
        default:
          return json(res, { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } })
      }
    })
  })
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({
        url: `http://127.0.0.1:${port}/mcp`,
        seen,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const started = await start(process.argv[2] as Scenario, Number(process.argv[3] ?? "100000"))
  process.stdout.write(`${started.url}\n`)
}
