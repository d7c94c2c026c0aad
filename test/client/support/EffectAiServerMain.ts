/**
 * Effect's own MCP server (`effect/ai` McpServer) for test/client/ForeignServers.test.ts, over
 * stdio (`layerStdio`) or Streamable HTTP at `/mcp` (`layerHttp`), serving 2026-07-28:
 *
 * - `echo`: `success` a struct (structured content);
 * - `divide`: a declared `failure` (`DivisionByZero`), which effect/ai writes as an `isError`
 *   result with the failure as JSON in its text content.
 *
 *   node EffectAiServerMain.ts --stdio
 *   node EffectAiServerMain.ts --http --port 3000
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { createServer } from "node:http"
import { Effect, Layer, Schema } from "effect"
import { McpProtocol, McpServer, Tool, Toolkit } from "effect/ai"
import * as HttpRouter from "effect/http/HttpRouter"

export class DivisionByZero extends Schema.TaggedClass<DivisionByZero>()("DivisionByZero", { dividend: Schema.Number }) {}

const Echo = Tool.make("echo", {
  description: "Echoes its text back",
  parameters: Schema.Struct({ text: Schema.String }),
  success: Schema.Struct({ text: Schema.String })
})
const Divide = Tool.make("divide", {
  description: "Divides a by b",
  parameters: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  success: Schema.Struct({ quotient: Schema.Number }),
  failure: DivisionByZero
})
const toolkit = Toolkit.make(Echo, Divide)
const handlers = toolkit.toLayer({
  echo: ({ text }) => Effect.succeed({ text }),
  divide: ({ a, b }) => b === 0 ? Effect.fail(new DivisionByZero({ dividend: a })) : Effect.succeed({ quotient: a / b })
})

const info = {
  name: "effect-ai-interop",
  version: "4.1.5",
  protocols: [McpProtocol.v2026_07_28],
  registrations: McpServer.toolkit(toolkit).pipe(Layer.provide(handlers))
} as const

if (process.argv.includes("--stdio")) {
  Layer.launch(McpServer.layerStdio(info).pipe(Layer.provide(NodeStdio.layer))).pipe(NodeRuntime.runMain)
} else {
  const port = Number(process.argv[process.argv.indexOf("--port") + 1])
  Layer.launch(HttpRouter.serve(McpServer.layerHttp({ ...info, path: "/mcp" }), { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
  )).pipe(NodeRuntime.runMain)
}
