/**
 * Allocation per in-process `tools/call echo` (or `tools/list` of the everything server), sampled
 * with V8's heap profiler (objects collected by GC included), by function. A diagnostic beside
 * `bench/hotpath.ts`: the bytes a request allocates are what V8's GC threads spend CPU on.
 *
 *   npx node bench/alloc.ts [calls] [--list] [--callers]
 */
import { Session } from "node:inspector/promises"
import { Effect, Exit } from "effect"
import { anonymous } from "@snodo/core/Principal"
import * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import { ServerLayer } from "../examples/everything/server.ts"
import { echoBody, listBody } from "./wire.ts"

const flags = process.argv.slice(2)
const calls = Number(flags.find((flag) => !flag.startsWith("--")) ?? 20_000)
const text = flags.includes("--list") ? listBody() : echoBody()

interface SampleNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly selfSize: number
  readonly children: ReadonlyArray<SampleNode>
}

const program = Effect.gen(function*() {
  const runtime = yield* ServerRuntime
  const context = { transport: "http" as const, sink: undefined, principal: anonymous }
  const once = (): Effect.Effect<unknown> => {
    const message = Envelope.decode(text)
    if (message._tag !== "Request") return Effect.die(new Error(`not a request: ${message._tag}`))
    const handled = runtime.handle(message, context)
    return Exit.isExit(handled) ? Effect.void : handled
  }
  for (let i = 0; i < calls; i++) {
    const next = once()
    if (next !== Effect.void) yield* next
  }
  const session = new Session()
  session.connect()
  yield* Effect.promise(() => session.post("HeapProfiler.startSampling", { samplingInterval: 128, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true }))
  for (let i = 0; i < calls; i++) {
    const next = once()
    if (next !== Effect.void) yield* next
  }
  const { profile } = yield* Effect.promise(() => session.post("HeapProfiler.stopSampling"))
  const bySite = new Map<string, number>()
  let total = 0
  const nameOf = (node: SampleNode) => {
    const frame = node.callFrame
    return `${frame.functionName || "(anonymous)"} ${frame.url.split("/").slice(-2).join("/")}:${frame.lineNumber + 1}`
  }
  // `--callers`: each site with the function that called it.
  const callers = flags.includes("--callers")
  const walk = (node: SampleNode, parent: string) => {
    const own = nameOf(node)
    const key = callers ? `${own} <- ${parent}` : own
    bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize)
    total += node.selfSize
    for (const child of node.children) walk(child, own)
  }
  walk(profile.head as unknown as SampleNode, "")
  process.stdout.write(`${(total / calls).toFixed(0)} bytes per call\n`)
  for (const [site, bytes] of [...bySite].toSorted((a, b) => b[1] - a[1]).slice(0, 40)) {
    process.stdout.write(`${(bytes / calls).toFixed(0).padStart(6)} ${site}\n`)
  }
})

Effect.runPromise(Effect.provide(Effect.scoped(program), ServerLayer)).then(() => process.exit(0), (error) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
