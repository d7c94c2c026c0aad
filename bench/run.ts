/**
 * `npm run bench`: snodo against its peers, in one run, on loopback.
 *
 * Peers (each started here as a child process, killed on exit, error or signal): snodo (the
 * everything server, HTTP and stdio; a 100-tool variant for the list scenario), the official SDK
 * server 2.4.0, effect/ai's McpServer 4.1.0, and raw floors for HTTP and stdio. Every peer is
 * verified with one real request before it is measured; a peer that errors is reported instead.
 *
 * Progress on stderr, the table on stdout, `bench/results/latest.json`, `docs/benchmarks.md` and
 * `docs/benchmarks-rps.svg`.
 *
 *   npm run bench                          # 5 s per load after 1 s warm-up (~5 minutes on 2 cores)
 *   npm run bench -- --duration 2 --warmup 0.5 --startup-runs 1 --only snodo,raw
 */
import { spawn } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import os from "node:os"
import { fileURLToPath } from "node:url"
import { type Child, freePort, installCleanup, rss, sleep } from "./children.ts"
import type { LoadResult, LoadSpec } from "./load.ts"
import { listToolCount } from "./peers/args.ts"
import { startHttp, startStdio, verify } from "./probe.ts"
import { textTable, writeReport } from "./report.ts"
import { type Metric, type PeerId, peerIds, peerLabels, type Problem, type Results } from "./results.ts"
import { runStdio } from "./stdio.ts"
import { checkEcho, checkList, echoBody, echoHeaders, listBody, listHeaders } from "./wire.ts"

installCleanup()
const root = new URL("../", import.meta.url)
const path = (relative: string): string => fileURLToPath(new URL(relative, root))
process.chdir(path("."))

// ---- settings ---------------------------------------------------------------------------------

const argv = process.argv.slice(2)
const flag = (name: string, fallback: number): number => {
  const at = argv.indexOf(name)
  const value = at >= 0 ? Number(argv[at + 1]) : fallback
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`)
  return value
}
const durationS = flag("--duration", 5)
const warmupS = flag("--warmup", 1)
const startupRuns = Math.round(flag("--startup-runs", 3))
const onlyAt = argv.indexOf("--only")
const only = onlyAt >= 0 ? new Set((argv[onlyAt + 1] ?? "").split(",")) : undefined
const selected: ReadonlyArray<PeerId> = peerIds.filter((peer) => only === undefined || only.has(peer))
/** The whole run stops starting new scenarios after this (bounded even if a peer is very slow). */
const budgetMs = 14 * 60_000
const startedAt = performance.now()
const overBudget = (): boolean => performance.now() - startedAt > budgetMs

const connectionCounts = [1, 16, 64] as const
const listConnections = 16

const progress = (line: string): void => {
  const elapsed = ((performance.now() - startedAt) / 1000).toFixed(0).padStart(4)
  process.stderr.write(`[${elapsed} s] ${line}\n`)
}

// ---- peers ------------------------------------------------------------------------------------

interface Launch {
  readonly script: string
  readonly args: (port: number) => ReadonlyArray<string>
  readonly path: string
}

interface PeerDef {
  readonly describe: string
  readonly http: Launch | string // a string says why it is unavailable
  readonly httpList: Launch | string
  readonly stdio: { readonly script: string; readonly args: ReadonlyArray<string> }
}

const httpArgs = (...extra: ReadonlyArray<string>) => (port: number) => ["--http", "--port", String(port), ...extra]
const oursHttp = existsSync(path("examples/everything/http.ts"))
  ? { script: "examples/everything/main.ts", args: httpArgs(), path: "/mcp" }
  : "our Streamable HTTP transport (packages/http, examples/everything/http.ts) has not landed yet"

const peers: Readonly<Record<PeerId, PeerDef>> = {
  snodo: {
    describe: "the everything server (`examples/everything/main.ts`, full JSON Schema validator layer, " +
      "~20 tools/resources/prompts); the list scenario runs `bench/peers/snodo-list.ts` (the same 100-tool catalog as every peer)",
    http: oursHttp,
    httpList: typeof oursHttp === "string" ? oursHttp : { script: "bench/peers/snodo-list.ts", args: httpArgs(), path: "/mcp" },
    stdio: { script: "examples/everything/main.ts", args: ["--stdio"] }
  },
  raw: {
    describe: "`bench/peers/raw-http.ts`: node:http, reads and `JSON.parse`s the body, writes a canned result with the " +
      "request id; `bench/peers/raw-stdio.ts`: splits lines, `JSON.parse`s each, writes a canned result. No MCP semantics",
    http: { script: "bench/peers/raw-http.ts", args: httpArgs(), path: "/mcp" },
    httpList: { script: "bench/peers/raw-http.ts", args: httpArgs("--tools", "list"), path: "/mcp" },
    stdio: { script: "bench/peers/raw-stdio.ts", args: [] }
  },
  official: {
    describe: "`bench/peers/official.ts`: `@modelcontextprotocol/server` 2.4.0, `createMcpHandler` (a fresh " +
      "`McpServer` per HTTP request, by its design) on node:http via `toNodeHandler` of `@modelcontextprotocol/node` " +
      "2.1.2; `serveStdio` for stdio; zod 4 schemas",
    http: { script: "bench/peers/official.ts", args: httpArgs(), path: "/mcp" },
    httpList: { script: "bench/peers/official.ts", args: httpArgs("--tools", "list"), path: "/mcp" },
    stdio: { script: "bench/peers/official.ts", args: ["--stdio"] }
  },
  "effect-ai": {
    describe: "`bench/peers/effect-ai.ts`: `McpServer` of `effect/ai` 4.1.0 with only `McpProtocol.v2026_07_28`, " +
      "`layerHttp` (one long-lived server) under `HttpRouter.serve` on `@effect/platform-node` NodeHttpServer; " +
      "`layerStdio` for stdio; a `Toolkit` of Effect Schema tools",
    http: { script: "bench/peers/effect-ai.ts", args: httpArgs(), path: "/mcp" },
    httpList: { script: "bench/peers/effect-ai.ts", args: httpArgs("--tools", "list"), path: "/mcp" },
    stdio: { script: "bench/peers/effect-ai.ts", args: ["--stdio"] }
  }
}

// ---- results ----------------------------------------------------------------------------------

const metrics = new Map<string, { -readonly [K in keyof Metric]: Metric[K] }>()
const problems: Array<Problem> = []

const record = (
  key: string,
  info: { readonly group: string; readonly label: string; readonly unit: string; readonly better: "higher" | "lower" },
  peer: PeerId,
  value: number
): void => {
  const metric = metrics.get(key) ?? { key, ...info, values: {} }
  metric.values = { ...metric.values, [peer]: value }
  metrics.set(key, metric)
}

/** Declares a metric up front so the table keeps its order even where a peer is missing. */
const declare = (key: string, info: { readonly group: string; readonly label: string; readonly unit: string; readonly better: "higher" | "lower" }): void => {
  if (!metrics.has(key)) metrics.set(key, { key, ...info, values: {} })
}

const problem = (peer: PeerId, scenario: string, error: unknown): void => {
  const message = error instanceof Error ? error.message : String(error)
  problems.push({ peer, scenario, message })
  progress(`!! ${peerLabels[peer]} / ${scenario}: ${message}`)
}

for (const c of connectionCounts) {
  declare(`http.echo.c${c}.rps`, { group: "http", label: `echo, ${c} conn`, unit: "req/s", better: "higher" })
  declare(`http.echo.c${c}.p50`, { group: "http-latency", label: `HTTP echo, ${c} conn, p50`, unit: "ms", better: "lower" })
  declare(`http.echo.c${c}.p99`, { group: "http-latency", label: `HTTP echo, ${c} conn, p99`, unit: "ms", better: "lower" })
  declare(`http.echo.c${c}.errors`, { group: "http-errors", label: `HTTP echo, ${c} conn, errors`, unit: "errors", better: "lower" })
}
declare("http.list.rps", { group: "http", label: `tools/list (${listToolCount} tools), ${listConnections} conn`, unit: "req/s", better: "higher" })
declare("http.list.p50", { group: "http-latency", label: `HTTP tools/list, ${listConnections} conn, p50`, unit: "ms", better: "lower" })
declare("http.list.p99", { group: "http-latency", label: `HTTP tools/list, ${listConnections} conn, p99`, unit: "ms", better: "lower" })
declare("http.list.errors", { group: "http-errors", label: "HTTP tools/list errors", unit: "errors", better: "lower" })
declare("stdio.seq.mean", { group: "stdio", label: "stdio sequential tools/call, mean per call", unit: "ms", better: "lower" })
declare("stdio.seq.p99", { group: "stdio", label: "stdio sequential tools/call, p99 per call", unit: "ms", better: "lower" })
declare("stdio.burst.rate", { group: "stdio", label: "stdio pipelined burst of 1,000 calls", unit: "calls/s", better: "higher" })
declare("memory.http.idle", { group: "memory", label: "RSS idle (HTTP)", unit: "MiB", better: "lower" })
declare("memory.http.load64", { group: "memory", label: "RSS peak under 64-connection load", unit: "MiB", better: "lower" })
declare("memory.stdio.idle", { group: "memory", label: "RSS idle (stdio)", unit: "MiB", better: "lower" })
declare("startup.http", { group: "startup", label: "start-up to first answer (HTTP)", unit: "ms", better: "lower" })
declare("startup.stdio", { group: "startup", label: "start-up to first answer (stdio)", unit: "ms", better: "lower" })

// ---- load -------------------------------------------------------------------------------------

/** Runs autocannon in its own process; samples the server's RSS every 100 ms meanwhile. */
const load = async (spec: LoadSpec, serverPid: number): Promise<LoadResult & { readonly peakRss: number }> => {
  const child = spawn(process.execPath, ["bench/load.ts", JSON.stringify(spec)], { stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  let err = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err = (err + chunk).slice(-2048)))
  let peakRss = rss(serverPid)
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rss(serverPid))
  }, 100)
  const killer = setTimeout(() => child.kill("SIGKILL"), (spec.durationS + 30) * 1000)
  const onExit = () => child.kill("SIGKILL")
  process.once("exit", onExit)
  try {
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve))
    if (code !== 0) throw new Error(`loader exited with ${String(code)}: ${err.trim()}`)
    return { ...(JSON.parse(out) as LoadResult), peakRss }
  } finally {
    clearInterval(sampler)
    clearTimeout(killer)
    process.removeListener("exit", onExit)
  }
}

const loadSpec = (url: string, connections: number, seconds: number, body: string, headers: Readonly<Record<string, string>>): LoadSpec => ({
  url,
  connections,
  durationS: seconds,
  headers,
  body,
  timeoutS: 10
})

const mib = (bytes: number): number => bytes / 1024 / 1024

// ---- scenarios --------------------------------------------------------------------------------

const stopQuietly = async (child: Child | undefined): Promise<void> => {
  if (child !== undefined) await child.stop()
}

const httpEcho = async (peer: PeerId): Promise<void> => {
  const launch = peers[peer].http
  if (typeof launch === "string") return problem(peer, "HTTP", launch)
  let child: Child | undefined
  try {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}${launch.path}`
    const started = await startHttp(launch.script, launch.args(port), url, { body: echoBody(), headers: echoHeaders, check: checkEcho })
    child = started.child
    const problemText = await verify(url, echoBody(7), echoHeaders, (frame) => checkEcho(frame, 7))
    if (problemText !== undefined) throw new Error(problemText)
    await sleep(500)
    record("memory.http.idle", metrics.get("memory.http.idle")!, peer, mib(rss(child.pid)))
    for (const c of connectionCounts) {
      if (overBudget()) throw new Error("time budget exhausted")
      await load(loadSpec(url, c, warmupS, echoBody(), echoHeaders), child.pid)
      const result = await load(loadSpec(url, c, durationS, echoBody(), echoHeaders), child.pid)
      record(`http.echo.c${c}.rps`, metrics.get(`http.echo.c${c}.rps`)!, peer, result.rps)
      record(`http.echo.c${c}.p50`, metrics.get(`http.echo.c${c}.p50`)!, peer, result.p50Ms)
      record(`http.echo.c${c}.p99`, metrics.get(`http.echo.c${c}.p99`)!, peer, result.p99Ms)
      record(`http.echo.c${c}.errors`, metrics.get(`http.echo.c${c}.errors`)!, peer, result.errors)
      if (c === 64) record("memory.http.load64", metrics.get("memory.http.load64")!, peer, mib(result.peakRss))
      progress(`   ${peerLabels[peer]} echo c=${c}: ${Math.round(result.rps)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, ` +
        `p99 ${result.p99Ms.toFixed(2)} ms, ${result.errors} errors`)
      if (result.errors > 0) problem(peer, `HTTP echo c=${c}`, `${result.errors} errors of ${result.completed} responses`)
    }
    const after = await verify(url, echoBody(8), echoHeaders, (frame) => checkEcho(frame, 8))
    if (after !== undefined) throw new Error(`after the load: ${after}`)
  } catch (error) {
    problem(peer, "HTTP echo", error)
  } finally {
    await stopQuietly(child)
  }
}

const httpList = async (peer: PeerId): Promise<void> => {
  const launch = peers[peer].httpList
  if (typeof launch === "string") return // reported once by httpEcho
  let child: Child | undefined
  try {
    const port = await freePort()
    const url = `http://127.0.0.1:${port}${launch.path}`
    const check = (frame: unknown) => checkList(frame, listToolCount)
    child = (await startHttp(launch.script, launch.args(port), url, { body: listBody(), headers: listHeaders, check })).child
    await load(loadSpec(url, listConnections, warmupS, listBody(), listHeaders), child.pid)
    const result = await load(loadSpec(url, listConnections, durationS, listBody(), listHeaders), child.pid)
    record("http.list.rps", metrics.get("http.list.rps")!, peer, result.rps)
    record("http.list.p50", metrics.get("http.list.p50")!, peer, result.p50Ms)
    record("http.list.p99", metrics.get("http.list.p99")!, peer, result.p99Ms)
    record("http.list.errors", metrics.get("http.list.errors")!, peer, result.errors)
    progress(`   ${peerLabels[peer]} tools/list c=${listConnections}: ${Math.round(result.rps)} req/s, ` +
      `p99 ${result.p99Ms.toFixed(2)} ms, ${result.errors} errors`)
    if (result.errors > 0) problem(peer, "HTTP tools/list", `${result.errors} errors of ${result.completed} responses`)
  } catch (error) {
    problem(peer, "HTTP tools/list", error)
  } finally {
    await stopQuietly(child)
  }
}

const stdio = async (peer: PeerId): Promise<void> => {
  const launch = peers[peer].stdio
  try {
    const result = await runStdio({
      script: launch.script,
      args: launch.args,
      warmupCalls: 500,
      maxCalls: 5000,
      maxMs: durationS * 1000,
      burstSize: 1000,
      burstRounds: 3
    })
    record("stdio.seq.mean", metrics.get("stdio.seq.mean")!, peer, result.meanMs)
    record("stdio.seq.p99", metrics.get("stdio.seq.p99")!, peer, result.p99Ms)
    record("stdio.burst.rate", metrics.get("stdio.burst.rate")!, peer, result.burstCallsPerS)
    record("memory.stdio.idle", metrics.get("memory.stdio.idle")!, peer, mib(result.rssIdle))
    progress(`   ${peerLabels[peer]} stdio: ${result.meanMs.toFixed(3)} ms/call mean, p99 ${result.p99Ms.toFixed(3)} ms ` +
      `(${result.calls} calls); burst ${Math.round(result.burstCallsPerS)} calls/s`)
  } catch (error) {
    problem(peer, "stdio (official client)", error)
  }
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}

const startup = async (peer: PeerId): Promise<void> => {
  const launch = peers[peer].http
  if (typeof launch !== "string") {
    try {
      const times: Array<number> = []
      for (let run = 0; run < startupRuns && !overBudget(); run++) {
        const port = await freePort()
        const url = `http://127.0.0.1:${port}${launch.path}`
        const started = await startHttp(launch.script, launch.args(port), url, { body: echoBody(), headers: echoHeaders, check: checkEcho })
        times.push(started.startupMs)
        await started.child.stop()
      }
      record("startup.http", metrics.get("startup.http")!, peer, median(times))
    } catch (error) {
      problem(peer, "HTTP start-up", error)
    }
  }
  try {
    const launchStdio = peers[peer].stdio
    const times: Array<number> = []
    for (let run = 0; run < startupRuns && !overBudget(); run++) {
      const started = await startStdio(launchStdio.script, launchStdio.args)
      times.push(started.startupMs)
      if (run === 0 && started.noise.length > 0) {
        problem(peer, "stdio stdout", `wrote non-JSON lines on stdout (protocol violation; skipped for the timing): ${JSON.stringify(started.noise[0])}`)
      }
      started.child.process.stdin?.end()
      await started.child.stop()
    }
    record("startup.stdio", metrics.get("startup.stdio")!, peer, median(times))
  } catch (error) {
    problem(peer, "stdio start-up", error)
  }
  progress(`   ${peerLabels[peer]} start-up: HTTP ${metrics.get("startup.http")!.values[peer]?.toFixed(0) ?? "n/a"} ms, ` +
    `stdio ${metrics.get("startup.stdio")!.values[peer]?.toFixed(0) ?? "n/a"} ms`)
}

// ---- run --------------------------------------------------------------------------------------

const notes: Array<string> = [
  "Load: [autocannon](https://github.com/mcollina/autocannon) 9.0.0 (exact pin), run as its own process " +
  "(`bench/load.ts`) so the loader never shares an event loop with the bench or the server; it is the loader the " +
  "project's reference figures were measured with, so our numbers compare with them. Keep-alive connections, " +
  "pipelining 1, one fixed body. Latency percentiles are computed from every 2xx response time autocannon reports " +
  "(its own histogram rounds to whole milliseconds).",
  "On 2 cores the loader and the server each get about one core, as in the reference measurements.",
  "Every request is a real 2026-07-28 request: `_meta` with protocolVersion, clientCapabilities and clientInfo, and " +
  "the headers Content-Type, Accept: application/json, text/event-stream, MCP-Protocol-Version, Mcp-Method and " +
  "(tools/call) Mcp-Name. Each peer's answer is checked once before it is measured (id, resultType, the echoed " +
  "structuredContent; for tools/list exactly 100 tools on one page) and once after the load.",
  "Errors = connection errors + timeouts + non-2xx responses.",
  "stdio: the official client 2.4.0 (`@modelcontextprotocol/client`, pinned to 2026-07-28) spawns each server; " +
  "sequential calls are awaited one by one (up to 5,000 or the scenario duration, after up to 500 warm-up calls); " +
  "the burst issues 1,000 calls at once and reports the fastest of 3 rounds. The client's own cost is in every " +
  "figure, equally for every peer.",
  "RSS is read from `/proc/<pid>/status` of the server process: idle 0.5 s after the first answers, and the peak " +
  "sampled every 100 ms during the 64-connection echo load.",
  "Start-up: from `spawn` of a fresh process to the first correct `tools/call` answer (HTTP: polled every 5 ms; " +
  "stdio: the request is written at spawn), median of the runs.",
  "Memory with 1,000 open listen streams is not measured yet: it needs `bench/listen.ts` (another issue) and our " +
  "HTTP transport.",
  "Ratios are snodo ÷ peer for the same figure in this run: above 1 is better for snodo where higher is better, " +
  "below 1 where lower is better."
]

const machine = {
  cpu: os.cpus()[0]?.model ?? "unknown CPU",
  cores: os.availableParallelism(),
  memoryGiB: os.totalmem() / 1024 ** 3,
  os: `${os.type()} ${os.release()}`,
  node: process.versions.node
}

progress(`snodo bench: ${selected.map((p) => peerLabels[p]).join(", ")}; ${durationS} s per load after ${warmupS} s warm-up`)
progress(`machine: ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`)
for (const peer of selected) {
  if (overBudget()) break
  progress(`HTTP tools/call echo: ${peerLabels[peer]}`)
  await httpEcho(peer)
}
for (const peer of selected) {
  if (overBudget()) break
  progress(`HTTP tools/list (${listToolCount} tools): ${peerLabels[peer]}`)
  await httpList(peer)
}
for (const peer of selected) {
  if (overBudget()) break
  progress(`stdio through the official client: ${peerLabels[peer]}`)
  await stdio(peer)
}
for (const peer of selected) {
  if (overBudget()) break
  progress(`start-up (${startupRuns} runs): ${peerLabels[peer]}`)
  await startup(peer)
}
if (overBudget()) notes.push("The run hit its 14-minute budget; later scenarios were skipped.")

const results: Results = {
  date: new Date().toISOString(),
  command: ["npm run bench", ...(argv.length > 0 ? ["--", ...argv] : [])].join(" "),
  machine,
  settings: { durationS, warmupS, loader: "autocannon 9.0.0 in a separate process", startupRuns },
  peers: Object.fromEntries(peerIds.map((peer) => [peer, peers[peer].describe])) as Record<PeerId, string>,
  metrics: [...metrics.values()],
  problems,
  notes,
  elapsedS: (performance.now() - startedAt) / 1000
}

mkdirSync(path("bench/results"), { recursive: true })
writeFileSync(path("bench/results/latest.json"), `${JSON.stringify(results, null, 2)}\n`)
writeReport(results, root)
process.stdout.write(textTable(results))
progress("wrote bench/results/latest.json, docs/benchmarks.md, docs/benchmarks-rps.svg")
process.exit(0)
