/**
 * Memory within the limits, measured on a real server process: request bodies being read share
 * a budget, open listen streams are bounded by what they hold as well as by their count, and an
 * open stream holds nothing of the body it was opened with.
 * Each test measures the server's RSS (after a full collection, so that it counts what the server
 * holds rather than what the collector has not reclaimed yet) and asserts a bound the defect
 * exceeded several times over.
 */
import * as Net from "node:net"
import { describe, expect, it } from "vitest"
import { headersFor, post, request } from "../../packages/http/test/support/Raw.ts"
import { spawnHttpServer } from "../support/HttpProcess.ts"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Opens a raw connection and writes a request head; resolves the status line's code once answered. */
const rawRequest = (port: number, head: Record<string, string>, onSocket: (socket: Net.Socket) => void) => {
  const socket = Net.connect(port, "127.0.0.1")
  socket.on("error", () => undefined)
  let status: number | undefined
  socket.once("data", (chunk: Buffer) => {
    status = Number(chunk.toString("latin1").slice(9, 12))
  })
  socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(head).map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n`)
  onSocket(socket)
  return { socket, status: () => status }
}

describe("memory within the limits", () => {
  it("300 connections each sending 2 MiB − 1 of a 2 MiB body: the body budget refuses with 503 and RSS stays bounded", async () => {
    const server = await spawnHttpServer()
    try {
      const before = await server.rssAfterGc()
      const chunk = Buffer.alloc(2 * 1024 * 1024 - 1, 0x20)
      const base = { "content-type": "application/json", accept: "application/json, text/event-stream" }
      const clients = Array.from({ length: 300 }, (_, i) =>
        // Half declare their length, half stream it chunked (the budget counts bytes as they arrive).
        rawRequest(server.port, i % 2 === 0 ? { ...base, "content-length": String(2 * 1024 * 1024) } : { ...base, "transfer-encoding": "chunked" }, (socket) => {
          socket.write(i % 2 === 0 ? chunk : Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]))
        }))
      // Every body arrives (the server is busy reading 600 MiB): wait until the refusals stop coming
      // (no new one for 2 s: on a loaded machine the server can pause longer than one sample).
      const refusals = () => clients.filter((client) => client.status() === 503).length
      const deadline = Date.now() + 25_000
      for (let last = -1, unchanged = 0; Date.now() < deadline && unchanged < 4;) {
        await sleep(500)
        const now = refusals()
        unchanged = now === last && now > 0 ? unchanged + 1 : 0
        last = now
      }
      const held = await server.rssAfterGc()
      const statuses = clients.map((client) => client.status())
      const refused = statuses.filter((status) => status === 503).length
      console.info(`body flood: RSS ${before} → ${held} MiB after GC (peak sampled ${server.rssMiB().toFixed(0)}); ${refused} of 300 refused 503`)
      // 600 MiB of bodies held before the budget; 64 MiB of them now.
      expect(held - before).toBeLessThan(300)
      expect(refused).toBeGreaterThan(200)
      expect(statuses.every((status) => status === undefined || status === 503)).toBe(true)
      for (const client of clients) client.socket.destroy()
      await sleep(200)
      // The budget is given back: a request is served again.
      expect((await post(server.url, request("tools/call", { name: "echo", arguments: { text: "x" } }))).status).toBe(200)
    } finally {
      await server.stop()
    }
  }, 40_000)

  it("256 listen streams of 1,000 long URIs each, not read: past the byte bound they are refused 503 and RSS stays bounded", async () => {
    const server = await spawnHttpServer()
    try {
      const before = await server.rssAfterGc()
      const uris = Array.from({ length: 1000 }, (_, i) => `file:///${i}/${"u".repeat(2000)}`)
      const clients = Array.from({ length: 256 }, () => {
        const body = JSON.stringify(request("subscriptions/listen", { notifications: { resourceSubscriptions: uris } }))
        const head = { ...headersFor(JSON.parse(body) as Record<string, unknown>), "content-length": String(Buffer.byteLength(body)) }
        // The client never reads what follows its status line.
        return rawRequest(server.port, head, (socket) => socket.write(body))
      })
      const deadline = Date.now() + 20_000
      while (clients.some((client) => client.status() === undefined) && Date.now() < deadline) await sleep(100)
      const held = await server.rssAfterGc()
      const statuses = clients.map((client) => client.status())
      const open = statuses.filter((status) => status === 200).length
      console.info(`listen flood: RSS ${before} → ${held} MiB after GC; ${open} streams open, ${statuses.filter((s) => s === 503).length} refused 503`)
      // 2 MB of URIs per stream: 512 MB held before the bound, 32 Mi characters now.
      expect(held - before).toBeLessThan(300)
      expect(open).toBeGreaterThan(0)
      expect(open).toBeLessThanOrEqual(16)
      expect(statuses.every((status) => status === 200 || status === 503)).toBe(true)
      for (const client of clients) client.socket.destroy()
    } finally {
      await server.stop()
    }
  }, 40_000)

  it("64 listen streams opened with 1.5 MiB bodies (mostly whitespace): the server keeps neither their bytes nor their text", async () => {
    const server = await spawnHttpServer()
    try {
      const before = await server.heldAfterGc()
      const padding = " ".repeat(1.5 * 1024 * 1024)
      const clients: Array<ReturnType<typeof rawRequest>> = []
      // In waves of 8, under the budget of bodies being read together (64 MiB).
      for (let wave = 0; wave < 8; wave++) {
        for (let index = 0; index < 8; index++) {
          const message = { ...request("subscriptions/listen", { notifications: { toolsListChanged: true } }), id: `listen-stream-${wave}-${index}` }
          // Whitespace is valid JSON between members; every string decoded from the body was cut from it.
          const body = `${JSON.stringify(message).slice(0, -1)}${padding}}`
          const head = { ...headersFor(message), "content-length": String(Buffer.byteLength(body)) }
          clients.push(rawRequest(server.port, head, (socket) => socket.write(body)))
        }
        const deadline = Date.now() + 10_000
        while (clients.some((client) => client.status() === undefined) && Date.now() < deadline) await sleep(20)
      }
      const held = await server.heldAfterGc()
      console.info(`padded listen streams: held ${before} → ${held} MiB after GC`)
      expect(clients.map((client) => client.status())).toEqual(clients.map(() => 200))
      // 64 × 1.5 MiB of bytes and as much text were held by the streams (~192 MiB); now ~20 KiB a stream.
      expect(held - before).toBeLessThan(24)
      for (const client of clients) client.socket.destroy()
    } finally {
      await server.stop()
    }
  }, 40_000)
})
