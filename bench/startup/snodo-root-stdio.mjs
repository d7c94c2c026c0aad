// snodo's one-tool server over stdio, with the root entries the README's first example imports.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { McpServer, StdioTransport, Tool } from "@snodo/core"
import { Effect, Schema } from "effect"

const Text = Schema.Struct({ text: Schema.String })
const echo = Tool.make("echo", { description: "Echoes its text", input: Text, output: Text }, ({ text }) => Effect.succeed({ text }))

StdioTransport.run().pipe(
  Effect.provide(McpServer.make({ name: "echo", version: "1.0.0" }).add(echo).layer),
  Effect.provide(NodeStdio.layer),
  StdioTransport.runMain(NodeRuntime.runMain)
)
