// snodo's one-tool server over Streamable HTTP, with the root entries.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { McpServer, StdioTransport, Tool } from "@snodo/core"
import { NodeServe } from "@snodo/http"
import { Effect, Schema } from "effect"

const Text = Schema.Struct({ text: Schema.String })
const echo = Tool.make("echo", { description: "Echoes its text", input: Text, output: Text }, ({ text }) => Effect.succeed({ text }))

NodeServe.serve({ port: Number(process.env.PORT ?? 3000) }).pipe(
  Effect.provide(McpServer.make({ name: "echo", version: "1.0.0" }).add(echo).layer),
  Effect.provide(StdioTransport.stderrLogger),
  NodeRuntime.runMain
)
