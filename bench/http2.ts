/**
 * HTTP/2 and TLS beside HTTP/1.1, in one run: `tools/call` (`echo`) to the everything server, with
 * h2load (Debian's `nghttp2-client`) as the one load generator for every row, in a process of its
 * own, so the ratios compare protocols and not tools.
 *
 * Two everything servers are up at once (from the packages' build): one with `--h2c` (HTTP/1.1 and
 * cleartext HTTP/2 on one port) and one with `--tls-key/--tls-cert` (HTTPS, HTTP/2 and HTTP/1.1 by
 * ALPN; certificates made by `openssl` for the run). Rows:
 *
 * - cleartext HTTP/1.1, 16 connections (the baseline of every ratio);
 * - h2c, one connection with 16 and with 64 concurrent streams;
 * - HTTPS HTTP/1.1, 16 connections (TLS's cost, against cleartext HTTP/1.1);
 * - HTTPS HTTP/2, one connection with 16 and with 64 concurrent streams.
 *
 *   npx node bench/http2.ts --duration 5 --rounds 1   # JSON on stdout
 *
 * The bench runner runs it in a process of its own (`npm run bench -- --scenarios http2`).
 */
import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeCertificates } from "../test/support/Certificates.ts"
import { type Child, freePort, installCleanup, sleep, start } from "./children.ts"
import { echoBody, echoHeaders } from "./wire.ts"
import { positiveOption } from "./argv.ts"

installCleanup()
const durationS = positiveOption("--duration", 5)
const warmupS = positiveOption("--warmup", 1)
const rounds = positiveOption("--rounds", 1)

/** A row: which server, HTTP/1.1 or HTTP/2, connections and streams per connection. */
interface Row {
  readonly key: string
  readonly server: "h2c" | "tls"
  readonly h1: boolean
  readonly clients: number
  readonly streams: number
}

const rows: ReadonlyArray<Row> = [
  { key: "h1.c16", server: "h2c", h1: true, clients: 16, streams: 1 },
  { key: "h2c.s16", server: "h2c", h1: false, clients: 1, streams: 16 },
  { key: "h2c.s64", server: "h2c", h1: false, clients: 1, streams: 64 },
  { key: "tls.h1.c16", server: "tls", h1: true, clients: 16, streams: 1 },
  { key: "tls.h2.s16", server: "tls", h1: false, clients: 1, streams: 16 },
  { key: "tls.h2.s64", server: "tls", h1: false, clients: 1, streams: 64 }
]

interface Measured {
  readonly rps: number
  readonly succeeded: number
  readonly failed: number
}

const h2load = (args: ReadonlyArray<string>): Promise<string> =>
  new Promise((resolve, reject) =>
    execFile("h2load", args, { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      error === null ? resolve(stdout) : reject(new Error(`h2load failed: ${error.message}\n${stderr}${stdout}`))
    )
  )

const parse = (output: string): Measured => {
  const rps = Number(/finished in [\d.]+\w*, ([\d.]+) req\/s/.exec(output)?.[1])
  const requests = /requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, (\d+) errored/.exec(output)
  const codes = /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(output)
  if (!Number.isFinite(rps) || requests === null || codes === null) throw new Error(`cannot read h2load's output:\n${output}`)
  const non2xx = Number(codes[2]) + Number(codes[3]) + Number(codes[4])
  return { rps, succeeded: Number(codes[1]), failed: Number(requests[2]) + Number(requests[3]) + non2xx }
}

/** Starts an everything server (`--tasks memory`) on a free port; resolves once it listens. */
const server = async (args: ReadonlyArray<string>): Promise<{ readonly child: Child; readonly port: number }> => {
  const port = await freePort()
  const child = start("examples/everything/main.mjs", ["--http", "--port", String(port), "--tasks", "memory", ...args], { stdin: false, stdout: false })
  for (const until = Date.now() + 30_000; Date.now() < until; await sleep(50)) {
    if (child.stderrTail().includes("listening on")) return { child, port }
  }
  throw new Error(`the server did not start: ${child.stderrTail()}`)
}

const certificates = makeCertificates()
const bodyFile = join(certificates.dir, "echo.json")
writeFileSync(bodyFile, echoBody())
const headerArgs = Object.entries(echoHeaders).flatMap(([name, value]) => ["-H", `${name}: ${value}`])

const servers = { h2c: await server(["--h2c"]), tls: await server(["--tls-key", certificates.keyFile, "--tls-cert", certificates.certFile]) }
const best = new Map<string, Measured>()
try {
  for (let round = 0; round < rounds; round++) {
    for (const row of rows) {
      const { port } = servers[row.server]
      const url = `${row.server === "tls" ? "https" : "http"}://127.0.0.1:${port}/mcp`
      const output = await h2load([
        ...(row.h1 ? ["--h1"] : []),
        "-c", String(row.clients),
        "-m", String(row.streams),
        "-t", "1",
        "-D", `${Math.round(durationS * 1000)}ms`,
        "--warm-up-time", `${Math.round(warmupS * 1000)}ms`,
        "-d", bodyFile,
        ...headerArgs,
        url
      ])
      const measured = parse(output)
      process.stderr.write(`   ${row.key}: ${measured.rps.toFixed(0)} req/s (${measured.failed} failed)\n`)
      const previous = best.get(row.key)
      if (previous === undefined || measured.rps > previous.rps) best.set(row.key, measured)
    }
  }
} finally {
  await Promise.all([servers.h2c.child.stop(), servers.tls.child.stop()])
  certificates.remove()
}
process.stdout.write(`${JSON.stringify(Object.fromEntries(best))}\n`)
process.exit(0)
