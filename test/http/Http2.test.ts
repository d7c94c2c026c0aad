/**
 * Issue 37: HTTP/2's limits on `NodeServe` (h2c here; TLS shares the same HTTP/2 server code), each
 * through a real HTTP/2 client on loopback: too many concurrent streams are refused
 * (`REFUSED_STREAM`) while the connection carries on; a rapid reset flood (CVE-2023-44487) leaks no
 * request slot; a header list beyond `maxHeaderBytes` is refused; a stream whose reader stalls does
 * not hold the other streams of its connection; a shutdown sends GOAWAY and lets the open request
 * finish. And issue 36's two rough edges of `NodeServe.serve`: its "listening on" line, and a port
 * in use failing with a message that names the address and `EADDRINUSE`.
 */
import { McpServer, Progress, Tool } from "@snodo/core"
import * as NodeServe from "@snodo/http/NodeServe"
import { Cause, Effect, Exit, Layer, ManagedRuntime, Schema } from "effect"
import { HttpServer } from "effect/http"
import { spawn } from "node:child_process"
import * as Http2 from "node:http2"
import * as Net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const sleep = Tool.make("sleep", { input: Schema.Struct({ ms: Schema.Int }) }, ({ ms }) => Effect.as(Effect.sleep(ms), `slept ${ms}`))
const chatty = Tool.make("chatty", { input: Schema.Struct({ events: Schema.Int }) }, ({ events }) =>
  Effect.gen(function*() {
    const padding = "x".repeat(4000)
    for (let step = 1; step <= events; step++) yield* Progress.report(step, { total: events, message: padding }).pipe(Effect.ignore)
    return "done"
  }))
const Server = McpServer.make({ name: "http2-limits", version: "1.0.0" }).add(sleep, chatty)

const serve = async (options: NodeServe.ServeOptions) => {
  const runtime = ManagedRuntime.make(NodeServe.layer({ port: 0, h2c: true, ...options }).pipe(Layer.provide(Server.layer)))
  const server = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  if (server.address._tag === "UnixPathAddress") throw new Error("expected TCP")
  return { runtime, origin: `http://127.0.0.1:${server.address.port}` }
}

const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} }
const body = (method: string, id: number, params: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: { ...meta, ...(params["_meta"] as object | undefined) } } })
const headersOf = (method: string, name?: string, extra: Record<string, string> = {}): Http2.OutgoingHttpHeaders => ({
  ":method": "POST",
  ":path": "/mcp",
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": method,
  ...(name === undefined ? {} : { "mcp-name": name }),
  ...extra
})

interface Answer {
  readonly status: number | undefined
  readonly text: string
  readonly rstCode: number | undefined
}

/** Sends one request on `session` and reads its whole answer (or how the stream was reset). */
const exchange = (session: Http2.ClientHttp2Session, headers: Http2.OutgoingHttpHeaders, payload: string): Promise<Answer> =>
  new Promise((resolve) => {
    const stream = session.request(headers)
    let status: number | undefined
    let text = ""
    stream.setEncoding("utf8")
    stream.on("response", (head) => (status = Number(head[":status"])))
    stream.on("data", (chunk: string) => (text += chunk))
    stream.on("error", () => undefined)
    stream.on("close", () => resolve({ status, text, rstCode: stream.rstCode === Http2.constants.NGHTTP2_NO_ERROR ? undefined : stream.rstCode }))
    stream.end(payload)
  })

const callSleep = (session: Http2.ClientHttp2Session, ms: number, id = 1) =>
  exchange(session, headersOf("tools/call", "sleep"), body("tools/call", id, { name: "sleep", arguments: { ms } }))

const connect = (origin: string, options: Http2.SecureClientSessionOptions = {}) => {
  const session = Http2.connect(origin, options)
  session.on("error", () => undefined)
  return session
}

describe("HTTP/2 limits", () => {
  let served: Awaited<ReturnType<typeof serve>>
  beforeAll(async () => {
    served = await serve({ maxConcurrentStreams: 4, maxConcurrent: 16, maxHeaderBytes: 8192 })
  })
  afterAll(() => served.runtime.dispose())

  it("too many streams: those beyond maxConcurrentStreams are refused, the connection carries on", async () => {
    // Sent before the server's SETTINGS reach the client, so the client does not hold them back.
    const session = connect(served.origin, { peerMaxConcurrentStreams: 100 })
    try {
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => callSleep(session, 300, i + 1)))
      const answered = answers.filter((answer) => answer.status === 200)
      const refused = answers.filter((answer) => answer.rstCode === Http2.constants.NGHTTP2_REFUSED_STREAM)
      expect(answered.length).toBeGreaterThanOrEqual(1)
      expect(answered.length).toBeLessThanOrEqual(4)
      expect(refused.length).toBe(10 - answered.length)
      // The same connection still answers.
      expect((await callSleep(session, 1, 99)).status).toBe(200)
    } finally {
      session.close()
    }
  })

  it("rapid reset: a flood of streams opened and cancelled ends the session and leaks no request slot", async () => {
    // Node's defaults here: 100 streams at once, as a deployment runs.
    const flooded = await serve({ maxConcurrent: 16 })
    const session = connect(flooded.origin)
    let goaway: number | undefined
    session.on("goaway", (code) => (goaway = code))
    await new Promise<void>((resolve) => session.once("remoteSettings", () => resolve()))
    // In batches of 100: each batch's HEADERS are on the wire (the next turn of the event loop)
    // before its RST_STREAMs, as an attacker's would be.
    for (let batch = 0; batch < 20 && !session.closed && !session.destroyed; batch++) {
      const streams: Array<Http2.ClientHttp2Stream> = []
      try {
        for (let i = 0; i < 100; i++) {
          const stream = session.request(headersOf("tools/call", "sleep"))
          stream.on("error", () => undefined)
          stream.write(body("tools/call", batch * 100 + i, { name: "sleep", arguments: { ms: 5000 } }).slice(0, 20))
          streams.push(stream)
        }
      } catch {
        break // the session was closed under us (GOAWAY)
      }
      await new Promise((resolve) => setTimeout(resolve, 5))
      for (const stream of streams) stream.close(Http2.constants.NGHTTP2_CANCEL)
      await new Promise((resolve) => setImmediate(resolve))
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
    session.destroy()
    // Every slot came back: a fresh connection gets `maxConcurrent` (16) calls answered at once
    // (four streams each on four connections, within maxConcurrentStreams).
    const sessions = Array.from({ length: 4 }, () => connect(flooded.origin))
    try {
      const answers = await Promise.all(sessions.flatMap((fresh, s) => Array.from({ length: 4 }, (_, i) => callSleep(fresh, 200, s * 4 + i))))
      expect(answers.map((answer) => answer.status)).toEqual(Array(16).fill(200))
    } finally {
      for (const fresh of sessions) fresh.close()
      await flooded.runtime.dispose()
    }
    // nghttp2's reset rate limit (a burst of 1,000, then 33 a second) ended the flooding session.
    expect([Http2.constants.NGHTTP2_ENHANCE_YOUR_CALM, Http2.constants.NGHTTP2_INTERNAL_ERROR]).toContain(goaway)
  }, 60_000)

  it("header flood: a header list beyond maxHeaderBytes is refused, the connection carries on", async () => {
    const session = connect(served.origin)
    try {
      const flooded = await exchange(session, headersOf("tools/call", "sleep", { "x-flood": "y".repeat(20_000) }), body("tools/call", 1, { name: "sleep", arguments: { ms: 1 } }))
      expect(flooded.status === 431 || flooded.rstCode !== undefined).toBe(true)
      expect(flooded.status).not.toBe(200)
      const many = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`x-many-${i}`, "z".repeat(40)]))
      const manyHeaders = await exchange(session, headersOf("tools/call", "sleep", many), body("tools/call", 2, { name: "sleep", arguments: { ms: 1 } }))
      expect(manyHeaders.status).not.toBe(200)
    } finally {
      session.destroy()
    }
    const fresh = connect(served.origin)
    try {
      expect((await callSleep(fresh, 1)).status).toBe(200)
    } finally {
      fresh.close()
    }
  })

  it("slow reader: a stream whose reader stalls does not hold the other streams of its connection", async () => {
    const session = connect(served.origin, { settings: { initialWindowSize: 16_384 } })
    try {
      const stalled = session.request(headersOf("tools/call", "chatty"))
      stalled.on("error", () => undefined)
      stalled.pause() // never read: its window fills and the server's writes wait
      stalled.end(body("tools/call", 1, { name: "chatty", arguments: { events: 200 }, _meta: { progressToken: "slow" } }))
      await new Promise((resolve) => setTimeout(resolve, 500))
      const startedAt = Date.now()
      const answer = await callSleep(session, 1, 2)
      expect(answer.status).toBe(200)
      expect(answer.text).toContain("slept 1")
      expect(Date.now() - startedAt).toBeLessThan(5000)
      stalled.close(Http2.constants.NGHTTP2_CANCEL)
    } finally {
      session.close()
    }
  })
})

describe("HTTP/1.1's per-request limits, per HTTP/2 stream", () => {
  it("a body beyond maxBodyBytes is 413 and a body that stalls ends at the deadline; the connection carries on", async () => {
    const served = await serve({ maxBodyBytes: 4096, deadline: "1 second" })
    const session = connect(served.origin)
    try {
      const large = await exchange(session, headersOf("tools/call", "sleep"), body("tools/call", 1, { name: "sleep", arguments: { ms: 1 }, padding: "p".repeat(8000) }))
      expect(large.status).toBe(413)
      const startedAt = Date.now()
      const stalled = await new Promise<Answer>((resolve) => {
        const stream = session.request(headersOf("tools/call", "sleep"))
        let status: number | undefined
        stream.on("response", (head) => (status = Number(head[":status"])))
        stream.resume()
        stream.on("error", () => undefined)
        stream.on("close", () => resolve({ status, text: "", rstCode: stream.rstCode }))
        stream.write(body("tools/call", 2, { name: "sleep", arguments: { ms: 1 } }).slice(0, 30)) // and nothing more
      })
      expect(stalled.status).toBe(408)
      expect(Date.now() - startedAt).toBeLessThan(5000)
      expect((await callSleep(session, 1, 3)).status).toBe(200)
    } finally {
      session.close()
      await served.runtime.dispose()
    }
  }, 20_000)
})

describe("HTTP/2 connections beyond maxConnections", () => {
  it("a stream on a connection beyond the cap is answered 503 and the connection closed", async () => {
    const served = await serve({ maxConnections: 1 })
    const first = connect(served.origin)
    try {
      expect((await callSleep(first, 1)).status).toBe(200)
      const second = connect(served.origin)
      const closed = new Promise<void>((resolve) => second.once("close", () => resolve()))
      const answer = await callSleep(second, 1)
      expect(answer.status === 503 || answer.rstCode !== undefined).toBe(true)
      await closed
      // The connection within the cap is untouched.
      expect((await callSleep(first, 1, 2)).status).toBe(200)
    } finally {
      first.close()
      await served.runtime.dispose()
    }
  }, 20_000)
})

describe("HTTP/2 idle connections", () => {
  it("a connection that opens no stream within headersTimeout, or none after keepAliveTimeout, is sent GOAWAY", async () => {
    const served = await serve({ headersTimeout: "1 second", keepAliveTimeout: "1 second" })
    try {
      const closedWithin = async (session: Http2.ClientHttp2Session) => {
        const startedAt = Date.now()
        await new Promise<void>((resolve) => session.once("close", () => resolve()))
        return Date.now() - startedAt
      }
      const idle = connect(served.origin)
      const goaway = new Promise<number>((resolve) => idle.once("goaway", (code) => resolve(code)))
      expect(await closedWithin(idle)).toBeLessThan(5000)
      expect(await goaway).toBe(Http2.constants.NGHTTP2_NO_ERROR)
      const used = connect(served.origin)
      expect((await callSleep(used, 1)).status).toBe(200)
      expect(await closedWithin(used)).toBeLessThan(5000)
      // A TCP connection that sends nothing (neither HTTP/1.1 nor HTTP/2's preface) is closed too.
      const url = new URL(served.origin)
      const silent = Net.connect(Number(url.port), url.hostname)
      silent.on("error", () => undefined)
      const silentFor = await new Promise<number>((resolve) => {
        const startedAt = Date.now()
        silent.once("close", () => resolve(Date.now() - startedAt))
      })
      expect(silentFor).toBeLessThan(5000)
    } finally {
      await served.runtime.dispose()
    }
  }, 30_000)
})

describe("HTTP/2 shutdown", () => {
  it("sends GOAWAY and lets the open request finish within the drain deadline", async () => {
    const served = await serve({ shutdownTimeout: "10 seconds" })
    const session = connect(served.origin)
    const goaway = new Promise<number>((resolve) => session.once("goaway", (code) => resolve(code)))
    const open = callSleep(session, 1500)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const disposed = served.runtime.dispose()
    expect(await goaway).toBe(Http2.constants.NGHTTP2_NO_ERROR)
    const answer = await open
    expect(answer.status).toBe(200)
    expect(answer.text).toContain("slept 1500")
    await disposed
    session.destroy()
  }, 30_000)
})

describe("NodeServe.serve (issue 36)", () => {
  it("a port in use fails with a ServeError naming the address and EADDRINUSE", async () => {
    const holder = Net.createServer()
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", () => resolve()))
    const port = (holder.address() as Net.AddressInfo).port
    try {
      const exit = await Effect.runPromiseExit(NodeServe.serve({ port }).pipe(Effect.provide(Server.layer)))
      expect(Exit.isFailure(exit)).toBe(true)
      const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      expect(error).toMatchObject({ _tag: "ServeError" })
      expect((error as Error).message).toContain(`127.0.0.1:${port}`)
      expect((error as Error).message).toContain("EADDRINUSE")
    } finally {
      holder.close()
    }
  })

  it("prints one 'listening on' line to stderr, nothing to stdout", async () => {
    const child = spawn(process.execPath, ["test/support/ServeMain.ts"], { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no line within 20 s: ${stderr}`)), 20_000)
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString("utf8")
          if (stderr.includes("\n")) {
            clearTimeout(timer)
            resolve()
          }
        })
      })
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(stderr).toMatch(/^MCP server listening on http:\/\/127\.0\.0\.1:\d+\/mcp\n$/)
      expect(stdout).toBe("")
    } finally {
      child.kill()
    }
  }, 30_000)
})
