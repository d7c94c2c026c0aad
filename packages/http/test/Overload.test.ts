/**
 * Overload and abuse over a real listener: refusals by a bound say so (503 or 429 with
 * `Retry-After`, a retryable -32603), and one caller cannot starve the others.
 */
import * as Net from "node:net"
import * as McpServer from "@snodo/core/McpServer"
import { describe, expect, it } from "vitest"
import { errorOf, eventually, expectValid, post, request } from "./support/Raw.ts"
import { echo, slow, start, stats } from "./support/TestServer.ts"

describe("a busy executor", () => {
  it("is answered 503 with Retry-After and a retryable -32603, not 500", async () => {
    const definition = McpServer.make({ name: "busy", version: "1.0.0", executor: { maxRunning: 1, maxQueued: 0 } }).add(echo, slow)
    const server = await start({}, definition.layer)
    try {
      const before = stats.started
      const running = post(server.url, request("tools/call", { name: "slow", arguments: { ms: 300 } }))
      await eventually(() => stats.started > before)
      const refused = await post(server.url, request("tools/call", { name: "echo", arguments: { text: "hi" } }))
      expect(refused.status).toBe(503)
      expect(refused.headers["retry-after"]).toBe("1")
      expect(errorOf(refused)).toMatchObject({ code: -32603, data: { retryable: true, limit: 0 } })
      expectValid(refused, "tools/call")
      expect((await running).status).toBe(200)
      expect((await post(server.url, request("tools/call", { name: "echo", arguments: { text: "hi" } }))).status).toBe(200)
    } finally {
      await server.close()
    }
  })
})

/** A raw connection that records when it closed and what it was answered. */
const connect = (port: number) =>
  new Promise<{ socket: Net.Socket; closed: () => number | undefined; received: () => string }>((resolve) => {
    const openedAt = Date.now()
    let closedAfter: number | undefined
    let received = ""
    const socket = Net.connect(port, "127.0.0.1", () => resolve({ socket, closed: () => closedAfter, received: () => received }))
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")))
    socket.on("error", () => undefined)
    socket.on("close", () => (closedAfter = Date.now() - openedAt))
  })

const requestHead = (body: string) =>
  `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
  `MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`

describe("sockets", () => {
  it("idle connections within the cap are closed at the head timeout, so they cannot lock others out", async () => {
    const server = await start({ maxConnections: 4, headersTimeout: "1 second" })
    try {
      const idle = await Promise.all([0, 1, 2, 3].map(() => connect(server.port)))
      await eventually(() => idle.every((client) => client.closed() !== undefined), 8000)
      // Closed by the head timeout (about a second), not by Node's own check every 30 s.
      for (const client of idle) expect(client.closed()!).toBeLessThan(8000)
      expect((await post(server.url, request("tools/list"))).status).toBe(200)
    } finally {
      await server.close()
    }
  })

  it("a head that trickles in is cut off at the head timeout", async () => {
    const server = await start({ headersTimeout: "1 second" })
    try {
      const client = await connect(server.port)
      client.socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
      const trickle = setInterval(() => client.socket.write("X-Slow: 1\r\n"), 200)
      try {
        await eventually(() => client.closed() !== undefined, 8000)
      } finally {
        clearInterval(trickle)
      }
      expect(client.received()).toMatch(/^HTTP\/1\.1 408/)
    } finally {
      await server.close()
    }
  })

  it("a connection beyond the cap is answered 503 and closed at once; an idle one is closed within a second", async () => {
    const server = await start({ maxConnections: 2 })
    try {
      const holders = await Promise.all([0, 1].map(() => connect(server.port)))
      const busy = await connect(server.port)
      busy.socket.write(requestHead(JSON.stringify(request("tools/list"))))
      const idle = await connect(server.port)
      await eventually(() => busy.closed() !== undefined && idle.closed() !== undefined, 5000)
      expect(busy.received()).toMatch(/^HTTP\/1\.1 503/)
      expect(busy.received().toLowerCase()).toContain("retry-after: 1")
      expect(idle.closed()!).toBeLessThan(5000)
      for (const holder of holders) expect(holder.closed()).toBeUndefined()
      for (const holder of holders) holder.socket.destroy()
    } finally {
      await server.close()
    }
  })

  it("an idle keep-alive connection is closed after keepAliveTimeout", async () => {
    const server = await start({ keepAliveTimeout: "300 millis" })
    try {
      const client = await connect(server.port)
      client.socket.write(requestHead(JSON.stringify(request("tools/list"))))
      await eventually(() => client.received().includes("\r\n\r\n"))
      await eventually(() => client.closed() !== undefined, 5000)
      expect(client.received()).toMatch(/^HTTP\/1\.1 200/)
    } finally {
      await server.close()
    }
  })
})
