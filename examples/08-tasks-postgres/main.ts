/**
 * One instance of the reports server (`./server.ts`) on http://127.0.0.1:PORT/mcp.
 *
 *   npx node examples/08-tasks-postgres/main.ts --port 3008
 *   npx node examples/08-tasks-postgres/main.ts --port 3009 --url postgres://postgres@127.0.0.1:5432/postgres --schema snodo_example
 *
 * Start as many as you like on one URL and schema: they share their tasks and listen streams.
 * The schema must be migrated first: `--migrate` does it here (safe from several instances at
 * once), or run `demo.ts`, which migrates and then starts two instances and talks to both.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { layer, migrate } from "./server.ts"

const argv = process.argv.slice(2)
const flag = (name: string, fallback: string): string => {
  const at = argv.indexOf(name)
  return at >= 0 ? argv[at + 1] ?? fallback : fallback
}
const port = Number(flag("--port", "3008"))
const url = flag("--url", process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres")
const schema = flag("--schema", "snodo_example")
const instance = flag("--name", `instance :${port}`)

const serve = Layer.launch(
  Layer.effectDiscard(HttpServer.addressFormattedWith((address) =>
    Effect.sync(() => process.stderr.write(`reports (${instance}) listening on ${address}/mcp\n`)))).pipe(
    Layer.provideMerge(layer({ url, schema, port, instance }))
  )
)

;(argv.includes("--migrate") ? Effect.andThen(migrate({ url, schema }), serve) : serve).pipe(NodeRuntime.runMain)
