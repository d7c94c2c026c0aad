/**
 * An MCP client with `@snodo/client`: spawns the everything server over stdio (or connects to a
 * URL), lists its tools, makes a typed call, answers an elicitation round with a handler, and
 * prints what it got as one JSON line.
 *
 *   npx node --conditions=@snodo/source examples/10-client/main.ts               # spawns the everything server
 *   npx node --conditions=@snodo/source examples/10-client/main.ts http://127.0.0.1:3000/mcp
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { InputHandlers, McpClient, StdioClientTransport, StreamableHttpClientTransport } from "@snodo/client"

const url = process.argv[2]
const everything = new URL("../everything/main.mjs", import.meta.url).pathname

const Transport = url === undefined
  ? StdioClientTransport.layerNode({
    command: process.execPath,
    args: ["--conditions=@snodo/source", everything, "--stdio"],
    onStderr: (line) => process.stderr.write(`server: ${line}\n`)
  })
  : StreamableHttpClientTransport.layer({ url }).pipe(Layer.provide(FetchHttpClient.layer))

/** The application's answers to the server's questions. */
const Handlers = InputHandlers.layer({
  elicit: () => Effect.succeed({ action: "accept", content: { name: "Ada" } })
})

/** `add`'s contract, as the server declares it. */
const Add = McpClient.tool("add", {
  input: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  output: Schema.Struct({ sum: Schema.Number })
})

const program = Effect.gen(function*() {
  const client = yield* McpClient
  const tools = yield* client.listTools
  const { sum } = yield* client.call(Add, { a: 20, b: 22 })
  const greeting = yield* client.callTool("test_input_required_result_elicitation")
  const text = greeting.content[0]?.type === "text" ? greeting.content[0].text : ""
  process.stdout.write(`${JSON.stringify({ era: client.server.era, tools: tools.length, sum, greeting: text })}\n`)
})

program.pipe(
  Effect.provide(McpClient.layer().pipe(Layer.provide(Transport), Layer.provide(Handlers))),
  NodeRuntime.runMain
)
