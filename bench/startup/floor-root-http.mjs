// The Effect floor over HTTP: what any Effect server on Node's HTTP server loads (NodeRuntime,
// Effect, Schema, node:http), a Schema decode per body, canned answers; no MCP. Imports from the root entry `effect`.
import { createServer } from "node:http"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Schema } from "effect"

const serverInfo = { "io.modelcontextprotocol/serverInfo": { name: "floor", version: "0" } }
const discover = { supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, resultType: "complete", _meta: serverInfo }
const Message = Schema.Struct({
  id: Schema.optional(Schema.Union([Schema.String, Schema.Number])),
  method: Schema.String,
  params: Schema.optional(Schema.Struct({ arguments: Schema.optional(Schema.Struct({ text: Schema.optional(Schema.String) })) }))
})
const decode = Schema.decodeUnknownSync(Message)

const answer = (body) => {
  const message = decode(JSON.parse(body))
  const text = message.params?.arguments?.text
  const result = message.method === "server/discover"
    ? discover
    : { content: [{ type: "text", text: JSON.stringify({ text }) }], structuredContent: { text }, resultType: "complete", _meta: serverInfo }
  return JSON.stringify({ jsonrpc: "2.0", id: message.id ?? null, result })
}

const serve = Effect.callback(() => {
  const server = createServer((req, res) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (chunk) => (body += chunk))
    req.on("end", () => {
      try {
        res.writeHead(200, { "content-type": "application/json" }).end(answer(body))
      } catch {
        res.writeHead(400, { "content-type": "application/json" }).end("{}")
      }
    })
  })
  server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1")
  return Effect.sync(() => server.close())
})

NodeRuntime.runMain(serve)
