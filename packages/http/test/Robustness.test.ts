/**
 * The one-call server when things go wrong at the edges: a client that disconnects while its
 * body is being read, an exception thrown inside Node's `request` listener.
 */
import * as Http from "node:http"
import * as Net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, expectValid, post, request, sleep } from "./support/Raw.ts"
import { start } from "./support/TestServer.ts"

describe("a client that disconnects while its body is being read", () => {
  let node: Awaited<ReturnType<typeof start>>
  beforeAll(async () => {
    node = await start({ maxConcurrent: 1 })
  })
  afterAll(() => node.close())

  it("gets nothing written to its dead connection, and its request is released", async () => {
    const writes: Array<{ status: number; socketDestroyed: boolean }> = []
    const original = Http.ServerResponse.prototype.writeHead
    Http.ServerResponse.prototype.writeHead = function(this: Http.ServerResponse, ...args: Parameters<typeof original>) {
      writes.push({ status: args[0], socketDestroyed: this.socket?.destroyed === true })
      return original.apply(this, args)
    } as typeof original
    try {
      const socket = Net.connect(node.port, "127.0.0.1", () =>
        socket.write(
          "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":"
        ))
      socket.on("error", () => undefined)
      await sleep(100)
      socket.destroy()
      await sleep(100)
    } finally {
      Http.ServerResponse.prototype.writeHead = original
    }
    expect(writes).toEqual([])
    // With maxConcurrent 1, a request left counted in flight would make this a 503.
    expect((await post(node.url, request("tools/list"))).status).toBe(200)
  })
})

describe("an exception inside the request listener", () => {
  let node: Awaited<ReturnType<typeof start>>
  beforeAll(async () => {
    node = await start({
      maxConcurrent: 1,
      // An application's policy with a bug: it throws for one host name.
      allowedHosts: (hostname) => {
        if (hostname === "boom.example") throw new Error("policy bug")
        return hostname === "127.0.0.1"
      }
    })
  })
  afterAll(() => node.close())

  it("is answered 500 with a -32603 that leaks nothing; the server keeps serving and nothing stays in flight", async () => {
    for (let i = 0; i < 3; i++) {
      const response = await post(node.url, request("tools/list"), { host: "boom.example" })
      expect(response.status).toBe(500)
      expect(response.headers["connection"]).toBe("close")
      expect(errorOf(response)).toEqual({ code: -32603, message: "Internal error" })
      expect(response.text).not.toContain("policy bug")
      expectValid(response)
    }
    // With maxConcurrent 1, a request left counted in flight would make this a 503.
    expect((await post(node.url, request("tools/list"))).status).toBe(200)
  })
})
