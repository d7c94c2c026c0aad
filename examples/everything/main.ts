/**
 * Runs the everything server.
 *
 *   npm run -s everything -- --stdio            # over stdio
 *   npm run -s everything -- --http --port 3000 # over Streamable HTTP (the default; PORT also works)
 *   npm run -s everything -- --oauth-issuer https://auth.example.com  # HTTP, callers need its access tokens
 *   npm run -s everything -- --stdio --dialects 2026-07-28  # 2026-07-28 only (default: 2026-07-28,2025-11-25)
 *
 * Tasks (`./backend.ts`): `--tasks memory | sqlite:PATH | postgres://HOST:PORT/DB` (or `SNODO_TASKS`);
 * by default in `.data/tasks.sqlite` over HTTP, in memory over stdio. `--tasks-lease-ms MS` shortens
 * a running task's lease (30 s), so a killed server's tasks are recovered sooner (tests, demos).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as StdioTransport from "@snodo/core/transport/StdioTransport"
import type { BuiltInVersion } from "@snodo/core/runtime/McpServer"
import { Effect } from "effect"
import * as Backend from "./backend.ts"
import { defaultDialects, ServerLayerWith, type TaskSettings } from "./server.ts"

const args = process.argv.slice(2)

const versions: ReadonlyArray<string> = ["2026-07-28", "2025-11-25"]
const isVersion = (value: string): value is BuiltInVersion => versions.includes(value)

const dialectsOf = (): ReadonlyArray<BuiltInVersion> => {
  const flag = args.indexOf("--dialects")
  if (flag < 0) return defaultDialects
  const named = (args[flag + 1] ?? "").split(",").filter((name) => name !== "")
  const unknown = named.filter((name) => !isVersion(name))
  if (named.length === 0 || unknown.length > 0) {
    process.stderr.write(`--dialects takes a comma-separated list of ${versions.join(", ")}\n`)
    process.exit(2)
  }
  return named.filter(isVersion)
}

const dialects = dialectsOf()

function fail(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(2)
}

const stdio = args.includes("--stdio")
const tasksFlag = args.indexOf("--tasks")
const tasksSpec = tasksFlag >= 0 ? args[tasksFlag + 1] ?? "" : process.env["SNODO_TASKS"] ?? (stdio ? "memory" : `sqlite:${Backend.defaultSqlitePath}`)
const backend = Backend.parse(tasksSpec)
if (typeof backend === "string") fail(backend)

const leaseFlag = args.indexOf("--tasks-lease-ms")
const leaseMs = leaseFlag >= 0 ? Number(args[leaseFlag + 1]) : undefined
if (leaseMs !== undefined && !(Number.isInteger(leaseMs) && leaseMs >= 100)) fail("--tasks-lease-ms needs a whole number of milliseconds, at least 100")

const tasks: TaskSettings = {
  runner: {
    ...(leaseMs === undefined ? {} : { leaseMs }),
    // On PostgreSQL idle runners are woken by NOTIFY; the poll only catches retries and dead instances' leases.
    ...(backend._tag === "Postgres" ? { claimIntervalMs: Math.min(5_000, leaseMs ?? 5_000) } : {})
  }
}
const ServerLayer = ServerLayerWith(Backend.layer(backend), { dialects, tasks })
process.stderr.write(`snodo everything: ${Backend.describe(backend)}\n`)

const portOf = (): number => {
  const flag = args.indexOf("--port")
  const raw = flag >= 0 ? args[flag + 1] : process.env["PORT"]
  const port = raw === undefined ? 3000 : Number(raw)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`Invalid port: ${String(raw)}\n`)
    process.exit(2)
  }
  return port
}

if (stdio) {
  StdioTransport.run().pipe(
    Effect.provide(ServerLayer),
    Effect.provide(NodeStdio.layer),
    // Every log, Layer construction's and the exit report included, stays off stdout.
    StdioTransport.runMain(NodeRuntime.runMain)
  )
} else {
  const { serveHttp } = await import("./http.ts")
  const issuerFlag = args.indexOf("--oauth-issuer")
  const issuer = issuerFlag >= 0 ? args[issuerFlag + 1] : undefined
  const port = portOf()
  if (issuerFlag >= 0 && (issuer === undefined || !URL.canParse(issuer) || port === 0)) {
    // The resource URI tokens are bound to names the port: it must be known before binding.
    process.stderr.write("--oauth-issuer needs an issuer URL and a fixed --port\n")
    process.exit(2)
  }
  // Logs go to stderr in HTTP mode too (stdout is left to the protocol in both modes).
  serveHttp(port, issuer, dialects, ServerLayer).pipe(Effect.provide(StdioTransport.stderrLogger), NodeRuntime.runMain)
}
