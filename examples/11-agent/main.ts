/**
 * An agent: an `effect/ai` language model using an MCP server's tools through `@snodo/client`'s
 * `AiToolkit`. The model here is scripted (it asks for `add` once, then answers with the sum), so
 * the example runs offline; put a real provider's `LanguageModel` Layer in its place.
 *
 *   npx node --conditions=@snodo/source examples/11-agent/main.ts
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer } from "effect"
import { LanguageModel } from "effect/ai"
import { AiToolkit, McpClient, StdioClientTransport } from "@snodo/client"

const everything = new URL("../everything/main.mjs", import.meta.url).pathname

/** A scripted model: the first turn calls `add`, a turn that sees the tool's result answers. */
const ScriptedModel = Layer.effect(
  LanguageModel.LanguageModel,
  LanguageModel.make({
    generateText: (options) =>
      Effect.sync(() => {
        const result = options.prompt.content.flatMap((message) => message.role === "tool" ? message.content : [])
        const usage = { inputTokens: { total: 0 }, outputTokens: { total: 0 } }
        return result.length === 0
          ? [
            { type: "tool-call" as const, id: "call-1", name: "add", params: { a: 20, b: 22 } },
            { type: "finish" as const, reason: "tool-calls" as const, usage }
          ]
          : [
            { type: "text" as const, text: `The sum is ${JSON.stringify(result[0])}` },
            { type: "finish" as const, reason: "stop" as const, usage }
          ]
      }),
    streamText: () => Effect.die("not scripted") as never
  })
)

const program = Effect.gen(function*() {
  const { handlers, toolkit } = yield* AiToolkit.make
  const response = yield* LanguageModel.generateText({ prompt: "What is 20 + 22? Use the add tool.", toolkit }).pipe(
    Effect.provide(handlers)
  )
  const results = response.toolResults.map((part) => ({ tool: part.name, result: part.result }))
  process.stdout.write(`${JSON.stringify({ toolResults: results })}\n`)
})

program.pipe(
  Effect.provide(ScriptedModel),
  Effect.provide(McpClient.layer().pipe(Layer.provide(StdioClientTransport.layerNode({
    command: process.execPath,
    args: ["--conditions=@snodo/source", everything, "--stdio"]
  })))),
  NodeRuntime.runMain
)
