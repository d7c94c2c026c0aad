/**
 * Initialize-era sessions across instances, beside one instance: `tools/call` (`echo`) in one
 * 2025-11-25 session through the same round-robin proxy (`./round-robin.ts`, no stickiness,
 * forwarding bytes over kept connections: it costs a fraction of what a server does per request,
 * where a proxy on Node's `http` cost more than the server measured), to
 *
 * - three everything servers sharing their sessions on PostgreSQL (`--sessions postgres://…`, a
 *   fresh schema dropped afterwards): every call is a session lookup in the database (the
 *   lookups of one instance share their round trips; `last_seen` written once a second), and
 * - one everything server with its sessions in memory (`--sessions memory`): the floor, and
 * - one everything server with its sessions on PostgreSQL: the store's own cost per call, apart
 *   from three processes sharing the machine's cores.
 *
 * All are up at once, each behind a proxy of its own in this process (the same code, 16 client
 * connections, one session opened the same way), and measured in alternation (the best round of
 * each is kept), with the load generator (`bench/load.ts`, autocannon) in a process of its own.
 * Every server is warmed alike first (`--warmup` seconds per server behind the proxy: a target of
 * three servers is loaded three times as long, so each of its servers has compiled its code as
 * the lone server has). Each result also carries, per answered request, the CPU time of the
 * servers measured (`serverCpuUs`), of the proxy (`proxyCpuUs`: this process) and of every
 * PostgreSQL process on the machine (`pgCpuUs`, from /proc), and the statements on the schema's
 * sessions table (`pgStatements`: reads and `last_seen` flushes, from `pg_stat_user_tables`, so
 * other work on the database does not count): on a machine busy with other work these say more
 * than the rate does.
 *
 *   npx node bench/sessions.ts --duration 5 --warmup 2 --connections 16 --rounds 2   # JSON on stdout
 *
 * The bench runner runs it in a process of its own (`npm run bench -- --scenarios sessions`).
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { type Child, freePort, installCleanup, sleep, start } from "./children.ts"
import type { LoadResult } from "./load.ts"
import * as RoundRobin from "./round-robin.ts"
import { positiveOption } from "./argv.ts"

installCleanup()
const argv = process.argv.slice(2)
const durationS = positiveOption("--duration", 5)
const connections = positiveOption("--connections", 16)
const rounds = positiveOption("--rounds", 2)
const warmupS = positiveOption("--warmup", 2)
const admin = process.env["SNODO_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const verbose = argv.includes("--verbose")

const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" }

const post = async (url: string, body: unknown, extra: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { ...headers, ...extra }, body: JSON.stringify(body) })

/** Starts an everything server on a free port and waits until it answers. */
const server = async (args: ReadonlyArray<string>): Promise<{ readonly child: Child; readonly url: string }> => {
  const port = await freePort()
  const child = start("examples/everything/main.mjs", ["--http", "--port", String(port), ...args], { stdin: false, stdout: false })
  const url = `http://127.0.0.1:${port}/mcp`
  for (const until = Date.now() + 30_000; Date.now() < until;) {
    try {
      await post(url, { jsonrpc: "2.0", id: 0, method: "ping" })
      return { child, url }
    } catch {
      await sleep(20)
    }
  }
  throw new Error(`the server did not start: ${child.stderrTail()}`)
}

/** A session through `url`: initialized, ready for calls. */
const session = async (url: string): Promise<string> => {
  const answer = await post(url, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "snodo-bench", version: "0.1.0" } }
  })
  const id = answer.headers.get("mcp-session-id")
  if (answer.status !== 200 || id === null) throw new Error(`initialize: HTTP ${answer.status} ${await answer.text()}`)
  await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": id })
  const call = await post(url, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "hello" } } }, { "mcp-session-id": id })
  const text = await call.text()
  if (call.status !== 200 || !text.includes("hello")) throw new Error(`tools/call: HTTP ${call.status} ${text}`)
  return id
}

const load = (url: string, id: string, seconds: number): Promise<LoadResult> =>
  new Promise((resolve, reject) => {
    const spec = {
      url,
      connections,
      durationS: seconds,
      timeoutS: 10,
      headers: { ...headers, "mcp-session-id": id },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: { text: "hello, bench" } } })
    }
    const child = spawn(process.execPath, ["bench/load.ts", JSON.stringify(spec)], { stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
    child.on("exit", (code) => code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`loader exited ${String(code)}`)))
  })

const withAdmin = <A, E>(effect: Effect.Effect<A, E, PgClient.PgClient>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(PgClient.make({ url: Redacted.make(admin), maxConnections: 1 }), (pg) =>
    Effect.provideService(effect, PgClient.PgClient, pg))).pipe(Effect.provide(Reactivity.layer)))

/** CPU time of a process (user + system), in microseconds; 0 when it cannot be read (not Linux, gone). */
const cpuUs = (pid: number | string): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10_000 // clock ticks of 10 ms (USER_HZ 100)
  } catch {
    return 0
  }
}

/** CPU time of every PostgreSQL process on this machine (the server and its backends). */
const postgresCpuUs = (): number => {
  let total = 0
  try {
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue
      try {
        if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "postgres") total += cpuUs(pid)
      } catch {
        // gone meanwhile
      }
    }
  } catch {
    // no /proc
  }
  return total
}

/**
 * A load result with, per answered request, the CPU of `servers`, of the proxy (this process, which
 * runs nothing else meanwhile) and of PostgreSQL, and the statements on the sessions table.
 */
interface Measured extends LoadResult {
  readonly serverCpuUs: number
  readonly proxyCpuUs: number
  readonly pgCpuUs: number
  readonly pgStatements: number
}

/**
 * Scans of this bench's sessions table so far (reads, and the `last_seen` flushes): the database's
 * statements on the schema's sessions, apart from other work on the same server. The statistics
 * lag by up to a second.
 */
const statements = async (): Promise<number> => {
  await sleep(1_500)
  return withAdmin(Effect.map(
    Effect.flatMap(Effect.service(PgClient.PgClient), (pg) =>
      pg.unsafe<{ readonly n: string }>(
        "SELECT (COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0))::text AS n FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'snodo_sessions'",
        [schema]
      )),
    (rows) => Number(rows[0]?.n ?? 0)
  ))
}

const processCpuUs = (): number => {
  const used = process.cpuUsage()
  return used.user + used.system
}

const measure = async (url: string, id: string, servers: ReadonlyArray<Child>): Promise<Measured> => {
  const before = await statements()
  const serversBefore = servers.reduce((sum, child) => sum + cpuUs(child.pid), 0)
  const proxyBefore = processCpuUs()
  const pgBefore = postgresCpuUs()
  const result = await load(url, id, durationS)
  const answered = Math.max(1, result.completed - result.errors)
  const serverCpuUs = (servers.reduce((sum, child) => sum + cpuUs(child.pid), 0) - serversBefore) / answered
  const proxyCpuUs = (processCpuUs() - proxyBefore) / answered
  const pgCpuUs = (postgresCpuUs() - pgBefore) / answered
  return { ...result, serverCpuUs, proxyCpuUs, pgCpuUs, pgStatements: (await statements() - before) / answered }
}

const schema = `snodo_bench_sessions_${randomBytes(6).toString("hex")}`
const url = new URL(admin)
const spec = `postgres://${url.host}${url.pathname}?schema=${schema}`
const children: Array<Child> = []
const proxies: Array<RoundRobin.Proxy> = []
try {
  // One migrates first; the other two find the schema migrated.
  const first = await server(["--sessions", spec])
  const rest = await Promise.all([server(["--sessions", spec]), server(["--sessions", spec])])
  const memory = await server(["--sessions", "memory", "--tasks", "memory"])
  const alone = await server(["--sessions", spec])
  children.push(first.child, ...rest.map((started) => started.child), memory.child, alone.child)
  const shared = await RoundRobin.start([first.url, ...rest.map((started) => started.url)])
  const single = await RoundRobin.start([memory.url])
  const one = await RoundRobin.start([alone.url])
  proxies.push(shared, single, one)
  const sharedSession = await session(shared.url)
  const singleSession = await session(single.url)
  const oneSession = await session(one.url)
  const best: Record<"pg3" | "pg1" | "memory1", Measured | undefined> = { pg3: undefined, pg1: undefined, memory1: undefined }
  const targets = [
    ["memory1", single, singleSession, [memory.child]],
    ["pg3", shared, sharedSession, [first.child, ...rest.map((started) => started.child)]],
    ["pg1", one, oneSession, [alone.child]]
  ] as const
  // Every server is warmed alike before any target is measured (its code compiled, the proxy's
  // connections to it open): the proxy spreads a target's load over its servers, so a target of
  // three is loaded three times as long as one of one.
  for (const [, target, id, servers] of targets) if (warmupS > 0) await load(target.url, id, warmupS * servers.length)
  for (let round = 0; round < rounds; round++) {
    for (const [key, target, id, servers] of targets) {
      const measured = await measure(target.url, id, servers)
      if (verbose) {
        process.stderr.write(
          `${key} round ${round + 1}: ${measured.rps.toFixed(0)} req/s, p50 ${measured.p50Ms.toFixed(2)} ms, ${measured.errors} errors, ` +
            `CPU per request: servers ${measured.serverCpuUs.toFixed(0)} µs, proxy ${measured.proxyCpuUs.toFixed(0)} µs, ` +
            `PostgreSQL ${measured.pgCpuUs.toFixed(0)} µs, ${measured.pgStatements.toFixed(3)} statements on the sessions table\n`
        )
      }
      if (best[key] === undefined || measured.rps > best[key]!.rps) best[key] = measured
    }
  }
  process.stdout.write(`${JSON.stringify(best)}\n`)
} finally {
  await Promise.all(proxies.map((proxy) => proxy.close()))
  await Promise.all(children.map((child) => child.stop()))
  await withAdmin(Effect.flatMap(Effect.service(PgClient.PgClient), (pg) => pg.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)))
}
