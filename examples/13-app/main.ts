/**
 * The lunch poll MCP App over Streamable HTTP:
 *
 *   npx node examples/13-app/main.ts [--port 3013]
 *
 * Point a host that renders MCP Apps at http://127.0.0.1:3013/mcp and ask for the poll.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as StdioTransport from "@snodo/core/StdioTransport"
import * as NodeServe from "@snodo/http/NodeServe"
import { Effect, Layer } from "effect"
import { Runtime } from "./server.ts"

const at = process.argv.indexOf("--port")
const port = at >= 0 ? Number(process.argv[at + 1]) : 3013

NodeServe.layer({ port }).pipe(
  Layer.provide(Runtime),
  Layer.tap(() => Effect.logInfo(`lunch poll app listening on http://127.0.0.1:${port}/mcp`)),
  Layer.launch,
  Effect.provide(StdioTransport.stderrLogger),
  NodeRuntime.runMain
)
