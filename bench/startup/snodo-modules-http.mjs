// snodo's one-tool server over Streamable HTTP, every import by module path (docs/startup.md).
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as McpServer from "@snodo/core/McpServer"
import * as StdioTransport from "@snodo/core/StdioTransport"
import * as Tool from "@snodo/core/Tool"
import * as NodeServe from "@snodo/http/NodeServe"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const Text = Schema.Struct({ text: Schema.String })
const echo = Tool.make("echo", { description: "Echoes its text", input: Text, output: Text }, ({ text }) => Effect.succeed({ text }))

NodeServe.serve({ port: Number(process.env.PORT ?? 3000) }).pipe(
  Effect.provide(McpServer.make({ name: "echo", version: "1.0.0" }).add(echo).layer),
  Effect.provide(StdioTransport.stderrLogger),
  NodeRuntime.runMain
)
