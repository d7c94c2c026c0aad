/**
 * Limits, lifetimes and refusals over real listeners: body limit counted while streaming (413),
 * head limit (431), deadline (504, or a terminal error event in an open stream), slow bodies (408),
 * capacity (503), disconnects and cancellation interrupting the handler, keep-alive, shutdown.
 */
import * as Http from "node:http"
import * as Net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, eventually, expectValid, headersFor, post, request, send, sleep } from "./support/Raw.ts"
import { start, stats } from "./support/TestServer.ts"

/** A TCP connection to the server on loopback, once it is open. */
const connectTo = (port: number): Promise<Net.Socket> =>
  new Promise((resolve) => {
    const socket = Net.connect(port, "127.0.0.1", () => resolve(socket))
  })

type Server = Awaited<ReturnType<typeof start>>

describe("limits", () => {
  let server: Server
  beforeAll(async () => {
    server = await start({ maxBodyBytes: 4096, deadline: "400 millis" })
  })
  afterAll(() => server.close())

  it("a Content-Length over the limit is 413 without reading, and the connection closes", async () => {
    const response = await post(server.url, request("tools/call", { name: "echo", arguments: { text: "x".repeat(5000) } }))
    expect(response.status).toBe(413)
    expect(response.headers["connection"]).toBe("close")
    expect(errorOf(response).code).toBe(-32600)
    expectValid(response)
  })

  it("a body over the limit sent slowly is refused as soon as the limit is crossed", async () => {
    const target = new URL(server.url)
    const body = request("tools/list")
    let sent = 0
    const result = await new Promise<{ status: number; sentWhenAnswered: number }>((resolve, reject) => {
      const req = Http.request({
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: { ...headersFor(body), "transfer-encoding": "chunked" },
        agent: false
      }, (res) => {
        resolve({ status: res.statusCode ?? 0, sentWhenAnswered: sent })
        res.resume()
        req.destroy()
      })
      req.on("error", (error) => {
        if (sent < 64) reject(error)
      })
      const tick = () => {
        if (req.destroyed || sent >= 64) return
        req.write(" ".repeat(1024))
        sent++
        setTimeout(tick, 20)
      }
      tick()
    })
    expect(result.status).toBe(413)
    expect(result.sentWhenAnswered).toBeLessThan(16)
  })

  it("the deadline answers 504 and interrupts the handler", async () => {
    const before = { ...stats }
    const response = await post(server.url, request("tools/call", { name: "slow", arguments: { ms: 5000 } }))
    expect(response.status).toBe(504)
    expect(errorOf(response)).toMatchObject({ code: -32603, message: "Request deadline exceeded" })
    expectValid(response)
    await eventually(() => stats.interrupted > before.interrupted && stats.finalized > before.finalized)
    expect(stats.completed).toBe(before.completed)
  })

  it("the deadline inside an open stream is the terminal error event, status 200", async () => {
    const body = request("tools/call", { name: "slow", arguments: { ms: 5000, progress: true } }, { progressToken: "p" })
    const response = await post(server.url, body)
    expect(response.status).toBe(200)
    expect(response.headers["content-type"]).toBe("text/event-stream")
    expect(response.messages.map((m) => m["method"] ?? "error")).toEqual(["notifications/progress", "error"])
    expect(response.messages[1]).toMatchObject({ id: body.id, error: { code: -32603 } })
    expectValid(response, "tools/call")
  })

  it("a body that does not arrive within the deadline is 408", async () => {
    const target = new URL(server.url)
    const body = request("tools/list")
    const status = await new Promise<number>((resolve, reject) => {
      const req = Http.request({
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: { ...headersFor(body), "content-length": "100" },
        agent: false
      }, (res) => {
        resolve(res.statusCode ?? 0)
        res.resume()
      })
      req.on("error", reject)
      req.write("{")
    })
    expect(status).toBe(408)
  })
})

describe("head limit", () => {
  let server: Server
  beforeAll(async () => {
    server = await start()
  })
  afterAll(() => server.close())

  it("headers over 32 KiB are 431", async () => {
    const response = await post(server.url, request("tools/list"), { "x-filler": "a".repeat(33 * 1024) })
    expect(response.status).toBe(431)
  })

  it("headers under the limit are served", async () => {
    const response = await post(server.url, request("tools/list"), { "x-filler": "a".repeat(16 * 1024) })
    expect(response.status).toBe(200)
  })

  it("Expect: 100-continue is answered and the request served", async () => {
    const response = await post(server.url, request("tools/list"), { expect: "100-continue" })
    expect(response.status).toBe(200)
  })

  it("keeps connections alive between requests", async () => {
    const agent = new Http.Agent({ keepAlive: true, maxSockets: 1 })
    const target = new URL(server.url)
    const once = (body: Record<string, unknown>) =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const req = Http.request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers: headersFor(body), agent }, (res) => {
          res.resume()
          res.on("end", () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }))
        })
        req.on("error", reject)
        req.end(JSON.stringify(body))
      })
    const first = await once(request("tools/list"))
    const second = await once(request("tools/list"))
    agent.destroy()
    expect([first.status, second.status]).toEqual([200, 200])
    expect(second.reused).toBe(true)
  })
})

describe("lifetimes", () => {
  let server: Server
  beforeAll(async () => {
    server = await start()
  })
  afterAll(() => server.close())

  it("a client that disconnects before the response interrupts the handler; nothing is written", async () => {
    const before = { ...stats }
    const target = new URL(server.url)
    const body = request("tools/call", { name: "slow", arguments: { ms: 5000 } })
    const req = Http.request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers: headersFor(body), agent: false })
    let answered = false
    req.on("response", () => (answered = true))
    req.on("error", () => undefined)
    req.end(JSON.stringify(body))
    await eventually(() => stats.started > before.started)
    req.destroy()
    await eventually(() => stats.interrupted > before.interrupted && stats.finalized > before.finalized)
    expect(answered).toBe(false)
    expect(stats.completed).toBe(before.completed)
  })

  it("a client that disconnects mid-SSE interrupts the handler", async () => {
    const before = { ...stats }
    const target = new URL(server.url)
    const body = request("tools/call", { name: "slow", arguments: { ms: 5000, progress: true } }, { progressToken: 1 })
    const firstEvent = await new Promise<string>((resolve, reject) => {
      const req = Http.request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers: headersFor(body), agent: false }, (res) => {
        expect(res.headers["content-type"]).toBe("text/event-stream")
        res.setEncoding("utf8")
        res.once("data", (chunk: string) => {
          resolve(chunk)
          req.destroy()
        })
      })
      req.on("error", () => undefined)
      req.once("error", reject)
      req.end(JSON.stringify(body))
    })
    expect(firstEvent).toContain("notifications/progress")
    await eventually(() => stats.interrupted > before.interrupted && stats.finalized > before.finalized)
    expect(stats.completed).toBe(before.completed)
  })

  it("an anonymous caller's posted notifications/cancelled reaches no request: ids collide across clients", async () => {
    const before = { ...stats }
    // Two clients, each with its own id 1, as every client starts counting at 1.
    const first = post(server.url, { ...request("tools/call", { name: "slow", arguments: { ms: 400 } }), id: 1 })
    const second = post(server.url, { ...request("tools/call", { name: "slow", arguments: { ms: 400 } }), id: 1 })
    await eventually(() => stats.started >= before.started + 2)
    // A third client: without the MCP headers its cancel is refused; with them it is accepted and ignored.
    const bare = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }
    const refused = await send(server.url, bare, { headers: { "mcp-protocol-version": undefined, "mcp-method": undefined } })
    expect(refused.status).toBe(400)
    expect(errorOf(refused)).toMatchObject({ code: -32020, data: { header: "MCP-Protocol-Version" } })
    expect((await send(server.url, bare)).status).toBe(202)
    for (const response of await Promise.all([first, second])) {
      expect(response.status).toBe(200)
      expect(response.messages[0]!["result"]).toMatchObject({ content: [{ text: "slept" }] })
    }
    expect(stats.interrupted).toBe(before.interrupted)
  })
})

describe("capacity", () => {
  it("requests beyond maxConcurrent are 503 with Retry-After", async () => {
    const server = await start({ maxConcurrent: 1 })
    try {
      const before = stats.started
      const slow = post(server.url, request("tools/call", { name: "slow", arguments: { ms: 300 } }))
      await eventually(() => stats.started > before)
      const refused = await post(server.url, request("tools/list"))
      expect(refused.status).toBe(503)
      expect(refused.headers["retry-after"]).toBe("1")
      expectValid(refused)
      expect((await slow).status).toBe(200)
      expect((await post(server.url, request("tools/list"))).status).toBe(200)
    } finally {
      await server.close()
    }
  })

  /**
   * With `idle` holding every place, a new connection's request is answered 503 (busy, the
   * connection closed); once they close, a request is served again.
   */
  const refusedUntilClosed = async (url: string, idle: ReadonlyArray<Net.Socket>): Promise<void> => {
    await sleep(50)
    const refused = await post(url, request("tools/list"))
    expect(refused.status).toBe(503)
    expect(refused.headers["connection"]).toBe("close")
    expect(errorOf(refused).message).toBe("Server busy: too many connections")
    for (const socket of idle) socket.destroy()
    await sleep(50)
    expect((await post(url, request("tools/list"))).status).toBe(200)
  }

  it("connections beyond maxConnections are answered 503 and closed", async () => {
    const server = await start({ maxConnections: 2 })
    const idle = await Promise.all([0, 1].map(() => connectTo(server.port)))
    try {
      await refusedUntilClosed(server.url, idle)
    } finally {
      for (const socket of idle) socket.destroy()
      await server.close()
    }
  })

  it("closed connections stop counting against maxConnections, however many came and went", async () => {
    const server = await start({ maxConnections: 2 })
    const connect = () => connectTo(server.port)
    const idle: Array<Net.Socket> = []
    try {
      // More connections than the server keeps closed sockets for between two counts (64).
      for (let i = 0; i < 100; i++) {
        const socket = await connect()
        await new Promise<void>((resolve) => socket.end(() => resolve()))
        socket.destroy()
      }
      await sleep(50)
      expect((await post(server.url, request("tools/list"))).status).toBe(200)
      idle.push(await connect(), await connect())
      await refusedUntilClosed(server.url, idle)
    } finally {
      for (const socket of idle) socket.destroy()
      await server.close()
    }
  })
})

describe("shutdown", () => {
  it("drains in-flight requests, then stops accepting connections", async () => {
    const server = await start()
    const before = stats.started
    const slow = post(server.url, request("tools/call", { name: "slow", arguments: { ms: 300 } }))
    await eventually(() => stats.started > before)
    const closing = server.close()
    const response = await slow
    expect(response.status).toBe(200)
    expect(response.messages[0]!["result"]).toBeDefined()
    await closing
    await expect(post(server.url, request("tools/list"))).rejects.toThrow(/ECONNREFUSED/)
  })

  it("interrupts what is still running when the shutdown timeout passes", async () => {
    const server = await start({ shutdownTimeout: "200 millis" })
    const before = { ...stats }
    const slow = post(server.url, request("tools/call", { name: "slow", arguments: { ms: 5000 } })).catch((error: Error) => error)
    await eventually(() => stats.started > before.started)
    const startedAt = Date.now()
    await server.close()
    expect(Date.now() - startedAt).toBeLessThan(3000)
    await eventually(() => stats.interrupted > before.interrupted && stats.finalized > before.finalized)
    await slow
  })
})
