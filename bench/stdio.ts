/**
 * stdio scenarios through the official client 2.4.0 (pinned to 2026-07-28): sequential
 * `tools/call` round trips (mean, p50, p99 per call) and a pipelined burst (many calls in flight
 * at once, total time). Every loop is bounded by a count and a time.
 */
import { EventEmitter } from "node:events"
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { adopt, cpuMs, release, rss, sleep } from "./children.ts"
import { echoText } from "./wire.ts"

export interface StdioSpec {
  readonly script: string
  readonly args: ReadonlyArray<string>
  readonly warmupCalls: number
  /** The warm-up's time bound (it ends at whichever bound comes first). */
  readonly warmupMs: number
  readonly maxCalls: number
  readonly maxMs: number
  readonly burstSize: number
  readonly burstRounds: number
}

export interface StdioResult {
  readonly calls: number
  readonly meanMs: number
  readonly p50Ms: number
  readonly p99Ms: number
  /** The fastest of the burst rounds: `burstSize` calls issued at once, until the last answer. */
  readonly burstMs: number
  readonly burstCallsPerS: number
  readonly rssIdle: number
  /** The server's CPU time (all threads) per sequential call, in µs. */
  readonly cpuUs: number
}

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u)

export const runStdio = async (spec: StdioSpec): Promise<StdioResult> => {
  // The client's transport waits for 'drain' once per write under backpressure: a burst adds many.
  EventEmitter.defaultMaxListeners = Math.max(EventEmitter.defaultMaxListeners, 2 * spec.burstSize)
  const client = new Client({ name: "snodo-bench", version: "0.1.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
  const transport = new StdioClientTransport({ command: process.execPath, args: [spec.script, ...spec.args], stderr: "pipe" })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-2048)
  })
  const call = async (): Promise<void> => {
    const result = await client.callTool({ name: "echo", arguments: { text: echoText } }, { timeout: 10_000 })
    const structured = result.structuredContent
    if (result.isError === true || !isRecord(structured) || structured["text"] !== echoText) {
      throw new Error(`wrong echo result: ${JSON.stringify(result).slice(0, 300)}`)
    }
  }
  try {
    await client.connect(transport)
    adopt(transport.pid ?? undefined)
    await call() // verified before measuring
    await sleep(300)
    const rssIdle = transport.pid === null || transport.pid === undefined ? Number.NaN : rss(transport.pid)
    const warmDeadline = performance.now() + spec.warmupMs
    for (let i = 0; i < spec.warmupCalls && performance.now() < warmDeadline; i++) await call()

    const times: Array<number> = []
    const serverPid = transport.pid ?? undefined
    const cpuBefore = serverPid === undefined ? Number.NaN : cpuMs(serverPid)
    const deadline = performance.now() + spec.maxMs
    while (times.length < spec.maxCalls && performance.now() < deadline) {
      const t0 = performance.now()
      await call()
      times.push(performance.now() - t0)
    }
    const cpuUs = serverPid === undefined ? Number.NaN : ((cpuMs(serverPid) - cpuBefore) * 1000) / Math.max(1, times.length)
    const sorted = times.toSorted((a, b) => a - b)

    let burstMs = Number.POSITIVE_INFINITY
    const burstDeadline = performance.now() + spec.maxMs
    for (let round = 0; round < spec.burstRounds && performance.now() < burstDeadline; round++) {
      const t0 = performance.now()
      await Promise.all(Array.from({ length: spec.burstSize }, call))
      burstMs = Math.min(burstMs, performance.now() - t0)
    }
    return {
      calls: times.length,
      meanMs: times.reduce((a, b) => a + b, 0) / times.length,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      burstMs,
      burstCallsPerS: spec.burstSize / (burstMs / 1000),
      rssIdle,
      cpuUs
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    throw new Error(stderr.trim() === "" ? message : `${message}; stderr: ${stderr.trim().slice(-500)}`, { cause: error })
  } finally {
    const pid = transport.pid ?? undefined
    await client.close().catch(() => undefined)
    release(pid)
  }
}
