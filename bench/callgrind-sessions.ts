/**
 * Instructions per request of one initialize-era (2025-11-25) session, counted by valgrind's
 * callgrind (see `bench/callgrind.ts`): `tools/call` (`echo`) in one session on one everything
 * server, with its sessions in memory (the transport's own table) or shared through PostgreSQL
 * (`PgSessionStore`, a fresh schema dropped afterwards: after the first read, the instance answers
 * from its cached copy under its lease). The difference is what the shared-session path costs per
 * request, apart from the database's round trips and from other processes on the machine.
 *
 *   npx node bench/callgrind-sessions.ts [--sessions memory|postgres] [--count N] [--warm N] [--connections N] [--idle S]
 *
 * Printed per request: the main thread's instructions and all threads'. The PostgreSQL server's
 * background work (a lease renewal every second, the `last_seen` flush) is counted in, a few
 * statements per second of valgrind's slow run, so the figure moves with how long the count took;
 * `--idle S` then counts S seconds of the server doing nothing and prints the figure less that
 * work for as long as the count took. Servers run from the packages' build
 * (`npm run build` first). `SNODO_TEST_PG_URL` names the database (default the tests').
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { randomBytes } from "node:crypto"
import * as CallgrindChild from "./callgrind-child.ts"
import * as CallgrindHttp from "./callgrind-http.ts"
import { freePort } from "./children.ts"
import { echoText, frameOf } from "./wire.ts"
import { textOption } from "./argv.ts"

const store = textOption("--sessions", "memory")
if (store !== "memory" && store !== "postgres") throw new Error("--sessions is memory or postgres")
const count = Number(textOption("--count", "1000"))
const warm = Number(textOption("--warm", "500"))
const connections = Number(textOption("--connections", "16"))
const idleS = Number(textOption("--idle", "0"))
const admin = process.env["SNODO_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"

const schema = `snodo_bench_callgrind_${randomBytes(6).toString("hex")}`
const database = new URL(admin)
const spec = store === "memory" ? "memory" : `postgres://${database.host}${database.pathname}?schema=${schema}`

const withAdmin = <A, E>(effect: Effect.Effect<A, E, PgClient.PgClient>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(PgClient.make({ url: Redacted.make(admin), maxConnections: 1 }), (pg) =>
    Effect.provideService(effect, PgClient.PgClient, pg))).pipe(Effect.provide(Reactivity.layer)))

const port = await freePort()
const args = ["--http", "--port", String(port), "--sessions", spec, ...(store === "memory" ? ["--tasks", "memory"] : [])]
const counted = CallgrindChild.start("examples/everything/main.mjs", args)
const child = counted.child
child.stdout.resume()

const http = CallgrindHttp.poster(port, connections)
const baseHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" }
const post = (body: string, extra: Record<string, string> = {}) => http.post(body, { ...baseHeaders, ...extra })

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "snodo-bench", version: "0.1.0" } }
})
const call = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: echoText } } })

/** A session, initialized, once the server answers. */
const open = (): Promise<string> =>
  CallgrindHttp.whenServing(counted, async () => {
    const answer = await post(initialize)
    const session = answer.headers["mcp-session-id"]
    if (answer.status !== 200 || typeof session !== "string") throw new Error(`initialize: HTTP ${answer.status} ${answer.text}`)
    const initialized = await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), { "mcp-session-id": session })
    if (initialized.status !== 202) throw new Error(`notifications/initialized: HTTP ${initialized.status} ${initialized.text}`)
    return session
  })

/** `undefined` when the frame is the echo's result (2025-11-25: no `resultType`), else what is wrong. */
const checkEcho = (frame: unknown): string | undefined => {
  const result = (frame as { readonly result?: { readonly structuredContent?: { readonly text?: unknown } } } | undefined)?.result
  return result?.structuredContent?.text === echoText ? undefined : `not the echo's result: ${JSON.stringify(frame)}`
}

/** Sends `total` calls in the session, `connections` at a time. */
const send = (session: string, total: number): Promise<void> =>
  CallgrindHttp.inParallel(total, connections, async () => {
    const answer = await post(call, { "mcp-session-id": session })
    return answer.status === 200 ? checkEcho(frameOf(answer.type, answer.text)) : `status ${answer.status}: ${answer.text}`
  })

try {
  const session = await open()
  await send(session, warm)
  counted.zero()
  const started = performance.now()
  await send(session, count)
  const seconds = (performance.now() - started) / 1000
  const { all, main: mainCount } = await counted.dump()
  const perRequest = (n: number) => `${(n / count / 1000).toFixed(1)}k`
  process.stdout.write(`sessions ${store} c=${connections} n=${count}: main thread ${perRequest(mainCount)} instructions per request, all threads ${perRequest(all)} (${seconds.toFixed(1)} s)\n`)
  if (idleS > 0) {
    // What the server does by itself (timers, a store's lease and flush) in as long as the count took.
    counted.zero()
    await new Promise((resolve) => setTimeout(resolve, idleS * 1000))
    const idle = await counted.dump()
    const share = seconds / idleS
    process.stdout.write(
      `  idle ${idleS} s: main thread ${(idle.main / idleS / 1000).toFixed(1)}k instructions per second; ` +
        `less that for ${seconds.toFixed(1)} s: main thread ${perRequest(mainCount - idle.main * share)} per request, all threads ${perRequest(all - idle.all * share)}\n`
    )
  }
} catch (error) {
  throw new Error(`${String(error)}; the server's stderr: ${counted.stderr()}`, { cause: error })
} finally {
  http.destroy()
  await counted.stop()
  if (store === "postgres") await withAdmin(Effect.flatMap(Effect.service(PgClient.PgClient), (pg) => pg.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)))
}
