/**
 * A stdio server whose catalog cannot be built (two tools named alike): it fails while its Layer
 * is built, before serving, and must say so on stderr, not on stdout.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { McpServer, Tool } from "@snodo/core"
import * as StdioTransport from "@snodo/core/StdioTransport"
import { Effect, Schema } from "effect"

const twin = () => Tool.make("twin", { input: Schema.Struct({}) }, () => Effect.succeed("twin"))

StdioTransport.run().pipe(
  Effect.provide(McpServer.make({ name: "broken", version: "1.0.0" }).add(twin(), twin()).layer),
  Effect.provide(NodeStdio.layer),
  StdioTransport.runMain(NodeRuntime.runMain)
)
