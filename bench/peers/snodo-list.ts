/**
 * Peer: our server with the list scenario's catalog (100 tools, one page), so `tools/list` is
 * compared on the same catalog as every other peer. The echo scenarios run the everything server
 * itself (`examples/everything/main.ts`).
 *
 *   npx node bench/peers/snodo-list.ts --http --port 3004
 *   npx node bench/peers/snodo-list.ts --stdio
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { McpServer, Tool } from "@snodo/core"
import * as StdioTransport from "@snodo/core/transport/StdioTransport"
import * as NodeServe from "@snodo/http/NodeServe"
import { Effect, Schema } from "effect"
import { host, listToolNames, parseArgs } from "./args.ts"

const args = parseArgs()
const Text = Schema.Struct({ text: Schema.String })

/** The list catalog: every tool echoes, like the other peers' list catalogs. */
const server = McpServer.make({ name: "bench-snodo-list", version: "0.1.0" }).add(
  ...listToolNames.map((name) =>
    Tool.make(name, {
      description: name === "echo" ? "Echoes its text back as structured content" : `Bench tool ${name}`,
      input: Text,
      output: Text,
      annotations: { readOnlyHint: true, idempotentHint: true }
    }, ({ text }) => Effect.succeed({ text }))
  )
)

if (args.transport === "stdio") {
  StdioTransport.run().pipe(Effect.provide(server.layer), Effect.provide(NodeStdio.layer), NodeRuntime.runMain)
} else {
  NodeServe.serve({ port: args.port, host }).pipe(Effect.provide(server.layer), NodeRuntime.runMain)
}
