/**
 * The Tasks test server over stdio: `node test/support/TaskServerMain.ts [--ttl MS]`. At exit it
 * writes its job counters to stderr.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as StdioTransport from "@snodo/core/StdioTransport"
import { Effect } from "effect"
import { taskServer } from "./TaskServer.ts"

const ttl = process.argv.indexOf("--ttl")
const server = taskServer(ttl >= 0 ? { ttlMs: Number(process.argv[ttl + 1]) } : {})

StdioTransport.run().pipe(
  Effect.ensuring(Effect.sync(() => process.stderr.write(`counters at exit: ${JSON.stringify(server.counters)}\n`))),
  Effect.provide(server.layer),
  Effect.provide(NodeStdio.layer),
  Effect.provide(StdioTransport.stderrLogger),
  NodeRuntime.runMain
)
