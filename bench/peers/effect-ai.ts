/**
 * Peer: Effect's own MCP server (`effect/ai` McpServer, effect 4.1.0) with the bench's tools,
 * serving only revision 2026-07-28: Streamable HTTP at `/mcp` through `layerHttp` (the long-lived,
 * shared server) on `@effect/platform-node` NodeHttpServer, or stdio through `layerStdio`.
 *
 *   npx node bench/peers/effect-ai.ts --http --port 3003 [--tools list|listen]
 *   npx node bench/peers/effect-ai.ts --stdio
 */
import http from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { Effect, Layer, Schema } from "effect"
import { McpProtocol, McpServer, Tool, Toolkit } from "effect/ai"
import * as HttpRouter from "effect/http/HttpRouter"
import { host, listToolNames, parseArgs } from "./args.ts"

const args = parseArgs()
const names = args.catalog === "list" ? listToolNames : ["echo"]

const Text = Schema.Struct({ text: Schema.String })
const tools = names.map((name) =>
  Tool.make(name, {
    description: name === "echo" ? "Echoes its text back as structured content" : `Bench tool ${name}`,
    parameters: Text,
    success: Text
  }).annotate(Tool.Readonly, true).annotate(Tool.Idempotent, true)
)
const toolkit = Toolkit.make(...tools)
const handlers = toolkit.toLayer(
  Object.fromEntries(names.map((name) => [name, ({ text }: { readonly text: string }) => Effect.succeed({ text })]))
)

/** `publish` (the listen catalog): one tools/list_changed to every open listen stream, through the server's notifier. */
const Publish = Tool.make("publish", { description: "Publishes tools/list_changed to every open listen stream", success: Schema.Struct({ published: Schema.Boolean }) })
const publishKit = Toolkit.make(Publish)
const publishHandlers = publishKit.toLayer(Effect.gen(function*() {
  const server = yield* McpServer.McpServer
  return { publish: () => server.notifications["notifications/tools/list_changed"]({}).pipe(Effect.as({ published: true })) }
}))

const registrations = args.catalog === "listen"
  ? Layer.mergeAll(McpServer.toolkit(toolkit).pipe(Layer.provide(handlers)), McpServer.toolkit(publishKit).pipe(Layer.provide(publishHandlers)))
  : McpServer.toolkit(toolkit).pipe(Layer.provide(handlers))
const info = { name: "bench-effect-ai", version: "4.1.0", protocols: [McpProtocol.v2026_07_28], registrations } as const

if (args.transport === "stdio") {
  Layer.launch(McpServer.layerStdio(info).pipe(Layer.provide(NodeStdio.layer))).pipe(NodeRuntime.runMain)
} else {
  const mcp = McpServer.layerHttp({ ...info, path: "/mcp" })
  const node = NodeHttpServer.layer(() => {
    const server = http.createServer()
    server.keepAliveTimeout = 60_000
    return server
  }, { port: args.port, host })
  Layer.launch(HttpRouter.serve(mcp, { disableLogger: true, disableListenLog: true }).pipe(Layer.provide(node))).pipe(NodeRuntime.runMain)
}
