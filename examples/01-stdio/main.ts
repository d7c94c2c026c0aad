/**
 * A minimal MCP server over stdio: one typed tool.
 *
 *   npx node examples/01-stdio/main.ts
 *
 * Then send it one line of JSON-RPC, for example a `tools/call` of `add`. It imports by module
 * path, the way a stdio server starts fastest (README.md, docs/startup.md).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as McpServer from "@snodo/core/McpServer"
import * as StdioTransport from "@snodo/core/StdioTransport"
import * as Tool from "@snodo/core/Tool"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const add = Tool.make("add", {
  description: "Add two numbers",
  input: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
  output: Schema.Struct({ sum: Schema.Finite })
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

const Server = McpServer.make({ name: "calc", version: "1.0.0" }).add(add)

StdioTransport.run().pipe(
  Effect.provide(Server.layer),
  Effect.provide(NodeStdio.layer),
  // stdout carries only protocol: every log (Layer construction's and the exit report too) goes to stderr.
  StdioTransport.runMain(NodeRuntime.runMain)
)
