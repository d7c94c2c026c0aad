/**
 * Long work as tasks, over Streamable HTTP:
 *
 *   npx node examples/06-tasks/main.ts [--port 3006]
 *
 * A client that sends `extensions: {"io.modelcontextprotocol/tasks": {}}` in its request's client
 * capabilities gets a task for `report` with `months >= 3`; others get the result synchronously.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as StdioTransport from "@snodo/core/StdioTransport"
import * as NodeServe from "@snodo/http/NodeServe"
import { Effect, Layer } from "effect"
import { Runtime } from "./server.ts"

const at = process.argv.indexOf("--port")
const port = at >= 0 ? Number(process.argv[at + 1]) : 3006

NodeServe.layer({ port }).pipe(
  Layer.provide(Runtime),
  Layer.tap(() => Effect.logInfo(`tasks example listening on http://127.0.0.1:${port}/mcp`)),
  Layer.launch,
  Effect.provide(StdioTransport.stderrLogger),
  NodeRuntime.runMain
)
