/**
 * The seams test server over stdio: `node test/support/SeamServerMain.ts`.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as StdioTransport from "@snodo/core/StdioTransport"
import { Effect } from "effect"
import { seamServer } from "./SeamServer.ts"

StdioTransport.run().pipe(
  Effect.provide(seamServer().layer),
  Effect.provide(NodeStdio.layer),
  Effect.provide(StdioTransport.stderrLogger),
  NodeRuntime.runMain
)
