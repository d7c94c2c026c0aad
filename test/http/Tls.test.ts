/**
 * Issue 37: `NodeServe` over HTTPS (HTTP/2 and HTTP/1.1 by ALPN on one port) and cleartext h2c
 * beside HTTP/1.1, with certificates made by `openssl` at test time, through real clients: curl
 * (`--http2`, `--http2-prior-knowledge`, `--cacert`), the official client 2.4.0, our client through
 * an undici `HttpClient` that trusts the application's CA (HTTP/2 where offered), and 1,000 listen
 * streams multiplexed on one HTTP/2 connection.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { describe as effectDescribe, expect as effectExpect, it as effectIt } from "@effect/vitest"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { McpClient, StreamableHttpClientTransport } from "@snodo/client"
import * as McpHttp from "@snodo/http/McpHttp"
import * as NodeServe from "@snodo/http/NodeServe"
import * as Tls from "@snodo/http/Tls"
import { Effect, Fiber, Layer, ManagedRuntime, Stream } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import * as DiagnosticsChannel from "node:diagnostics_channel"
import * as Http2 from "node:http2"
import * as Net from "node:net"
import { Agent, fetch as undiciFetch } from "undici"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { serverLayerFor } from "../../examples/everything/server.ts"
import { handlers, textOf } from "../client/support/EverythingCalls.ts"
import { makeCertificates, type TestCertificates } from "../support/Certificates.ts"
import { curl, curlStream, requestArgs } from "../support/Curl.ts"

const certificates: TestCertificates = makeCertificates()
afterAll(() => certificates.remove())

/** HTTP/2 streams and HTTP/1.1 requests the servers of this process received (by method). */
const h2Methods: Array<string> = []
let http1Requests = 0
const onStream = (message: unknown) => {
  const headers = (message as { readonly headers?: Record<string, string> }).headers
  h2Methods.push(headers?.[":method"] ?? "?")
}
const onHttp1 = () => void http1Requests++
DiagnosticsChannel.subscribe("http2.server.stream.created", onStream)
DiagnosticsChannel.subscribe("http.server.request.start", onHttp1)
afterAll(() => {
  DiagnosticsChannel.unsubscribe("http2.server.stream.created", onStream)
  DiagnosticsChannel.unsubscribe("http.server.request.start", onHttp1)
})

type Runtime = ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>

const portOf = async (runtime: Runtime): Promise<number> => {
  const server = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  if (server.address._tag === "UnixPathAddress") throw new Error("expected TCP")
  return server.address.port
}

const serving = (options: NodeServe.ServeOptions, dialects: ReadonlyArray<"2026-07-28" | "2025-11-25"> = ["2026-07-28", "2025-11-25"]): Runtime =>
  ManagedRuntime.make(NodeServe.layer({ port: 0, ...options }).pipe(Layer.provide(serverLayerFor(dialects))))

const tlsOptions: NodeServe.ServeOptions = {
  tls: { key: certificates.key, cert: certificates.cert },
  sessions: true,
  maxConcurrentStreams: 1100,
  maxSubscriptions: 1100,
  maxConcurrent: 2048
}

let tls: Runtime
let h2c: Runtime
let tlsPort = 0
let h2cPort = 0
beforeAll(async () => {
  tls = serving(tlsOptions)
  h2c = serving({ h2c: true })
  tlsPort = await portOf(tls)
  h2cPort = await portOf(h2c)
})
afterAll(async () => {
  await tls?.dispose()
  await h2c?.dispose()
})

const simpleText = "This is a simple text response for testing."

describe.each([
  ["HTTPS with ALPN (curl --http2 --cacert)", () => ["--http2", "--cacert", certificates.caFile], () => `https://localhost:${tlsPort}/mcp`],
  ["h2c (curl --http2-prior-knowledge)", () => ["--http2-prior-knowledge"], () => `http://127.0.0.1:${h2cPort}/mcp`]
])("curl over %s", (_name, flags, url) => {
  it("answers a tools/call over HTTP/2", async () => {
    const { stdout } = await curl([...flags(), "-w", "\n%{http_version} %{http_code}", ...requestArgs("tools/call", { name: "test_simple_text" }, 1, "test_simple_text"), url()])
    const [body, status] = stdout.split("\n")
    expect(status).toBe("2 200")
    expect(JSON.parse(body!)).toMatchObject({ id: 1, result: { content: [{ type: "text", text: simpleText }] } })
  })

  it("streams a call's progress as SSE on its HTTP/2 stream", async () => {
    const args = requestArgs("tools/call", { name: "test_tool_with_progress", _meta: { progressToken: "p-37" } }, 2, "test_tool_with_progress")
    const { stdout } = await curl([...flags(), "-w", "\n%{http_version}", ...args, url()])
    const events = stdout.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)) as { method?: string; params?: { progress?: number } })
    expect(stdout.trim().endsWith("\n2")).toBe(true)
    expect(events.filter((event) => event.method === "notifications/progress").map((event) => event.params?.progress)).toEqual([0, 50, 100])
    expect(events.at(-1)).toMatchObject({ id: 2, result: { content: [{ type: "text", text: "p-37" }] } })
  })

  it("keeps a listen stream open on HTTP/2 and delivers a change to it", async () => {
    const listen = curlStream([...flags(), ...requestArgs("subscriptions/listen", { notifications: { toolsListChanged: true } }, 3), url()])
    try {
      await listen.waitFor(/notifications\/subscriptions\/acknowledged/)
      await curl([...flags(), ...requestArgs("tools/call", { name: "test_trigger_tool_change" }, 4, "test_trigger_tool_change"), url()])
      await listen.waitFor(/notifications\/tools\/list_changed/)
    } finally {
      listen.stop()
    }
  })
})

describe("HTTP/1.1 beside HTTP/2", () => {
  it("the TLS port answers HTTP/1.1 by ALPN, the h2c port HTTP/1.1 without the preface", async () => {
    for (const [flags, target] of [[["--http1.1", "--cacert", certificates.caFile], `https://localhost:${tlsPort}/mcp`], [["--http1.1"], `http://127.0.0.1:${h2cPort}/mcp`]] as const) {
      const { stdout } = await curl([...flags, "-w", "\n%{http_version} %{http_code}", ...requestArgs("tools/call", { name: "test_simple_text" }, 5, "test_simple_text"), target])
      expect(stdout.split("\n")[1]).toBe("1.1 200")
    }
  })

  it("a client that does not trust the CA is refused the handshake", async () => {
    await expect(curl(["--http2", ...requestArgs("tools/list", {}, 6), `https://localhost:${tlsPort}/mcp`])).rejects.toThrow(/certificate/)
  })
})

describe("the mounted route on Effect's Node server over HTTPS and HTTP/2", () => {
  it("answers a tools/call and streams progress on HTTP/2 streams", async () => {
    const App = McpHttp.layerRoute({ path: "/mcp" }).pipe(Layer.provide(serverLayerFor(["2026-07-28"])))
    const ServerOverTls = NodeHttpServer.layer(
      () => Http2.createSecureServer({ key: certificates.key, cert: certificates.cert, allowHTTP1: true }),
      { port: 0, host: "127.0.0.1" }
    )
    const runtime: Runtime = ManagedRuntime.make(HttpRouter.serve(App).pipe(Layer.provideMerge(ServerOverTls)))
    try {
      const target = `https://localhost:${await portOf(runtime)}/mcp`
      const flags = ["--http2", "--cacert", certificates.caFile]
      const called = await curl([...flags, "-w", "\n%{http_version} %{http_code}", ...requestArgs("tools/call", { name: "test_simple_text" }, 1, "test_simple_text"), target])
      expect(called.stdout.split("\n")[1]).toBe("2 200")
      expect(called.stdout).toContain(simpleText)
      const args = requestArgs("tools/call", { name: "test_tool_with_progress", _meta: { progressToken: "m-37" } }, 2, "test_tool_with_progress")
      const streamed = await curl([...flags, ...args, target])
      expect(streamed.stdout.match(/notifications\/progress/g)?.length).toBe(3)
      expect(streamed.stdout).toContain("m-37")
    } finally {
      await runtime.dispose()
    }
  }, 30_000)
})

describe("certificates reloaded without a restart", () => {
  it("the next connection gets the new certificate; a pair that does not load is refused and the current one stays", async () => {
    const renewed = makeCertificates()
    const reloadable = await Effect.runPromise(Tls.make({ key: certificates.key, cert: certificates.cert }))
    const runtime = serving({ tls: reloadable })
    try {
      const target = `https://localhost:${await portOf(runtime)}/mcp`
      const status = (ca: string) =>
        curl(["--http2", "--cacert", ca, "-o", "/dev/null", "-w", "%{http_code}", ...requestArgs("tools/list", {}, 1), target]).then(({ stdout }) => stdout, (error: Error) => error.message)
      expect(await status(certificates.caFile)).toBe("200")
      const mismatched = await Effect.runPromiseExit(Tls.reload(reloadable, { key: renewed.key, cert: certificates.cert }))
      expect(mismatched._tag).toBe("Failure")
      expect(await status(certificates.caFile)).toBe("200")
      await Effect.runPromise(Tls.reload(reloadable, { key: renewed.key, cert: renewed.cert }))
      expect(await status(renewed.caFile)).toBe("200")
      expect(await status(certificates.caFile)).toMatch(/certificate/)
    } finally {
      await runtime.dispose()
      renewed.remove()
    }
  }, 30_000)
})

describe("a TLS handshake that never comes", () => {
  it("is abandoned at headersTimeout", async () => {
    const runtime = serving({ tls: { key: certificates.key, cert: certificates.cert }, headersTimeout: "1 second" })
    try {
      const socket = Net.connect(await portOf(runtime), "127.0.0.1")
      socket.on("error", () => undefined)
      const startedAt = Date.now()
      await new Promise<void>((resolve) => socket.once("close", () => resolve()))
      expect(Date.now() - startedAt).toBeLessThan(5000)
    } finally {
      await runtime.dispose()
    }
  }, 20_000)
})

describe("the official client 2.4.0 over HTTPS", () => {
  it("connects with the application's CA, calls a tool and follows its progress", async () => {
    const dispatcher = new Agent({ connect: { ca: certificates.ca } })
    const fetchWithCa: typeof fetch = (input, init) => undiciFetch(input as string, { ...(init as object), dispatcher }) as unknown as Promise<Response>
    const client = new Client({ name: "tls-e2e", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`https://localhost:${tlsPort}/mcp`), { fetch: fetchWithCa }))
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
      const result = await client.callTool({ name: "test_simple_text" })
      expect(result.content).toEqual([{ type: "text", text: simpleText }])
      const progress: Array<number> = []
      await client.callTool({ name: "test_tool_with_progress" }, { onprogress: (p) => void progress.push(p.progress) })
      expect(progress).toEqual([0, 50, 100])
    } finally {
      await client.close()
      await dispatcher.close()
    }
  }, 30_000)
})

/** Our client over HTTPS through undici, trusting the application's CA, HTTP/2 allowed. */
const overHttps = (port: () => number) =>
  Layer.unwrap(Effect.sync(() =>
    McpClient.layer().pipe(
      Layer.provide(StreamableHttpClientTransport.layer({ url: `https://localhost:${port()}/mcp` })),
      Layer.provide(NodeHttpClient.layerUndiciNoDispatcher),
      Layer.provide(NodeHttpClient.layerDispatcherOptions({ connect: { ca: certificates.ca }, allowH2: true })),
      Layer.provide(handlers)
    )
  ))

effectDescribe("our client over HTTPS and HTTP/2", () => {
  effectIt.live("2026-07-28: calls and a listen stream, every request an HTTP/2 stream", () =>
    Effect.gen(function*() {
      const h2Before = h2Methods.length
      const http1Before = http1Requests
      const client = yield* McpClient
      effectExpect(client.server.era).toBe("modern")
      effectExpect(textOf(yield* client.callTool("test_simple_text"))).toBe(simpleText)
      const changes = yield* client.listen({ toolsListChanged: true })
      const first = yield* Effect.forkChild(Stream.runHead(changes))
      yield* Effect.sleep("200 millis")
      yield* client.callTool("test_trigger_tool_change")
      const change = yield* Fiber.join(first)
      effectExpect(change._tag === "Some" && change.value.method).toBe("notifications/tools/list_changed")
      effectExpect(h2Methods.length - h2Before).toBeGreaterThanOrEqual(3)
      effectExpect(http1Requests - http1Before).toBe(0)
    }).pipe(Effect.scoped, Effect.provide(overHttps(() => tlsPort))), 30_000)

  let legacy: Runtime
  let legacyPort = 0
  effectIt.live("2025-11-25: a session with its GET stream over HTTP/2", () =>
    Effect.gen(function*() {
      legacy = serving({ tls: { key: certificates.key, cert: certificates.cert }, sessions: true }, ["2025-11-25"])
      legacyPort = yield* Effect.promise(() => portOf(legacy))
      const h2Before = h2Methods.length
      yield* Effect.gen(function*() {
        const client = yield* McpClient
        effectExpect(client.server.era).toBe("legacy")
        effectExpect(textOf(yield* client.callTool("test_simple_text"))).toBe(simpleText)
        // The session's GET stream opens beside the POSTs, on the same connection.
        for (let i = 0; i < 50 && !h2Methods.slice(h2Before).includes("GET"); i++) yield* Effect.sleep("100 millis")
        effectExpect(h2Methods.slice(h2Before)).toContain("GET")
        effectExpect(h2Methods.slice(h2Before)).toContain("POST")
      }).pipe(Effect.scoped, Effect.provide(overHttps(() => legacyPort)))
    }).pipe(Effect.ensuring(Effect.promise(() => legacy?.dispose() ?? Promise.resolve()))), 30_000)
})

describe("1,000 listen streams on one HTTP/2 connection", () => {
  it("each is acknowledged and each receives the change", async () => {
    const count = 1000
    const session = Http2.connect(`https://localhost:${tlsPort}`, { ca: certificates.ca, peerMaxConcurrentStreams: 1100 })
    session.on("error", () => undefined)
    const body = (method: string, id: number, params: Record<string, unknown>) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method,
        params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } }
      })
    const headers = (method: string, name?: string) => ({
      ":method": "POST",
      ":path": "/mcp",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(name === undefined ? {} : { "mcp-name": name })
    })
    const acknowledged: Array<Promise<void>> = []
    const changed: Array<Promise<void>> = []
    const streams: Array<Http2.ClientHttp2Stream> = []
    const startedAt = Date.now()
    try {
      for (let i = 0; i < count; i++) {
        const stream = session.request(headers("subscriptions/listen"))
        streams.push(stream)
        let text = ""
        let ack: () => void = () => undefined
        let change: () => void = () => undefined
        acknowledged.push(new Promise((resolve) => (ack = resolve)))
        changed.push(new Promise((resolve) => (change = resolve)))
        stream.setEncoding("utf8")
        stream.on("data", (chunk: string) => {
          text += chunk
          if (text.includes("notifications/subscriptions/acknowledged")) ack()
          if (text.includes("notifications/tools/list_changed")) change()
        })
        stream.on("error", () => undefined)
        stream.end(body("subscriptions/listen", 10_000 + i, { notifications: { toolsListChanged: true } }))
      }
      await Promise.all(acknowledged)
      const trigger = session.request(headers("tools/call", "test_trigger_tool_change"))
      trigger.resume()
      trigger.end(body("tools/call", 1, { name: "test_trigger_tool_change" }))
      await Promise.all(changed)
      // One connection carried them all, in bounded time on a loaded two-core machine.
      expect(Date.now() - startedAt).toBeLessThan(60_000)
    } finally {
      for (const stream of streams) stream.close()
      session.close()
    }
  }, 90_000)
})
