// The Effect floor over stdio: what any Effect stdio server loads (NodeRuntime, NodeStdio, Effect,
// Schema), a Schema decode per line, canned answers; no MCP. Imports from the root entry `effect`.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { Effect, Schema } from "effect"

const serverInfo = { "io.modelcontextprotocol/serverInfo": { name: "floor", version: "0" } }
const discover = { supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, resultType: "complete", _meta: serverInfo }
const Message = Schema.Struct({
  id: Schema.optional(Schema.Union([Schema.String, Schema.Number])),
  method: Schema.String,
  params: Schema.optional(Schema.Struct({ arguments: Schema.optional(Schema.Struct({ text: Schema.optional(Schema.String) })) }))
})
const decode = Schema.decodeUnknownSync(Message)

const answer = (line) => {
  const message = decode(JSON.parse(line))
  if (message.id === undefined) return ""
  const text = message.params?.arguments?.text
  const result = message.method === "server/discover"
    ? discover
    : { content: [{ type: "text", text: JSON.stringify({ text }) }], structuredContent: { text }, resultType: "complete", _meta: serverInfo }
  return JSON.stringify({ jsonrpc: "2.0", id: message.id, result }) + "\n"
}

const serve = Effect.callback((resume) => {
  let buffered = ""
  process.stdin.setEncoding("utf8")
  process.stdin.on("data", (chunk) => {
    buffered += chunk
    const lines = buffered.split("\n")
    buffered = lines.pop() ?? ""
    const out = lines.filter((line) => line.trim() !== "").map(answer).join("")
    if (out !== "") process.stdout.write(out)
  })
  process.stdin.on("end", () => resume(Effect.void))
})

serve.pipe(Effect.provide(NodeStdio.layer), NodeRuntime.runMain)
