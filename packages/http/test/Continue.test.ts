/**
 * `Expect: 100-continue`: a request refused before its body gets its refusal instead of
 * `100 Continue` (so the client never sends the body) and the connection closes; a request that
 * passes the checks gets `100 Continue`, then its answer. Both adapters, the same way.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Buffer } from "node:buffer"
import * as Http from "node:http"
import { createServer } from "node:http"
import * as Net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as McpHttp from "@snodo/http/McpHttp"
import * as NodeServe from "@snodo/http/NodeServe"
import type { Options } from "@snodo/http/Options"
import { request } from "./support/Raw.ts"
import { Server, start } from "./support/TestServer.ts"

const mounted = async (options: Options) => {
  const runtime = ManagedRuntime.make(
    HttpRouter.serve(McpHttp.layerRoute(options).pipe(Layer.provide(Server.layer)), { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
    )
  )
  const address = (await runtime.runPromise(Effect.service(HttpServer.HttpServer))).address
  if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  return { port: address.port, close: () => runtime.dispose() }
}

/** Writes `head` on a fresh connection and collects what comes back until the server closes it (or `wait` ms). */
const exchange = (port: number, head: string, wait = 500) =>
  new Promise<{ text: string; closed: boolean }>((resolve) => {
    const socket = Net.connect(port, "127.0.0.1", () => socket.write(head))
    let text = ""
    let closed = false
    const timer = setTimeout(() => {
      socket.destroy()
      resolve({ text, closed })
    }, wait)
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")))
    socket.on("error", () => undefined)
    socket.on("end", () => {
      closed = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ text, closed })
    })
  })

const expecting = (headers: ReadonlyArray<string>) =>
  ["POST /mcp HTTP/1.1", "Host: 127.0.0.1", "Expect: 100-continue", ...headers, "", ""].join("\r\n")

const continueCases = [
  {
    name: "a declared body over the limit",
    head: expecting(["Content-Type: application/json", "Accept: application/json, text/event-stream", "Content-Length: 100000"]),
    status: 413
  },
  { name: "a wrong Content-Type", head: expecting(["Content-Type: text/plain", "Content-Length: 10"]), status: 415 },
  { name: "a forbidden Origin", head: expecting(["Content-Type: application/json", "Origin: https://evil.example.com", "Content-Length: 10"]), status: 403 }
]

describe("Expect: 100-continue", () => {
  let node: Awaited<ReturnType<typeof start>>
  let route: Awaited<ReturnType<typeof mounted>>
  beforeAll(async () => {
    node = await start({ maxBodyBytes: 4096 })
    route = await mounted({ maxBodyBytes: 4096 })
  })
  afterAll(async () => {
    await node.close()
    await route.close()
  })

  it.each(continueCases)("$name is refused without 100 Continue, and the connection closes (both adapters)", async ({ head, status }) => {
    for (const [adapter, port] of [["NodeServe", node.port], ["McpHttp", route.port]] as const) {
      const { text, closed } = await exchange(port, head)
      expect([adapter, text.slice(0, 12)]).toEqual([adapter, `HTTP/1.1 ${status}`])
      expect([adapter, text.includes("100 Continue")]).toEqual([adapter, false])
      expect([adapter, /\r\nconnection: close\r\n/i.test(text), closed]).toEqual([adapter, true, true])
    }
  })

  it("a request that passes the checks gets 100 Continue, then its answer", async () => {
    const body = JSON.stringify(request("tools/list"))
    for (const port of [node.port, route.port]) {
      const response = await new Promise<{ status: number; informational: Array<number> }>((resolve, reject) => {
        const informational: Array<number> = []
        const req = Http.request({
          host: "127.0.0.1",
          port,
          path: "/mcp",
          method: "POST",
          agent: false,
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/list",
            "content-length": Buffer.byteLength(body),
            expect: "100-continue"
          }
        }, (res) => {
          res.resume()
          res.on("end", () => resolve({ status: res.statusCode ?? 0, informational }))
        })
        req.on("information", (info) => informational.push(info.statusCode))
        // The body goes out only once the server asked for it.
        req.on("continue", () => req.end(body))
        req.on("error", reject)
      })
      expect(response).toEqual({ status: 200, informational: [100] })
    }
  })
})

describe("Expect: 100-continue beside the endpoint (NodeServe)", () => {
  const other = ["POST /other HTTP/1.1", "Host: 127.0.0.1", "Expect: 100-continue", "Content-Length: 2", "", ""].join("\r\n")

  it("without an application, the 404 comes instead of 100 Continue and the connection closes", async () => {
    const node = await start()
    try {
      const { text, closed } = await exchange(node.port, other)
      expect(text.startsWith("HTTP/1.1 404")).toBe(true)
      expect(/\r\nconnection: close\r\n/i.test(text)).toBe(true)
      expect(closed).toBe(true)
    } finally {
      await node.close()
    }
  })

  it("an application served on it is sent 100 Continue, as Node would, and reads its body", async () => {
    const app = HttpRouter.add(
      "POST",
      "/other",
      Effect.gen(function*() {
        const incoming = yield* HttpServerRequest.HttpServerRequest
        return HttpServerResponse.text(`got ${yield* incoming.text}`)
      })
    )
    const runtime = ManagedRuntime.make(
      HttpRouter.serve(app, { disableLogger: true, disableListenLog: true }).pipe(
        Layer.provideMerge(NodeServe.layer({ port: 0 })),
        Layer.provide(Server.layer)
      )
    )
    try {
      const address = (await runtime.runPromise(Effect.service(HttpServer.HttpServer))).address
      if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
      const port = address.port
      const text = await new Promise<string>((resolve) => {
        let received = ""
        const socket = Net.connect(port, "127.0.0.1", () => socket.write(other))
        socket.on("data", (chunk: Buffer) => {
          received += chunk.toString("latin1")
          if (received === "HTTP/1.1 100 Continue\r\n\r\n") socket.write("hi")
          if (received.endsWith("got hi")) {
            socket.destroy()
            resolve(received)
          }
        })
      })
      expect(text.startsWith("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200")).toBe(true)
    } finally {
      await runtime.dispose()
    }
  })
})
