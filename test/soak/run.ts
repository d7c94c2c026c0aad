/**
 * The reliability soak: the everything server over Streamable HTTP, in a child process, under a
 * bounded mixed load from 64 connections, watched for errors and for memory that keeps rising.
 *
 *   npm run soak                       # 10 minutes, reports every 30 s
 *   npm run soak -- --minutes 2        # shorter
 *   npm run soak -- --doc              # also writes the run into docs/reliability.md
 *
 * 56 connections loop over a mix of requests (echo, tools/list, resources/read, a 200–800 ms
 * sleep, a sleep cancelled by closing its connection after 20–200 ms, a trigger that publishes a
 * list change); 8 hold `subscriptions/listen` streams, each closed and opened again every 15 s (a
 * listen ended by its client). Every 30 s it prints the requests and errors of the window, the p99
 * of the quick requests, the server's RSS, its RSS right after a full collection (sampled every
 * 5 s: what the server retains, without the collector's sawtooth) and the slope of the latter
 * (least squares). It exits 1 on any error, and when that slope over the last half of the run
 * exceeds 1 MiB/min (a leak, not the heap settling after warm-up).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import * as Http from "node:http"

const args = process.argv.slice(2)
const option = (name: string, fallback: number): number => {
  const index = args.indexOf(name)
  return index >= 0 ? Number(args[index + 1]) : fallback
}
const minutes = option("--minutes", 10)
const reportSeconds = option("--report-seconds", 30)
const thinkMs = option("--think-ms", 2)
const writeDoc = args.includes("--doc")
const connections = 64
const listeners = 8
const workers = connections - listeners
const sampleMs = 5000
const maxSlope = 1 // MiB per minute, over the last half

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "soak", version: "1.0.0" }
}

let nextId = 1
const body = (method: string, params: Record<string, unknown>) => ({ jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: meta } })

const headersOf = (message: { readonly method: string; readonly params: Record<string, unknown> }) => {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": message.method
  }
  if (message.method === "tools/call") headers["mcp-name"] = String(message.params["name"])
  if (message.method === "resources/read") headers["mcp-name"] = String(message.params["uri"])
  return headers
}

// ---- the server -------------------------------------------------------------------------------

interface Server {
  readonly child: ChildProcess
  readonly url: string
  /** The server's RSS and heap in use right after a full collection, in MiB. */
  readonly retained: () => Promise<{ readonly rss: number; readonly heap: number }>
}

const startServer = (): Promise<Server> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", "test/soak/ServerMain.ts"], { stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    let stdout = ""
    const waiting: Array<(retained: { readonly rss: number; readonly heap: number }) => void> = []
    child.stdout!.setEncoding("utf8")
    child.stdout!.on("data", (chunk: string) => {
      stdout += chunk
      const lines = stdout.split("\n")
      stdout = lines.pop()!
      for (const line of lines) {
        const match = /^rss ([\d.]+) heap ([\d.]+)$/.exec(line)
        if (match !== null) waiting.shift()?.({ rss: Number(match[1]), heap: Number(match[2]) })
      }
    })
    child.stderr!.setEncoding("utf8")
    child.stderr!.on("data", (chunk: string) => {
      stderr += chunk
      const match = /listening on (http:\/\/\S+)/.exec(stderr)
      if (match === null) return
      resolve({
        child,
        url: match[1]!,
        retained: () =>
          new Promise((done) => {
            waiting.push(done)
            child.kill("SIGUSR2")
          })
      })
    })
    child.once("exit", (code) => reject(new Error(`server exited (${code}): ${stderr}`)))
  })

const rssMiB = (pid: number): number =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024

// ---- the load ---------------------------------------------------------------------------------

interface Window {
  requests: number
  errors: number
  cancelled: number
  events: number
  latencies: Array<number>
}
const freshWindow = (): Window => ({ requests: 0, errors: 0, cancelled: 0, events: 0, latencies: [] })
let window = freshWindow()
const errorsSeen: Array<string> = []
let totalRequests = 0
let totalErrors = 0
let stopping = false

const fail = (what: string) => {
  if (stopping) return
  window.errors++
  totalErrors++
  if (errorsSeen.length < 20) errorsSeen.push(what)
}

const agent = new Http.Agent({ keepAlive: true, maxSockets: workers })

/** One request on the pooled connections; resolves with status and body, or `undefined` once aborted. */
const send = (url: URL, message: ReturnType<typeof body>, abortAfterMs?: number) =>
  new Promise<{ status: number; text: string } | undefined>((resolve) => {
    const req = Http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: headersOf(message), agent }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
      res.on("error", () => resolve(undefined))
    })
    let aborted = false
    req.on("error", (error) => {
      if (!aborted) fail(`${message.method}: ${error.message}`)
      resolve(undefined)
    })
    req.end(JSON.stringify(message))
    if (abortAfterMs !== undefined) {
      setTimeout(() => {
        aborted = true
        req.destroy()
      }, abortAfterMs)
    }
  })

const quick = (): ReturnType<typeof body> => {
  const dice = Math.random()
  if (dice < 0.7) return body("tools/call", { name: "echo", arguments: { text: "soak" } })
  if (dice < 0.85) return body("tools/list", {})
  return body("resources/read", { uri: "test://static-text" })
}

const worker = async (url: URL, until: number) => {
  while (Date.now() < until) {
    const dice = Math.random()
    if (dice < 0.9) {
      const message = quick()
      const startedAt = performance.now()
      const answer = await send(url, message)
      if (answer === undefined) continue
      window.latencies.push(performance.now() - startedAt)
      window.requests++
      totalRequests++
      if (answer.status !== 200 || !answer.text.includes(`"result"`)) fail(`${message.method}: ${answer.status} ${answer.text.slice(0, 120)}`)
    } else if (dice < 0.95) {
      const message = body("tools/call", { name: "sleep", arguments: { ms: 200 + Math.floor(Math.random() * 600) } })
      const answer = await send(url, message)
      window.requests++
      totalRequests++
      if (answer === undefined || answer.status !== 200 || !answer.text.includes(`"slept"`)) fail(`sleep: ${answer?.status} ${answer?.text.slice(0, 120)}`)
    } else if (dice < 0.98) {
      // Cancelled by closing the connection (the Streamable HTTP cancellation).
      await send(url, body("tools/call", { name: "sleep", arguments: { ms: 5000 } }), 20 + Math.floor(Math.random() * 180))
      window.cancelled++
      window.requests++
      totalRequests++
    } else {
      const answer = await send(url, body("tools/call", { name: "test_trigger_tool_change", arguments: {} }))
      window.requests++
      totalRequests++
      if (answer === undefined || answer.status !== 200) fail(`trigger: ${answer?.status}`)
    }
    if (thinkMs > 0) await new Promise((resolve) => setTimeout(resolve, thinkMs))
  }
}

/** The shortest a stream is held for: enough for its acknowledgement under load. */
const minimumListenMs = 5_000

/** One listen stream at a time on its own connection, closed and opened again every 15 s. */
const listener = async (url: URL, until: number) => {
  // A stream opened in the run's last seconds would be cut before it could be acknowledged.
  while (until - Date.now() >= minimumListenMs) {
    const message = body("subscriptions/listen", { notifications: { toolsListChanged: true, promptsListChanged: true } })
    await new Promise<void>((resolve) => {
      let acknowledged = false
      let closing = false
      const req = Http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: headersOf(message), agent: false }, (res) => {
        if (res.statusCode !== 200) fail(`listen: ${res.statusCode}`)
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => {
          if (chunk.includes("notifications/subscriptions/acknowledged")) acknowledged = true
          window.events += chunk.split("\ndata: ").length - 1 + (chunk.startsWith("data: ") ? 1 : 0)
        })
        res.on("end", () => {
          if (!closing) fail("listen: the stream ended")
          resolve()
        })
      })
      req.on("error", () => {
        if (!closing) fail("listen: connection error")
        resolve()
      })
      req.end(JSON.stringify(message))
      const heldMs = Math.min(15_000, until - Date.now())
      setTimeout(() => {
        closing = true
        if (!acknowledged) fail(`listen: no acknowledgement within ${heldMs} ms`)
        req.destroy()
        resolve()
      }, heldMs)
    })
  }
}

// ---- the run ----------------------------------------------------------------------------------

const slope = (samples: ReadonlyArray<readonly [minutes: number, mib: number]>): number => {
  if (samples.length < 2) return 0
  const n = samples.length
  const mx = samples.reduce((sum, [x]) => sum + x, 0) / n
  const my = samples.reduce((sum, [, y]) => sum + y, 0) / n
  let num = 0
  let den = 0
  for (const [x, y] of samples) {
    num += (x - mx) * (y - my)
    den += (x - mx) ** 2
  }
  return den === 0 ? 0 : num / den
}

const percentile = (values: Array<number>, p: number): number => {
  if (values.length === 0) return 0
  values.sort((a, b) => a - b)
  return values[Math.min(values.length - 1, Math.floor(values.length * p))]!
}

const main = async () => {
  const server = await startServer()
  const { child, url } = server
  const target = new URL(url)
  const startedAt = Date.now()
  const until = startedAt + minutes * 60_000
  const samples: Array<readonly [number, number]> = []
  const rows: Array<string> = []
  const header = "| t (s) | requests | req/s | errors | cancelled | listen events | p99 (ms) | RSS (MiB) | RSS after GC (MiB) | heap after GC (MiB) | slope (MiB/min) |"
  const rule = "|---|---|---|---|---|---|---|---|---|---|---|"
  console.log(`soak: ${minutes} min, ${workers} request connections + ${listeners} listen streams against ${url}`)
  console.log(header)
  console.log(rule)
  const sample = () => {
    const at = (Date.now() - startedAt) / 60_000
    void server.retained().then((retained) => {
      samples.push([at, retained.rss])
      lastHeap = retained.heap
    })
  }
  let lastHeap = 0
  const sampler = setInterval(sample, sampleMs)
  sample()
  const reporter = setInterval(() => {
    const current = window
    window = freshWindow()
    const rss = rssMiB(child.pid!)
    const retained = samples.at(-1)?.[1] ?? 0
    const row = `| ${Math.round((Date.now() - startedAt) / 1000)} | ${current.requests} | ${Math.round(current.requests / reportSeconds)} | ${current.errors} | ${current.cancelled} | ${current.events} | ${percentile(current.latencies, 0.99).toFixed(1)} | ${rss.toFixed(1)} | ${retained.toFixed(1)} | ${lastHeap.toFixed(1)} | ${slope(samples).toFixed(2)} |`
    rows.push(row)
    console.log(row)
  }, reportSeconds * 1000)
  await Promise.all([
    ...Array.from({ length: workers }, () => worker(target, until)),
    ...Array.from({ length: listeners }, () => listener(target, until))
  ])
  stopping = true
  clearInterval(sampler)
  clearInterval(reporter)
  agent.destroy()
  const half = samples.filter(([t]) => t >= minutes / 2)
  const lastHalf = slope(half)
  const rssValues = half.map(([, mib]) => mib)
  child.kill("SIGTERM")
  const failed = totalErrors > 0 || lastHalf > maxSlope
  const verdict = failed ? "FAILED" : "passed"
  const summary = [
    `${totalRequests} requests in ${minutes} min (${Math.round(totalRequests / (minutes * 60))} req/s), ${totalErrors} errors;`,
    `RSS after GC over the last half ${Math.min(...rssValues).toFixed(1)}–${Math.max(...rssValues).toFixed(1)} MiB, slope ${lastHalf.toFixed(2)} MiB/min (limit ${maxSlope}): ${verdict}`
  ].join(" ")
  console.log(summary)
  for (const error of errorsSeen) console.log(`  error: ${error}`)
  if (writeDoc) {
    const path = "docs/reliability.md"
    const doc = readFileSync(path, "utf8")
    const block = [
      "<!-- soak:begin -->",
      `Run of ${new Date().toISOString().slice(0, 10)} (\`npm run soak\`, Node ${process.version}, ${minutes} min, ${workers} + ${listeners} connections):`,
      "",
      header,
      rule,
      ...rows,
      "",
      summary,
      "<!-- soak:end -->"
    ].join("\n")
    writeFileSync(path, doc.replace(/<!-- soak:begin -->[\s\S]*<!-- soak:end -->/, block))
  }
  process.exit(failed ? 1 : 0)
}

await main()
