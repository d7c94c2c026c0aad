/**
 * Runs the everything server.
 *
 *   npm run -s everything -- --stdio            # over stdio
 *   npm run -s everything -- --http --port 3000 # over Streamable HTTP (the default; PORT also works)
 *   npm run -s everything -- --oauth-issuer https://auth.example.com  # HTTP, callers need its access tokens
 *   npm run -s everything -- --stdio --dialects 2026-07-28  # 2026-07-28 only (default: 2026-07-28,2025-11-25)
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import * as StdioTransport from "@snodo/core/transport/StdioTransport"
import type { BuiltInVersion } from "@snodo/core/runtime/McpServer"
import { Effect } from "effect"
import { defaultDialects, serverLayerFor } from "./server.ts"

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

if (args.includes("--stdio")) {
  StdioTransport.run().pipe(
    Effect.provide(serverLayerFor(dialects)),
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
  serveHttp(port, issuer, dialects).pipe(Effect.provide(StdioTransport.stderrLogger), NodeRuntime.runMain)
}
