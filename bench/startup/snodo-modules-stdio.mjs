// snodo's one-tool server over stdio, every import by module path (docs/startup.md).
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as McpServer from "@snodo/core/McpServer"
import * as StdioTransport from "@snodo/core/StdioTransport"
import * as Tool from "@snodo/core/Tool"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const Text = Schema.Struct({ text: Schema.String })
const echo = Tool.make("echo", { description: "Echoes its text", input: Text, output: Text }, ({ text }) => Effect.succeed({ text }))

StdioTransport.run().pipe(
  Effect.provide(McpServer.make({ name: "echo", version: "1.0.0" }).add(echo).layer),
  Effect.provide(NodeStdio.layer),
  StdioTransport.runMain(NodeRuntime.runMain)
)
