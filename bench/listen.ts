/**
 * What open `subscriptions/listen` streams cost over Streamable HTTP: 1,000 of them (by default)
 * against one server in its own process, on loopback: snodo (this file's `--serve` server) or any
 * peer started with `--tools listen` (an `echo` tool and a `publish` tool that publishes one
 * `notifications/tools/list_changed`).
 *
 * Measured: the server's RSS idle and with every stream open (and the cost per stream), how long
 * opening them took, how long one published change takes to reach every stream (fan-out) and the
 * server CPU it costs, how long changes published back to back take, and, on snodo (whose server
 * counts its streams), that closing the client side frees every stream on the server. A
 * benchmark, not a test: it prints numbers and fails only when the server cannot serve the streams
 * at all.
 *
 * "One change" rounds are published `restMs` (250 ms) apart, more than snodo's pacing interval
 * (`subscriptionInterval`, 100 ms by default), so every stream is idle when its change comes: the
 * fan-out itself is timed. The back-to-back rounds publish each change as soon as the previous one
 * reached every stream: a paced server coalesces those on purpose (a stream that wrote within its
 * interval waits for its end), and they show what that pacing costs.
 *
 *   npx node bench/listen.ts                    # 1,000 streams on snodo
 *   npx node bench/listen.ts --count 2000 --json
 *   npx node bench/listen.ts --peer bench/peers/official.ts
 *
 * `runListenBench(options)` is the same, for the bench runner. Everything it starts is killed when
 * it ends, on error or on a signal (bench/children.ts); the whole run is bounded by `timeoutMs`.
 */
import * as Http from "node:http"
import { fileURLToPath } from "node:url"
import { cpuMs, freePort, installCleanup, rss, sleep, start } from "./children.ts"

/** The server a run measures: started as `node script ...args(port)`, serving MCP at `path`. */
export interface ListenTarget {
  readonly script: string
  readonly args: (port: number) => ReadonlyArray<string>
  readonly path: string
  /** Whether it has an `open_streams` tool (the streams it holds), to check that closing frees them. */
  readonly countsStreams: boolean
}

/** A bench peer script (`bench/peers/*.ts`) with its listen catalog. */
export const peerTarget = (script: string): ListenTarget => ({
  script,
  args: (port) => ["--http", "--port", String(port), "--tools", "listen"],
  path: "/mcp",
  countsStreams: false
})

/** Options of one run. */
export interface ListenBenchOptions {
  /** The server to measure (default: snodo, this file's `--serve` server). */
  readonly target?: ListenTarget
  /** Streams to open (default 1,000). */
  readonly count?: number
  /** The whole run's bound (default 120 s). */
  readonly timeoutMs?: number
  /** Progress lines on stderr (default true). */
  readonly verbose?: boolean
  /** Changes timed, one change to idle streams and back to back each (default 10). */
  readonly rounds?: number
  /** The pause before each "one change" round (default 250 ms: more than snodo's 100 ms pacing interval). */
  readonly restMs?: number
}

/** What one run measured. */
export interface ListenBenchResult {
  readonly count: number
  /** Server RSS in bytes: idle (after one request), with every stream open, after closing them. */
  readonly rssIdle: number
  readonly rssOpen: number
  readonly rssAfterClose: number
  /** (rssOpen - rssIdle) / count. */
  readonly bytesPerStream: number
  /** Time from the first listen POST to the last acknowledgement. */
  readonly openMs: number
  /**
   * Time from publishing one change, to idle streams (`restMs` after the previous one), until every
   * stream received it: median and slowest stream, over `rounds` changes.
   */
  readonly fanOutMedianMs: number
  readonly fanOutMaxMs: number
  /** Server CPU per such change (user + system, the `publish` call included), in milliseconds. */
  readonly fanOutCpuMs: number
  /** The same for `rounds` changes back to back, each published once the previous reached every stream. */
  readonly backToBackMedianMs: number
  readonly backToBackMaxMs: number
  /** Streams the server still had registered after the clients closed theirs (expected 0; `undefined` when it cannot tell). */
  readonly leftOpen: number | undefined
}

const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} }

// ---- the server (this file with --serve, in a child process) ---------------------------------------

const serve = async (port: number, count: number): Promise<void> => {
  const [{ McpServer, SubscriptionHub, Tool }, NodeRuntime, NodeServe, { Effect, Layer, Schema }] = await Promise.all([
    import("@snodo/core"),
    import("@effect/platform-node/NodeRuntime"),
    import("@snodo/http/NodeServe"),
    import("effect")
  ])
  const hub = SubscriptionHub.makeMemory()
  const publish = Tool.make("publish", { description: "Publishes tools/list_changed", input: Schema.Struct({}) }, () =>
    SubscriptionHub.publish(SubscriptionHub.toolsListChanged).pipe(Effect.as("published")))
  const open = Tool.make("open_streams", {
    description: "Streams registered with the hub",
    input: Schema.Struct({}),
    output: Schema.Struct({ open: Schema.Int })
  }, () => Effect.sync(() => ({ open: hub.size() })))
  const Text = Schema.Struct({ text: Schema.String })
  const echo = Tool.make("echo", { description: "Echoes its text back", input: Text, output: Text }, ({ text }) => Effect.succeed({ text }))
  const server = McpServer.make({ name: "bench-listen", version: "1.0.0" }).add(echo, publish, open)
  const headroom = count + 64
  NodeServe.serve({ port, host: "127.0.0.1", maxSubscriptions: headroom, maxConcurrent: headroom, maxConnections: headroom }).pipe(
    Effect.provide(server.layer.pipe(Layer.provide(Layer.succeed(SubscriptionHub.SubscriptionHub, hub)))),
    NodeRuntime.runMain
  )
}

// ---- the client --------------------------------------------------------------------------------

const headers = (method: string, name?: string) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": method,
  ...(name === undefined ? {} : { "mcp-name": name })
})

/** One tools/call, answered as JSON. */
const call = (
  port: number,
  path: string,
  agent: Http.Agent,
  id: number,
  name: string,
  args: Readonly<Record<string, unknown>> = {}
): Promise<Record<string, unknown>> =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: meta } })
    const request = Http.request({ host: "127.0.0.1", port, path, method: "POST", agent, headers: { ...headers("tools/call", name), "content-length": Buffer.byteLength(body) } }, (response) => {
      let text = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => {
        text += chunk
      })
      response.on("end", () => {
        try {
          resolve(JSON.parse(text) as Record<string, unknown>)
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)))
        }
      })
    })
    request.on("error", reject)
    request.end(body)
  })

interface Stream {
  readonly acknowledged: Promise<void>
  /** Resolves at the time the next tools/list_changed arrives. */
  readonly nextChange: () => Promise<number>
  readonly close: () => void
}

/** One listen stream on its own connection. */
const listen = (port: number, path: string, id: number): Stream => {
  let resolveAck: () => void = () => undefined
  let rejectAck: (error: Error) => void = () => undefined
  const acknowledged = new Promise<void>((resolve, reject) => {
    resolveAck = resolve
    rejectAck = reject
  })
  const waiting: Array<(at: number) => void> = []
  let buffer = ""
  const body = JSON.stringify({ jsonrpc: "2.0", id, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: meta } })
  const request = Http.request({ host: "127.0.0.1", port, path, method: "POST", agent: false, headers: { ...headers("subscriptions/listen"), "content-length": Buffer.byteLength(body) } }, (response) => {
    if (response.statusCode !== 200) {
      rejectAck(new Error(`listen ${id}: HTTP ${response.statusCode}`))
      response.resume()
      return
    }
    response.setEncoding("utf8")
    response.on("data", (chunk: string) => {
      buffer += chunk
      for (let boundary = buffer.indexOf("\n\n"); boundary >= 0; boundary = buffer.indexOf("\n\n")) {
        const event = buffer.slice(0, boundary)
        buffer = buffer.slice(boundary + 2)
        if (event.includes("notifications/subscriptions/acknowledged")) resolveAck()
        else if (event.includes("notifications/tools/list_changed")) waiting.shift()?.(performance.now())
      }
    })
  })
  request.on("error", (error) => rejectAck(error))
  request.end(body)
  return {
    acknowledged,
    nextChange: () => new Promise((resolve) => void waiting.push(resolve)),
    close: () => request.destroy()
  }
}

const waitUntil = async (condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(50)
  }
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

/** snodo: this file's `--serve` server, with room for `count` streams. */
export const snodoTarget = (count: number): ListenTarget => ({
  script: fileURLToPath(import.meta.url),
  args: (port) => ["--serve", "--port", String(port), "--count", String(count)],
  path: "/mcp",
  countsStreams: true
})

/**
 * Runs the benchmark: starts the server, opens `count` streams, measures, closes everything.
 */
export const runListenBench = async (options: ListenBenchOptions = {}): Promise<ListenBenchResult> => {
  installCleanup()
  const count = options.count ?? 1000
  const target = options.target ?? snodoTarget(count)
  const timeoutMs = options.timeoutMs ?? 120_000
  const rounds = options.rounds ?? 10
  const restMs = options.restMs ?? 250
  const log = options.verbose === false ? () => undefined : (line: string) => void process.stderr.write(`listen bench: ${line}\n`)
  const port = await freePort()
  const server = start(target.script, target.args(port), { stdin: false, stdout: false })
  const agent = new Http.Agent({ keepAlive: true, maxSockets: 4 })
  const streams: Array<Stream> = []
  let timer: ReturnType<typeof setTimeout> | undefined
  const bounded = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`listen bench: over ${timeoutMs} ms`)), timeoutMs)
  })
  let id = 1
  const callTool = (name: string, args?: Readonly<Record<string, unknown>>) => call(port, target.path, agent, id++, name, args)
  const openOnServer = async (): Promise<number> =>
    ((await callTool("open_streams"))["result"] as { structuredContent: { open: number } }).structuredContent.open
  const body = async (): Promise<ListenBenchResult> => {
    await waitUntil(async () => (await callTool("echo", { text: "up" }))["result"] !== undefined, 30_000, "the server")
    await sleep(500)
    const rssIdle = rss(server.pid)
    log(`server up (pid ${server.pid}), RSS ${(rssIdle / 2 ** 20).toFixed(1)} MiB; opening ${count} streams`)

    const opening = performance.now()
    for (let index = 0; index < count; index++) {
      streams.push(listen(port, target.path, 1_000_000 + index))
      // Open in waves, so the kernel's accept backlog is never the limit being measured.
      if (index % 100 === 99) await Promise.all(streams.slice(index - 99).map((stream) => stream.acknowledged))
    }
    await Promise.all(streams.map((stream) => stream.acknowledged))
    const openMs = performance.now() - opening
    if (target.countsStreams) {
      const open = await openOnServer()
      if (open !== count) throw new Error(`the server holds ${open} streams, expected ${count}`)
    }
    await sleep(1000)
    const rssOpen = rss(server.pid)
    log(`${count} streams open in ${openMs.toFixed(0)} ms; RSS ${(rssOpen / 2 ** 20).toFixed(1)} MiB`)

    /** One change: every stream's time from sending the `publish` call to the change's arrival. */
    const fanOut = async (): Promise<ReadonlyArray<number>> => {
      const arrivals = streams.map((stream) => stream.nextChange())
      const published = performance.now()
      await callTool("publish")
      const times = await Promise.all(arrivals)
      return times.map((at) => at - published)
    }
    const fanOuts: Array<number> = []
    const cpuBefore = cpuMs(server.pid)
    for (let round = 0; round < rounds; round++) {
      await sleep(restMs)
      fanOuts.push(...await fanOut())
    }
    const fanOutCpuMs = (cpuMs(server.pid) - cpuBefore) / rounds
    const fanOutMedianMs = median(fanOuts)
    const fanOutMaxMs = Math.max(...fanOuts)
    log(`fan-out of one change to ${count} streams: median ${fanOutMedianMs.toFixed(1)} ms, slowest ${fanOutMaxMs.toFixed(1)} ms, ` +
      `server CPU ${fanOutCpuMs.toFixed(1)} ms per change`)
    await sleep(restMs)
    const backToBack: Array<number> = []
    for (let round = 0; round < rounds; round++) backToBack.push(...await fanOut())
    const backToBackMedianMs = median(backToBack)
    const backToBackMaxMs = Math.max(...backToBack)
    log(`${rounds} changes back to back: median ${backToBackMedianMs.toFixed(1)} ms, slowest ${backToBackMaxMs.toFixed(1)} ms`)

    for (const stream of streams.splice(0)) stream.close()
    let leftOpen: number | undefined
    if (target.countsStreams) {
      leftOpen = count
      await waitUntil(async () => {
        leftOpen = await openOnServer()
        return leftOpen === 0
      }, 10_000, "the streams to close").catch(() => undefined)
    }
    await sleep(1000)
    const rssAfterClose = rss(server.pid)
    log(`closed: ${leftOpen ?? "unknown (the server cannot tell)"} left on the server; RSS ${(rssAfterClose / 2 ** 20).toFixed(1)} MiB`)
    return {
      count,
      rssIdle,
      rssOpen,
      rssAfterClose,
      bytesPerStream: (rssOpen - rssIdle) / count,
      openMs,
      fanOutMedianMs,
      fanOutMaxMs,
      fanOutCpuMs,
      backToBackMedianMs,
      backToBackMaxMs,
      leftOpen
    }
  }
  try {
    return await Promise.race([body(), bounded])
  } finally {
    clearTimeout(timer)
    for (const stream of streams) stream.close()
    agent.destroy()
    await server.stop()
  }
}

const argv = process.argv.slice(2)
const option = (name: string, fallback: number): number => {
  const at = argv.indexOf(name)
  const value = at >= 0 ? Number(argv[at + 1]) : fallback
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`)
  return value
}

if (import.meta.main) {
  if (argv.includes("--serve")) {
    await serve(option("--port", 3000), option("--count", 1000))
  } else {
    const peerAt = argv.indexOf("--peer")
    const peer = peerAt >= 0 ? argv[peerAt + 1] : undefined
    const result = await runListenBench({ count: option("--count", 1000), ...(peer === undefined ? {} : { target: peerTarget(peer) }) })
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`
    process.stdout.write(argv.includes("--json") ? `${JSON.stringify(result)}\n` : [
      `open listen streams over HTTP: ${result.count}`,
      `server RSS idle ${mib(result.rssIdle)}, open ${mib(result.rssOpen)}, after close ${mib(result.rssAfterClose)}`,
      `per stream ${(result.bytesPerStream / 1024).toFixed(1)} KiB; opened in ${result.openMs.toFixed(0)} ms`,
      `fan-out of one change: median ${result.fanOutMedianMs.toFixed(1)} ms, slowest ${result.fanOutMaxMs.toFixed(1)} ms, ` +
        `server CPU ${result.fanOutCpuMs.toFixed(1)} ms per change`,
      `changes back to back: median ${result.backToBackMedianMs.toFixed(1)} ms, slowest ${result.backToBackMaxMs.toFixed(1)} ms`,
      `left open after the clients closed: ${result.leftOpen ?? "unknown (the server cannot tell)"}`
    ].join("\n") + "\n")
  }
}
