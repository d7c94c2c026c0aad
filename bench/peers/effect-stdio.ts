/**
 * Peer: the Effect stdio floor, a diagnostic for the start-up scenario. An Effect program that
 * loads what every Effect stdio server loads (`effect/Effect`, `effect/Schema`,
 * `@effect/platform-node`'s `NodeRuntime` and `NodeStdio`, as `bench/peers/snodo.ts` imports
 * them), decodes each stdin line with an Effect Schema and answers the raw floor's canned result.
 * No MCP semantics: its start-up is what any Effect stdio server pays before it does anything of
 * its own, so the gap between it and snodo is snodo's.
 *
 *   npx node bench/peers/effect-stdio.ts
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const serverInfo = { "io.modelcontextprotocol/serverInfo": { name: "bench-effect-stdio", version: "0" } }
const discover = { supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, resultType: "complete", _meta: serverInfo }

const Message = Schema.Struct({
  id: Schema.optional(Schema.Union([Schema.String, Schema.Number])),
  method: Schema.String,
  params: Schema.optional(Schema.Struct({ arguments: Schema.optional(Schema.Struct({ text: Schema.optional(Schema.String) })) }))
})
const decode = Schema.decodeUnknownSync(Message)

const answer = (line: string): string => {
  const message = decode(JSON.parse(line))
  if (message.id === undefined) return ""
  const text = message.params?.arguments?.text
  const result = message.method === "server/discover"
    ? discover
    : { content: [{ type: "text", text: JSON.stringify({ text }) }], structuredContent: { text }, resultType: "complete", _meta: serverInfo }
  return JSON.stringify({ jsonrpc: "2.0", id: message.id, result }) + "\n"
}

/** Serves stdin until it ends. */
const serve = Effect.callback<void>((resume) => {
  let buffered = ""
  process.stdin.setEncoding("utf8")
  process.stdin.on("data", (chunk: string) => {
    buffered += chunk
    const lines = buffered.split("\n")
    buffered = lines.pop() ?? ""
    const out = lines.filter((line) => line.trim() !== "").map(answer).join("")
    if (out !== "") process.stdout.write(out)
  })
  process.stdin.on("end", () => resume(Effect.void))
})

serve.pipe(Effect.provide(NodeStdio.layer), NodeRuntime.runMain)
