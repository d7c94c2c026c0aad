/** `NodeServe.serve` on a free port with a one-tool server, as an application runs it (for the "listening on" line). */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { McpServer, Tool } from "@snodo/core"
import * as NodeServe from "@snodo/http/NodeServe"
import { Effect, Schema } from "effect"

const echo = Tool.make("echo", { input: Schema.Struct({ text: Schema.String }) }, ({ text }) => Effect.succeed(text))
NodeServe.serve({ port: 0 }).pipe(Effect.provide(McpServer.make({ name: "serve-main", version: "1.0.0" }).add(echo).layer), NodeRuntime.runMain)
