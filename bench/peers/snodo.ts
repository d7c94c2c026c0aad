/**
 * Peer: our server with the bench's catalogs, as the other peers have them: `echo` (one tool, the
 * start-up scenario) or `list` (the list scenario's 100 tools, one page), so those scenarios
 * compare the same catalog on every peer. The echo load runs the everything server itself
 * (`examples/everything/main.mjs`). The bench runs it on the packages' build (dist/).
 *
 *   npx node bench/peers/snodo.ts --http --port 3004 [--tools list]
 *   npx node bench/peers/snodo.ts --stdio
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as McpServer from "@snodo/core/McpServer"
import * as Tool from "@snodo/core/Tool"
import * as StdioTransport from "@snodo/core/StdioTransport"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { host, listToolNames, parseArgs, toolDescription } from "./args.ts"

const args = parseArgs()
const Text = Schema.Struct({ text: Schema.String })

/** Every tool echoes, like the other peers' tools. */
const server = McpServer.make({ name: "bench-snodo", version: "0.1.0" }).add(
  ...(args.catalog === "list" ? listToolNames : ["echo"]).map((name) =>
    Tool.make(name, {
      description: toolDescription(name),
      input: Text,
      output: Text,
      annotations: { readOnlyHint: true, idempotentHint: true }
    }, ({ text }) => Effect.succeed({ text }))
  )
)

// Logs on stderr in both modes, as in the everything server (stdout belongs to the stdio protocol).
if (args.transport === "stdio") {
  StdioTransport.run().pipe(
    Effect.provide(server.layer),
    Effect.provide(NodeStdio.layer),
    Effect.provide(StdioTransport.stderrLogger),
    NodeRuntime.runMain
  )
} else {
  // Only HTTP needs @snodo/http (and the platform's HTTP server), as in the everything server.
  const NodeServe = await import("@snodo/http/NodeServe")
  NodeServe.serve({ port: args.port, host }).pipe(
    Effect.provide(server.layer),
    Effect.provide(StdioTransport.stderrLogger),
    NodeRuntime.runMain
  )
}
