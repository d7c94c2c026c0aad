/**
 * A bounded loopback load for issue 29's fan-out measurement (run by hand, not by `npm test`):
 * the listen test server in a child process, `STREAMS` open `subscriptions/listen` streams
 * (tools list changes) read by this process, one publisher calling `publish` (one
 * `tools/list_changed`) `RATE` times a second, and a bystander calling `echo` every 20 ms. Prints
 * the bystander's p50/p99 latency, without the publisher and with it, and the frames the streams
 * received.
 *
 *   npx node test/support/FanOutLoad.ts [seconds=10] [streams=256] [rate=100]
 */
import * as Http from "node:http"
import { spawnHttpServer } from "./HttpProcess.ts"

const seconds = Number(process.argv[2] ?? 10)
const streamCount = Number(process.argv[3] ?? 256)
const rate = Number(process.argv[4] ?? 100)
const agent = new Http.Agent({ keepAlive: true, maxSockets: 8 })
const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "load", version: "1.0.0" }
}
let nextId = 1

const post = (url: URL, method: string, params: Record<string, unknown>, name?: string) =>
  new Promise<number>((resolve, reject) => {
    const started = performance.now()
    const body = JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: meta } })
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method
    }
    if (name !== undefined) headers["mcp-name"] = name
    const req = Http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers, agent }, (res) => {
      res.resume()
      res.on("end", () => resolve(performance.now() - started))
    })
    req.on("error", reject)
    req.end(body)
  })

const percentile = (values: Array<number>, p: number) => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN
}

const bystander = async (url: URL, millis: number) => {
  const latencies: Array<number> = []
  const until = Date.now() + millis
  while (Date.now() < until) {
    latencies.push(await post(url, "tools/call", { name: "echo", arguments: { text: "x" } }, "echo"))
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return latencies
}

const server = await spawnHttpServer({ serve: { maxSubscriptions: streamCount + 8 } })
const url = new URL(server.url)
let frames = 0
const requests: Array<Http.ClientRequest> = []
try {
  for (let index = 0; index < streamCount; index++) {
    const body = JSON.stringify({ jsonrpc: "2.0", id: `s${index}`, method: "subscriptions/listen", params: { notifications: { toolsListChanged: true }, _meta: meta } })
    await new Promise<void>((resolve, reject) => {
      const req = Http.request({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "subscriptions/listen"
        }
      }, (res) => {
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => void (frames += chunk.split("list_changed").length - 1))
        resolve()
      })
      req.on("error", (error) => (error as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(error))
      requests.push(req)
      req.end(body)
    })
  }
  const quiet = await bystander(url, seconds * 1000)
  frames = 0
  const state = { publishing: true }
  let published = 0
  const publisher = (async () => {
    const started = Date.now()
    while (state.publishing) {
      await post(url, "tools/call", { name: "publish", arguments: { kind: "tools" } }, "publish")
      published++
      const due = started + (published * 1000) / rate
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())))
    }
  })()
  const loaded = await bystander(url, seconds * 1000)
  state.publishing = false
  await publisher
  const line = (label: string, values: Array<number>) =>
    `${label}: p50 ${percentile(values, 0.5).toFixed(1)} ms, p99 ${percentile(values, 0.99).toFixed(1)} ms (${values.length} calls)`
  console.info(`${streamCount} listen streams, ${seconds} s each phase`)
  console.info(line("bystander echo, no publisher", quiet))
  console.info(line(`bystander echo, publisher at ${rate}/s`, loaded))
  console.info(`published ${published} changes (${(published / seconds).toFixed(0)}/s); the streams received ${frames} list_changed frames (${(frames / published).toFixed(1)} per change)`)
} finally {
  for (const req of requests) req.destroy()
  agent.destroy()
  await server.stop()
}
