/**
 * The app's own check with `@snodo/testing`'s in-memory client (what its unit tests would use),
 * outside any test runner: prints the results as one JSON line on stdout.
 */
import { McpTestClient } from "@snodo/testing"
import { Effect, Layer } from "effect"
import { ServerLayer } from "./server.js"

const program = Effect.gen(function*() {
  const client = yield* McpTestClient
  const added = yield* client.callTool("add", { a: 1, b: 2 })
  const refused = yield* client.callTool("shout", { word: "" })
  const tools = yield* client.list("tools")
  return { structured: added.structuredContent, refused: refused.isError === true, tools: tools.map((tool) => tool.name) }
})

program.pipe(
  Effect.provide(McpTestClient.layer.pipe(Layer.provide(ServerLayer))),
  Effect.runPromise
).then((result) => process.stdout.write(`${JSON.stringify(result)}\n`), (error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exitCode = 1
})
