/**
 * The client under a flood, alone in its process so that its RSS is its own:
 * `node --expose-gc FloodClient.ts <scenario> [url]` prints one JSON line: the error the flood
 * ended in (if any), the time it took, the peak RSS over idle, and whether a well-behaved server
 * (the everything server over stdio) still works from the same process afterwards, as does the
 * hostile connection where it stays open.
 *
 * Idle is measured after a first connection to the everything server (every module loaded) and a
 * GC. Every 100 ms a full GC runs and what the client holds is read: its live set, the V8 heap in
 * use plus external memory (buffers) right after that GC (`liveGrowthMiB`, the bound the test
 * asserts). RSS is sampled every 10 ms too (`growthMiB`, reported): it also counts the pages V8
 * keeps after collecting a flood's garbage, which under a flood of 500,000 small events varied
 * between 51 and 72 MiB from run to run with the same few MiB held. Past 600 MiB of RSS over idle
 * the run stops as `runaway` (what the client before issue 38 did), so that a regression cannot
 * take the shared machine down.
 */
import { Effect, Exit, Layer, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { NodeServices } from "@effect/platform-node"
import { InputHandlers, McpClient, type McpClientModule, StdioClientTransport, StreamableHttpClientTransport } from "@snodo/client"

const [scenario = "", url = ""] = process.argv.slice(2)
const hostile = new URL("./HostileStdioServer.mjs", import.meta.url).pathname
const everything = new URL("../../../examples/everything/main.mjs", import.meta.url).pathname
const MiB = 1024 * 1024

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined)

const overStdio = (name: string, count: number, options?: McpClientModule.Options) =>
  McpClient.layer(options).pipe(Layer.provide(StdioClientTransport.layerNode({ command: process.execPath, args: [hostile, name, String(count)] })))
const overHttp = (options?: McpClientModule.Options) =>
  McpClient.layer(options).pipe(Layer.provide(StreamableHttpClientTransport.layer({ url })), Layer.provide(FetchHttpClient.layer))

/** The everything server answers a tool call. */
const wellBehaved = Effect.gen(function*() {
  const client = yield* McpClient
  const result = yield* client.callTool("test_simple_text")
  return (result.content[0] as { text?: string } | undefined)?.text
}).pipe(
  Effect.provide(McpClient.layer().pipe(Layer.provide(StdioClientTransport.layerNode({ command: process.execPath, args: [everything, "--stdio"] })))),
  Effect.scoped
)

let heapAfter = 0
let running = 0
let mostAtOnce = 0
let handlerCalls = 0
const slowHandlers = InputHandlers.layer({
  elicit: () =>
    Effect.gen(function*() {
      handlerCalls++
      running++
      mostAtOnce = Math.max(mostAtOnce, running)
      yield* Effect.sleep("1500 millis")
      running--
      return { action: "decline" as const }
    })
})

/** Reads a listen stream at one change per millisecond until the server ends it after its flood. */
const readSlowly = Effect.gen(function*() {
  const client = yield* McpClient
  const changes = yield* client.listen({ toolsListChanged: true })
  let read = 0
  yield* Stream.runForEach(changes, () => Effect.andThen(Effect.sync(() => void read++), Effect.sleep("1 millis")))
  gc()
  heapAfter = process.memoryUsage().heapUsed
  yield* client.ping
  return { read }
}).pipe(Effect.scoped)

/** A tool call that must fail; the same connection must still answer a ping afterwards. */
const callFails = Effect.gen(function*() {
  const client = yield* McpClient
  const exit = yield* Effect.exit(client.callTool("big"))
  yield* client.ping
  return exit
})

const scenarios: Record<string, Effect.Effect<unknown, unknown>> = {
  // C1: invalid lines, stdin never read
  "invalid-flood": Effect.scoped(Layer.build(overStdio("invalid-flood", 300_000))),
  // C2: 200,000 elicitation/create with a slow handler
  "legacy-elicit-flood": Effect.gen(function*() {
    const lines: Array<string> = []
    const layer = McpClient.layer().pipe(Layer.provide(StdioClientTransport.layerNode({
      command: process.execPath,
      args: [hostile, "legacy-elicit-flood", "200000"],
      onStderr: (line) => void lines.push(line)
    })))
    return yield* Effect.gen(function*() {
      const client = yield* McpClient
      while (!lines.includes("seen flood written")) yield* Effect.sleep("50 millis")
      yield* Effect.sleep("2 seconds")
      yield* client.ping
      const stats = yield* client.callTool("stats")
      return { mostAtOnce, handlerCalls, stats: (stats.content[0] as { text?: string } | undefined)?.text }
    }).pipe(Effect.provide(layer), Effect.provide(slowHandlers), Effect.scoped)
  }),
  // C3: 500,000 listen changes, read at one per millisecond
  "listen-flood-stdio": readSlowly.pipe(Effect.provide(overStdio("listen-flood", 500_000))),
  "listen-flood-http": readSlowly.pipe(Effect.provide(overHttp())),
  // C4: a 300 MiB body, SSE line, SSE event
  "big-json": callFails.pipe(Effect.provide(overHttp()), Effect.scoped),
  "sse-line": callFails.pipe(Effect.provide(overHttp()), Effect.scoped),
  "sse-event": callFails.pipe(Effect.provide(overHttp()), Effect.scoped),
  // C8: 50,000 questions in one round
  "questions": Effect.gen(function*() {
    const client = yield* McpClient
    const exit = yield* Effect.exit(client.callTool("ask"))
    yield* client.ping
    return { exit, handlerCalls }
  }).pipe(Effect.provide(overStdio("questions", 50_000)), Effect.provide(slowHandlers), Effect.scoped),
  // C9: a 400 MiB line on the portable stdio transport
  "long-line-portable": Effect.gen(function*() {
    const client = yield* McpClient
    return yield* Effect.exit(client.callTool("long"))
  }).pipe(
    Effect.provide(McpClient.layer().pipe(
      Layer.provide(StdioClientTransport.layer({ command: process.execPath, args: [hostile, "long-line", "400"] })),
      Layer.provide(NodeServices.layer)
    )),
    Effect.scoped
  )
}

const errorOf = (exit: Exit.Exit<unknown, unknown>): unknown => {
  if (Exit.isSuccess(exit)) {
    const value = exit.value
    if (Exit.isExit(value)) return errorOf(value)
    if (typeof value === "object" && value !== null && "exit" in value && Exit.isExit(value.exit)) return errorOf(value.exit)
    return null
  }
  const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  const error = failure?._tag === "Fail" ? failure.error as { _tag?: string; reason?: string; message?: string } : undefined
  return error === undefined ? { _tag: "Defect", message: String(exit.cause) } : { _tag: error._tag, reason: error.reason, message: error.message }
}

/** What a scenario returned besides its exit. */
const detailOf = (value: unknown): unknown => {
  if (typeof value !== "object" || value === null || Exit.isExit(value)) return undefined
  const { exit: _exit, ...rest } = value as Record<string, unknown>
  return rest
}

const main = Effect.gen(function*() {
  const warm = yield* wellBehaved
  gc()
  const idleHeap = process.memoryUsage().heapUsed
  // V8 grows its young generation to its working size (16 MiB semi-spaces, ~48 MiB of RSS) under
  // any sustained allocation, in any busy Node process; idle is measured once it has, so that the
  // growth measured is what the client holds under the flood, not the allocator's first expansion.
  const sample = JSON.stringify({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { id: "x".repeat(64) } } })
  let sink = 0
  for (let i = 0; i < 400_000; i++) sink += (JSON.parse(sample) as { jsonrpc: string }).jsonrpc.length
  if (sink === 0) process.stderr.write("")
  yield* Effect.sleep("200 millis")
  gc()
  const liveOf = (usage: NodeJS.MemoryUsage) => usage.heapUsed + usage.external
  const idleLive = liveOf(process.memoryUsage())
  let peakLive = idleLive
  const idle = process.memoryUsage.rss()
  let peak = idle
  let peakHeap = 0
  let peakExternal = 0
  let samples = 0
  const sampler = setInterval(() => {
    if (samples % 10 === 9) {
      gc()
      peakLive = Math.max(peakLive, liveOf(process.memoryUsage()))
    }
    const rss = process.memoryUsage.rss()
    peak = Math.max(peak, rss)
    if (samples++ % 10 === 0) {
      const usage = process.memoryUsage()
      peakHeap = Math.max(peakHeap, usage.heapTotal)
      peakExternal = Math.max(peakExternal, usage.external)
    }
    if (rss - idle > 600 * MiB) {
      process.stdout.write(`${JSON.stringify({ scenario, runaway: true, growthMiB: Math.round((rss - idle) / MiB) })}\n`)
      process.exit(2)
    }
  }, 10)
  const started = Date.now()
  const run = scenarios[scenario]
  if (run === undefined) return yield* Effect.die(`no scenario ${scenario}`)
  const exit = yield* Effect.exit(Effect.timeout(run, "60 seconds"))
  const elapsedMs = Date.now() - started
  clearInterval(sampler)
  const after = yield* wellBehaved
  const value = Exit.isSuccess(exit) ? exit.value : undefined
  process.stdout.write(`${JSON.stringify({
    scenario,
    runaway: false,
    error: errorOf(exit),
    elapsedMs,
    idleMiB: Math.round(idle / MiB),
    growthMiB: Math.round((peak - idle) / MiB),
    liveGrowthMiB: Math.round((peakLive - idleLive) / MiB),
    peakHeapTotalMiB: Math.round(peakHeap / MiB),
    peakExternalMiB: Math.round(peakExternal / MiB),
    heapRetainedMiB: heapAfter === 0 ? undefined : Math.round((heapAfter - idleHeap) / MiB),
    detail: detailOf(value),
    wellBehaved: warm === after ? after : `${warm} / ${after}`
  })}\n`)
})

Effect.runFork(Effect.andThen(main, Effect.sync(() => process.exit(0))))
