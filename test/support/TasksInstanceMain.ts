/**
 * The everything server as one of many instances on PostgreSQL, with the settings of the
 * many-instance test: the store's ledger of terminal commits on, a 2 s lease (a killed instance's
 * tasks are recovered within seconds), a 500 ms claim poll, and capacity for a thousand tasks of
 * one principal.
 *
 *   node test/support/TasksInstanceMain.ts --http --port 0 --tasks postgres://127.0.0.1:5432/DB
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as StdioTransport from "@snodo/core/StdioTransport"
import { Effect } from "effect"
import * as Backend from "../../examples/everything/backend.ts"
import { serveHttp } from "../../examples/everything/http.ts"
import { defaultDialects, ServerLayerWith } from "../../examples/everything/server.ts"

const args = process.argv.slice(2)
const backend = Backend.parse(args[args.indexOf("--tasks") + 1] ?? "")
if (typeof backend === "string" || backend._tag !== "Postgres") throw new Error("--tasks postgres://... is required")

const server = ServerLayerWith(Backend.layer(backend, { ledger: true }), {
  tasks: {
    maxStored: 100_000,
    maxStoredPerPrincipal: 100_000,
    maxActivePerPrincipal: 10_000,
    runner: { leaseMs: 2_000, claimIntervalMs: 500 }
  }
})

serveHttp(Number(args[args.indexOf("--port") + 1] ?? 0), undefined, defaultDialects, server).pipe(Effect.provide(StdioTransport.stderrLogger), NodeRuntime.runMain)
