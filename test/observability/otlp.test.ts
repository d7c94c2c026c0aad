/**
 * The everything server's `--otlp URL`, end to end: the server as a child process exports its
 * spans and metrics over OTLP/HTTP (JSON) to a tiny collector in this test, which records what is
 * POSTed to /v1/traces and /v1/metrics. Each request's span is a child of the caller's W3C trace
 * context (`_meta.traceparent` over stdio, the `traceparent` header over HTTP), and what the
 * exporters still hold is flushed when the server shuts down (EOF over stdio, SIGTERM over HTTP).
 * A command line the server does not know is refused with its usage.
 */
import { spawn } from "node:child_process"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, describe, expect, it } from "vitest"
import { meta, type StdioProcess, spawnServer } from "../support/StdioProcess.ts"
import { type Server, start } from "../support/TaskServers.ts"

const main = "examples/everything/main.mjs"

// --- the collector ----------------------------------------------------------------------------

interface OtlpAttribute {
  readonly key: string
  readonly value: { readonly stringValue?: string; readonly intValue?: string | number; readonly boolValue?: boolean; readonly doubleValue?: number }
}

interface OtlpSpan {
  readonly name: string
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly kind?: number
  readonly attributes: ReadonlyArray<OtlpAttribute>
}

interface TracesBody {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<OtlpAttribute> }
    readonly scopeSpans: ReadonlyArray<{ readonly spans: ReadonlyArray<OtlpSpan> }>
  }>
}

interface MetricsBody {
  readonly resourceMetrics: ReadonlyArray<{
    readonly resource: { readonly attributes: ReadonlyArray<OtlpAttribute> }
    readonly scopeMetrics: ReadonlyArray<{ readonly metrics: ReadonlyArray<{ readonly name: string; readonly unit?: string }> }>
  }>
}

interface Collector {
  readonly url: string
  readonly traces: Array<TracesBody>
  readonly metrics: Array<MetricsBody>
  readonly close: () => Promise<void>
}

/** Bounds of the collector: what a runaway exporter could make it hold. */
const maxBodyBytes = 4 * 1024 * 1024
const maxBodies = 500

/** An OTLP/HTTP (JSON) collector on 127.0.0.1 that keeps the bodies POSTed to /v1/traces and /v1/metrics. */
const startCollector = (): Promise<Collector> =>
  new Promise((resolve, reject) => {
    const traces: Array<TracesBody> = []
    const metrics: Array<MetricsBody> = []
    const server = Http.createServer((request, response) => {
      const kept = request.method !== "POST"
        ? undefined
        : request.url === "/v1/traces"
        ? traces as Array<unknown>
        : request.url === "/v1/metrics"
        ? metrics as Array<unknown>
        : undefined
      if (kept === undefined) {
        response.writeHead(404).end()
        request.resume()
        return
      }
      const chunks: Array<Buffer> = []
      let size = 0
      request.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size <= maxBodyBytes) chunks.push(chunk)
      })
      request.on("end", () => {
        if (size > maxBodyBytes || kept.length >= maxBodies) {
          response.writeHead(413).end()
          return
        }
        try {
          kept.push(JSON.parse(Buffer.concat(chunks).toString("utf8")))
        } catch {
          response.writeHead(400).end()
          return
        }
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        traces,
        metrics,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

const collectors: Array<Collector> = []
const servers: Array<Server> = []
const stdioServers: Array<StdioProcess> = []
afterAll(async () => {
  await Promise.all(servers.map((server) => server.kill9()))
  for (const server of stdioServers) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL")
  await Promise.all(stdioServers.map((server) => server.exited))
  await Promise.all(collectors.map((collector) => collector.close()))
})

const newCollector = async (): Promise<Collector> => {
  const made = await startCollector()
  collectors.push(made)
  return made
}

// --- reading what it got ----------------------------------------------------------------------

const spansOf = (collector: Collector): ReadonlyArray<OtlpSpan> =>
  collector.traces.flatMap((body) => body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)))

const metricNamesOf = (collector: Collector): ReadonlySet<string> =>
  new Set(collector.metrics.flatMap((body) => body.resourceMetrics.flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => metric.name)))))

/** The unit each metric was exported with. */
const metricUnitsOf = (collector: Collector): ReadonlyMap<string, string | undefined> =>
  new Map(collector.metrics.flatMap((body) =>
    body.resourceMetrics.flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics.map((metric) => [metric.name, metric.unit] as const)))
  ))

const serviceNamesOf = (collector: Collector): ReadonlySet<string> =>
  new Set([
    ...collector.traces.flatMap((body) => body.resourceSpans.map((resource) => resource.resource.attributes)),
    ...collector.metrics.flatMap((body) => body.resourceMetrics.map((resource) => resource.resource.attributes))
  ].flatMap((attributes) => attributes.filter((attribute) => attribute.key === "service.name").map((attribute) => attribute.value.stringValue ?? "")))

/** A span's attributes as plain values. */
const attributesOf = (span: OtlpSpan): Record<string, unknown> =>
  Object.fromEntries(span.attributes.map((attribute) => [attribute.key, attribute.value.stringValue ?? attribute.value.intValue ?? attribute.value.boolValue ?? attribute.value.doubleValue]))

/** Waits (a little) for what the collector should already hold once the server has exited. */
const eventually = async (check: () => boolean, timeoutMs = 5_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
}

const describeCollected = (collector: Collector): string =>
  `spans: ${JSON.stringify(spansOf(collector).map((span) => ({ name: span.name, traceId: span.traceId, parentSpanId: span.parentSpanId, attributes: attributesOf(span) })))}; ` +
  `metrics: ${JSON.stringify([...metricNamesOf(collector)])}`

const echoCall = (id: number, extraMeta: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text: "hi" }, _meta: { ...meta, ...extraMeta } } })

// --- the cases --------------------------------------------------------------------------------

describe("everything --otlp: spans and metrics to an OTLP/HTTP collector", () => {
  it("over stdio: the request's span is a child of _meta.traceparent; exporters flush on EOF", async () => {
    const otlp = await newCollector()
    const traceId = "0af7651916cd43dd8448eb211c80319c"
    const parentSpanId = "b7ad6b7169203331"
    const server = spawnServer([main, "--stdio", "--otlp", otlp.url])
    stdioServers.push(server)
    server.write(echoCall(1, { traceparent: `00-${traceId}-${parentSpanId}-01` }) + "\n")
    const [answer] = await server.read(1)
    expect(answer).toMatchObject({ id: 1, result: { structuredContent: { text: "hi" } } })
    server.child.stdin.end()
    expect(await server.exited).toEqual({ code: 0, signal: null })

    const span = () => spansOf(otlp).find((candidate) => candidate.name === "tools/call echo" && candidate.traceId === traceId)
    await eventually(() => span() !== undefined && metricNamesOf(otlp).has("mcp.server.operation.duration"))
    expect(span(), describeCollected(otlp)).toBeDefined()
    expect(span()!.parentSpanId).toBe(parentSpanId)
    expect(attributesOf(span()!)).toMatchObject({ "mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "network.transport": "pipe" })
    expect([...metricNamesOf(otlp)], describeCollected(otlp)).toContain("mcp.server.operation.duration")
    expect([...serviceNamesOf(otlp)]).toEqual(["snodo-everything"])
    expect(metricUnitsOf(otlp).get("mcp.server.operation.duration")).toBe("s")
  })

  it("over HTTP: the span is a child of the traceparent header; exporters flush on SIGTERM", async () => {
    const otlp = await newCollector()
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
    const parentSpanId = "00f067aa0ba902b7"
    const server = await start(main, ["--tasks", "memory", "--otlp", otlp.url])
    servers.push(server)
    const response = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "echo",
        traceparent: `00-${traceId}-${parentSpanId}-01`
      },
      body: echoCall(1, {})
    })
    const text = await response.text()
    expect(response.status, text).toBe(200)
    const frames = (response.headers.get("content-type") ?? "").includes("text/event-stream")
      ? text.split("\n").filter((line) => line.startsWith("data:")).map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>)
      : [JSON.parse(text) as Record<string, unknown>]
    expect(frames.at(-1)).toMatchObject({ id: 1, result: { structuredContent: { text: "hi" } } })
    await server.stop()

    const span = () => spansOf(otlp).find((candidate) => candidate.name === "tools/call echo" && candidate.traceId === traceId)
    await eventually(() => span() !== undefined && metricNamesOf(otlp).has("mcp.server.operation.duration"))
    expect(span(), describeCollected(otlp)).toBeDefined()
    expect(span()!.parentSpanId).toBe(parentSpanId)
    expect(attributesOf(span()!)).toMatchObject({ "mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "network.transport": "tcp" })
    expect([...metricNamesOf(otlp)], describeCollected(otlp)).toContain("mcp.server.operation.duration")
  })
})

// --- the command line -------------------------------------------------------------------------

const run = (args: ReadonlyArray<string>): Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => void (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => void (stderr += chunk))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${args.join(" ")} did not exit; stderr: ${stderr}`))
    }, 15_000)
    child.once("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })

const flags = ["--stdio", "--http", "--port N", "--oauth-issuer URL", "--dialects LIST", "--tasks SPEC", "--tasks-lease-ms MS", "--otlp URL", "--help"]

describe("everything's command line", () => {
  it("refuses an unknown flag: the usage on stderr, exit 2", async () => {
    const { code, stdout, stderr } = await run(["--stdio", "--bogus"])
    expect(code).toBe(2)
    expect(stdout).toBe("")
    expect(stderr).toContain("--bogus")
    expect(stderr).toContain("Usage:")
    for (const flag of flags) expect(stderr).toContain(flag)
  })

  it("refuses a flag without its value, and an --otlp that is no URL", async () => {
    for (const args of [["--stdio", "--otlp"], ["--stdio", "--otlp", "not a url"], ["--http", "--port"]]) {
      const { code, stderr } = await run(args)
      expect(code, args.join(" ")).toBe(2)
      expect(stderr, args.join(" ")).toContain("Usage:")
    }
  })

  it("--help: the usage on stdout, exit 0", async () => {
    const { code, stdout } = await run(["--help"])
    expect(code).toBe(0)
    for (const flag of flags) expect(stdout).toContain(flag)
  })
})
