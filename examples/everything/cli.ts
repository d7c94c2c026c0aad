/**
 * The everything server's command line (`./main.mjs` loads it, or its bundle, after turning on Node's compile cache).
 *
 *   npm run -s everything -- --stdio            # over stdio
 *   npm run -s everything -- --http --port 3000 # over Streamable HTTP (the default; PORT also works)
 *   npm run -s everything -- --oauth-issuer https://auth.example.com  # HTTP, callers need its access tokens
 *   npm run -s everything -- --stdio --dialects 2026-07-28  # 2026-07-28 only (default: 2026-07-28,2025-11-25)
 *   npm run -s everything -- --otlp http://127.0.0.1:4318  # spans and metrics to an OTLP/HTTP collector
 *
 * Tasks (`./backend.ts`): `--tasks memory | sqlite:PATH | postgres://HOST:PORT/DB` (or `SNODO_TASKS`);
 * by default in `.data/tasks.sqlite` over HTTP, in memory over stdio. `--tasks-lease-ms MS` shortens
 * a running task's lease (30 s), so a killed server's tasks are recovered sooner (tests, demos).
 *
 * Sessions of the initialize era over HTTP (`./backend.ts`): `--sessions memory` (the default: in this
 * process) or `--sessions postgres://HOST:PORT/DB[?schema=NAME]`, shared by every server on that URL
 * and schema, so that several instances serve one client behind any load balancer; tasks and listen
 * changes then default to the same PostgreSQL (the hub carries resource updates between instances).
 *
 * Telemetry (`./observability.ts`): `--otlp URL` exports spans to `URL/v1/traces` and metrics to
 * `URL/v1/metrics` (OTLP/HTTP, JSON); off by default.
 *
 * An unknown flag, or a flag without its value, prints the usage on stderr and exits 2; `--help`
 * prints it on stdout.
 */
import { parseArgs } from "node:util"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as StdioTransport from "@snodo/core/StdioTransport"
import type { BuiltInVersion } from "@snodo/core/McpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Backend from "./backend.ts"
import { defaultDialects, ServerLayerWith, type TaskSettings } from "./server.ts"

const usage = `Usage: node examples/everything/main.mjs [flags]

  --stdio                 serve over stdio (default: Streamable HTTP)
  --http                  serve over Streamable HTTP on 127.0.0.1 (the default)
  --port N                HTTP port (default: PORT, else 3000; 0 picks a free one)
  --tls-key FILE          HTTP: serve HTTPS (HTTP/2 and HTTP/1.1 by ALPN on one port) with this PEM key (with --tls-cert)
  --tls-cert FILE         HTTP: the PEM certificate chain of --tls-key; SIGHUP reloads both files
  --h2c                   HTTP: accept cleartext HTTP/2 with prior knowledge beside HTTP/1.1 (behind a proxy)
  --trust-proxy SPEC      HTTP: believe Forwarded / X-Forwarded-* from these proxies: a hop count, or addresses and
                          CIDRs, comma-separated (loopback, private, 10.0.0.0/8, ...)
  --oauth-issuer URL      HTTP: callers need access tokens of this authorization server (needs a fixed --port)
  --dialects LIST         protocol revisions, comma-separated (default: 2026-07-28,2025-11-25)
  --tasks SPEC            tasks: memory | sqlite:PATH | postgres://HOST:PORT/DB (or SNODO_TASKS; default sqlite:.data/tasks.sqlite over HTTP, memory over stdio)
  --tasks-lease-ms MS     a running task's lease, at least 100 (default: 30000)
  --sessions SPEC         HTTP sessions (2025-11-25): memory | postgres://HOST:PORT/DB[?schema=NAME] (default memory; with postgres, --tasks defaults to the same URL and must be postgres)
  --otlp URL              export spans and metrics to the OTLP/HTTP collector at URL (URL/v1/traces, URL/v1/metrics)
  --help                  print this and exit
`

function fail(message: string): never {
  process.stderr.write(`${message}\n`)
  process.exit(2)
}

/** Refuses the command line: what was wrong, then the usage, on stderr; exit 2. */
function refuse(message: string): never {
  return fail(`${message}\n\n${usage}`)
}

const parsed = (() => {
  try {
    return parseArgs({
      args: process.argv.slice(2),
      strict: true,
      allowPositionals: false,
      options: {
        stdio: { type: "boolean" },
        http: { type: "boolean" },
        port: { type: "string" },
        "oauth-issuer": { type: "string" },
        "tls-key": { type: "string" },
        "tls-cert": { type: "string" },
        h2c: { type: "boolean" },
        "trust-proxy": { type: "string" },
        dialects: { type: "string" },
        tasks: { type: "string" },
        "tasks-lease-ms": { type: "string" },
        sessions: { type: "string" },
        otlp: { type: "string" },
        help: { type: "boolean" }
      }
    }).values
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error))
  }
})()

if (parsed.help === true) {
  process.stdout.write(usage)
  process.exit(0)
}

const versions: ReadonlyArray<string> = ["2026-07-28", "2025-11-25"]
const isVersion = (value: string): value is BuiltInVersion => versions.includes(value)

const dialectsOf = (): ReadonlyArray<BuiltInVersion> => {
  if (parsed.dialects === undefined) return defaultDialects
  const named = parsed.dialects.split(",").filter((name) => name !== "")
  const unknown = named.filter((name) => !isVersion(name))
  if (named.length === 0 || unknown.length > 0) fail(`--dialects takes a comma-separated list of ${versions.join(", ")}`)
  return named.filter(isVersion)
}

const dialects = dialectsOf()

const otlp = parsed.otlp
if (otlp !== undefined && !URL.canParse(otlp)) refuse(`--otlp needs a collector URL, not ${JSON.stringify(otlp)}`)

const stdio = parsed.stdio === true
const sessions = Backend.parseSessions(parsed.sessions ?? "memory")
if (typeof sessions === "string") fail(sessions)
if (stdio && sessions._tag !== "Memory") fail("--sessions is for HTTP: a stdio connection is one session")
const sharedSessions = sessions._tag === "Postgres" ? parsed.sessions : undefined
const tasksSpec = parsed.tasks ?? process.env["SNODO_TASKS"] ?? sharedSessions ?? (stdio ? "memory" : `sqlite:${Backend.defaultSqlitePath}`)
const backend = Backend.parse(tasksSpec)
if (typeof backend === "string") fail(backend)
// Resource updates and list changes reach a session's stream on another instance through the hub.
if (sharedSessions !== undefined && backend._tag !== "Postgres") fail("--sessions postgres://… needs --tasks on PostgreSQL too (its hub carries changes between instances)")

const leaseMs = parsed["tasks-lease-ms"] === undefined ? undefined : Number(parsed["tasks-lease-ms"])
if (leaseMs !== undefined && !(Number.isInteger(leaseMs) && leaseMs >= 100)) fail("--tasks-lease-ms needs a whole number of milliseconds, at least 100")

const tasks: TaskSettings = {
  runner: {
    ...(leaseMs === undefined ? {} : { leaseMs }),
    // On PostgreSQL idle runners are woken by NOTIFY; the poll only catches retries and dead instances' leases.
    ...(backend._tag === "Postgres" ? { claimIntervalMs: Math.min(5_000, leaseMs ?? 5_000) } : {})
  }
}
const UnobservedServer = ServerLayerWith(Backend.layer(backend), { dialects, tasks })
// With `--otlp` the server's Layer is built with the tracer and metrics settings in its context.
// Loaded only then: without `--otlp` nothing of OTLP is imported.
const ServerLayer = otlp === undefined
  ? UnobservedServer
  : UnobservedServer.pipe(Layer.provide((await import("./observability.ts")).otlpLayer(otlp)))
const sessionsNote = sessions._tag === "Memory" ? "" : `, sessions shared on ${Backend.describe(sessions).replace("tasks on ", "")}`
process.stderr.write(`snodo everything: ${Backend.describe(backend)}${sessionsNote}${otlp === undefined ? "" : `, telemetry to ${otlp}`}\n`)

const portOf = (): number => {
  const raw = parsed.port ?? process.env["PORT"]
  const port = raw === undefined ? 3000 : Number(raw)
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`Invalid port: ${String(raw)}`)
  return port
}

/** The listener's transport: TLS from files (reloaded on SIGHUP), h2c, the proxies trusted. */
async function listenOf(port: number): Promise<import("./http.ts").Listen> {
  const { "tls-key": key, "tls-cert": cert, h2c, "trust-proxy": trust } = parsed
  if ((key === undefined) !== (cert === undefined)) fail("--tls-key and --tls-cert go together")
  if (h2c === true && key !== undefined) fail("--h2c is cleartext HTTP/2: with --tls-key/--tls-cert HTTP/2 is offered by ALPN already")
  const TrustProxy = await import("@snodo/http/TrustProxy")
  const trustProxy = trust === undefined ? undefined : TrustProxy.parse(trust)
  if (trustProxy !== undefined) {
    try {
      TrustProxy.make(trustProxy)
    } catch (error) {
      fail(`--trust-proxy: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
  const base = { port, ...(h2c === true ? { h2c } : {}), ...(trustProxy === undefined ? {} : { trustProxy }) }
  if (key === undefined || cert === undefined) return base
  const Tls = await import("@snodo/http/Tls")
  const files = { key, cert }
  const certificates = await Effect.runPromise(Tls.fromFiles(files)).catch((error: unknown) => fail(String((error as Error).message ?? error)))
  process.on("SIGHUP", () => {
    Effect.runPromise(Tls.reloadFiles(certificates, files)).then(
      () => process.stderr.write("snodo everything: TLS certificate reloaded\n"),
      (error: unknown) => process.stderr.write(`snodo everything: TLS certificate not reloaded: ${String((error as Error).message ?? error)}\n`)
    )
  })
  return { ...base, tls: certificates }
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
  const issuer = parsed["oauth-issuer"]
  const port = portOf()
  const listen = await listenOf(port)
  if (issuer !== undefined && (!URL.canParse(issuer) || port === 0)) {
    // The resource URI tokens are bound to names the port: it must be known before binding.
    fail("--oauth-issuer needs an issuer URL and a fixed --port")
  }
  // Logs go to stderr in HTTP mode too (stdout is left to the protocol in both modes).
  if (issuer !== undefined && listen.tls !== undefined) fail("--oauth-issuer is served over HTTP here: drop --tls-key/--tls-cert")
  serveHttp(listen, issuer, dialects, ServerLayer, Backend.sessionStoreLayer(sessions)).pipe(Effect.provide(StdioTransport.stderrLogger), NodeRuntime.runMain)
}
