/**
 * The HTTP load generator: autocannon 9, run as its own process so the loader never shares an
 * event loop with the bench or the server under test. Reads one JSON `LoadSpec` from argv[2],
 * runs it, and prints one JSON `LoadResult` line on stdout.
 *
 *   npx node bench/load.ts '{"url":"http://127.0.0.1:3000/mcp","connections":16,"durationS":5,...}'
 */
import { createRequire } from "node:module"

export interface LoadSpec {
  readonly url: string
  readonly connections: number
  readonly durationS: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** Per-request timeout in seconds. */
  readonly timeoutS: number
}

export interface LoadResult {
  /** Responses with a 2xx status per second. */
  readonly rps: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly meanMs: number
  /** Connection errors + timeouts + non-2xx responses. */
  readonly errors: number
  readonly completed: number
  readonly durationS: number
}

interface AutocannonResult {
  readonly requests: { readonly total: number }
  readonly "2xx": number
  readonly errors: number
  readonly timeouts: number
  readonly non2xx: number
  readonly duration: number
}

interface AutocannonOptions {
  readonly url: string
  readonly connections: number
  readonly duration: number
  readonly pipelining: number
  readonly timeout: number
  readonly method: "POST"
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

interface Tracker {
  on(event: "response", listener: (client: unknown, status: number, bytes: number, responseTimeMs: number) => void): void
}

// autocannon ships no types; this is the slice of its API the bench uses.
type Autocannon = (options: AutocannonOptions, done: (error: Error | null, result: AutocannonResult) => void) => Tracker

const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon

/** Latency samples kept for exact percentiles (autocannon's own histogram is 1 ms granular). */
const maxSamples = 4_000_000

const percentile = (sorted: Float64Array, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!

export const runLoad = (spec: LoadSpec): Promise<LoadResult> =>
  new Promise((resolve, reject) => {
    const samples = new Float64Array(maxSamples)
    let count = 0
    let sum = 0
    const tracker = autocannon({
      url: spec.url,
      connections: spec.connections,
      duration: spec.durationS,
      pipelining: 1,
      timeout: spec.timeoutS,
      method: "POST",
      headers: spec.headers,
      body: spec.body
    }, (error, result) => {
      if (error !== null) return reject(error)
      const ok = result["2xx"]
      const sorted = samples.subarray(0, count).toSorted()
      resolve({
        rps: ok / result.duration,
        p50Ms: percentile(sorted, 0.5),
        p99Ms: percentile(sorted, 0.99),
        meanMs: count === 0 ? Number.NaN : sum / count,
        errors: result.errors + result.timeouts + result.non2xx,
        completed: result.requests.total,
        durationS: result.duration
      })
    })
    tracker.on("response", (_client, status, _bytes, responseTimeMs) => {
      if (status >= 200 && status < 300 && count < maxSamples) {
        samples[count++] = responseTimeMs
        sum += responseTimeMs
      }
    })
  })

if (import.meta.main) {
  const spec = JSON.parse(process.argv[2] ?? "{}") as LoadSpec
  const result = await runLoad(spec)
  process.stdout.write(`${JSON.stringify(result)}\n`)
  process.exit(0)
}
