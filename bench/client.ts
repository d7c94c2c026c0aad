/**
 * The client side: time per sequential `tools/call` over stdio, `@snodo/client` against the
 * official client 2.4.0 (pinned to 2026-07-28) in the same run, each talking to its own copy of
 * the same server (`bench/peers/snodo.ts --stdio`, on the build); rounds alternate between the two
 * clients and the median round counts. Then the client-side memory of open listen streams
 * (`@snodo/client` against the everything server over stdio): heap after a full GC, per stream.
 *
 *   npm run -s build && npx node --expose-gc bench/client.ts [--calls 2000] [--rounds 5]
 *
 * Prints one JSON line: per-call microseconds of each client, their ratio (ours / official; ≤ 1.0
 * is the bar) and bytes per open listen stream.
 */
import { performance } from "node:perf_hooks"
import { parseArgs } from "node:util"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport as OfficialStdio } from "@modelcontextprotocol/client/stdio"
import { McpClient, StdioClientTransport } from "@snodo/client"
import { Effect, Layer } from "effect"

const { values } = parseArgs({ options: { calls: { type: "string" }, rounds: { type: "string" } } })
const calls = Number(values.calls ?? "2000")
const rounds = Number(values.rounds ?? "5")
const peer = new URL("peers/snodo.ts", import.meta.url).pathname
const everything = new URL("../examples/everything/main.mjs", import.meta.url).pathname

const median = (xs: ReadonlyArray<number>): number => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** Microseconds per call of `calls` sequential calls. */
const time = async (call: () => Promise<unknown>): Promise<number> => {
  const started = performance.now()
  for (let i = 0; i < calls; i++) await call()
  return ((performance.now() - started) * 1000) / calls
}

/** Microseconds per call of a loop that makes `calls` sequential calls. */
const timeLoop = async (loop: () => Promise<unknown>): Promise<number> => {
  const started = performance.now()
  await loop()
  return ((performance.now() - started) * 1000) / calls
}

const official = new Client({ name: "bench-official-client", version: "2.4.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
await official.connect(new OfficialStdio({ command: process.execPath, args: [peer, "--stdio"], stderr: "pipe" }))
const officialCall = () => official.callTool({ name: "echo", arguments: { text: "hello" } })

/** Alternating rounds, each client on its own server; the first round of each is a warm-up. */
const samples = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
  const client = yield* McpClient
  const services = yield* Effect.context<never>()
  // An Effect application's loop: the calls run in one fiber, one after the other, as in an
  // agent's `Effect.gen`. Not `Effect.repeat(call, { times })`: its schedule sleeps for a zero
  // delay between repetitions, a yield to the event loop (setImmediate) per call that cost ~10 µs
  // of CPU and ~15-20 µs per call here (0.91-0.99× the official client against 0.81-0.84× with
  // this loop, 2026-12-07), and the official client's `for await` loop beside it pays no such hop.
  const call = client.callTool("echo", { text: "hello" })
  const ourLoop = Effect.gen(function*() {
    for (let i = 0; i < calls; i++) yield* call
  })
  const ourCall = { loop: () => Effect.runPromiseWith(services)(ourLoop) }
  const measured = { ours: [] as Array<number>, official: [] as Array<number> }
  yield* Effect.promise(() => time(officialCall))
  yield* Effect.promise(() => timeLoop(ourCall.loop))
  for (let round = 0; round < rounds; round++) {
    measured.ours.push(yield* Effect.promise(() => timeLoop(ourCall.loop)))
    measured.official.push(yield* Effect.promise(() => time(officialCall)))
  }
  return measured
}).pipe(
  Effect.provide(McpClient.layer().pipe(Layer.provide(StdioClientTransport.layerNode({ command: process.execPath, args: [peer, "--stdio"] })))),
  Effect.orDie
)))
await official.close()

/** Heap held per open listen stream, after a full GC (needs --expose-gc). */
const perListen = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
  const gc = (globalThis as { gc?: () => void }).gc
  const listening = yield* McpClient
  gc?.()
  const before = process.memoryUsage().heapUsed
  const streams = 30
  for (let i = 0; i < streams; i++) yield* listening.listen({ toolsListChanged: true, resourceSubscriptions: [`test://listen-${i}`] })
  gc?.()
  return gc === undefined ? undefined : Math.round((process.memoryUsage().heapUsed - before) / streams)
})).pipe(
  Effect.provide(McpClient.layer().pipe(Layer.provide(StdioClientTransport.layerNode({
    command: process.execPath,
    args: ["--conditions=@snodo/source", everything, "--stdio"]
  })))),
  Effect.orDie
))

const oursUs = median(samples.ours)
const officialUs = median(samples.official)
process.stdout.write(`${JSON.stringify({
  calls,
  rounds,
  oursMicrosPerCall: Math.round(oursUs),
  officialMicrosPerCall: Math.round(officialUs),
  ratio: Number((oursUs / officialUs).toFixed(2)),
  bytesPerListenStream: perListen
})}\n`)
process.exit(0)
