/**
 * The two adapters give the same answers: every refusal of one table is sent to the one-call
 * server (`NodeServe`, answered by `NodeEndpoint` straight from node:http) and to the mounted route
 * (`McpHttp.layerRoute` served by `HttpRouter.serve` on `NodeHttpServer.layer`), and both must
 * answer with the expected status and with the same status, body and headers as each other.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { Buffer } from "node:buffer"
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as McpHttp from "@snodo/http/McpHttp"
import { meta, protocolVersion, type RawResponse, request, send, type SendOptions } from "./support/Raw.ts"
import { Server, start } from "./support/TestServer.ts"

const options = { maxBodyBytes: 4096 }

const mounted = async () => {
  const runtime = ManagedRuntime.make(
    HttpRouter.serve(McpHttp.layerRoute(options).pipe(Layer.provide(Server.layer)), { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
    )
  )
  const address = (await runtime.runPromise(Effect.service(HttpServer.HttpServer))).address
  if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  return { url: `http://127.0.0.1:${address.port}/mcp`, close: () => runtime.dispose() }
}

interface Case {
  readonly name: string
  readonly body: string | Uint8Array | Record<string, unknown> | undefined
  readonly options?: SendOptions
  readonly status: number
  /** The JSON-RPC error code of the body; `undefined` for no body. */
  readonly code: number | undefined
  /** Response headers that must be present with these values. */
  readonly headers?: Record<string, string>
}

const list = () => request("tools/list")
const json = { "content-type": "application/json", accept: "application/json, text/event-stream" }

const cases: ReadonlyArray<Case> = [
  { name: "GET", body: undefined, options: { method: "GET" }, status: 405, code: -32600, headers: { allow: "POST" } },
  { name: "DELETE", body: undefined, options: { method: "DELETE" }, status: 405, code: -32600, headers: { allow: "POST" } },
  { name: "PUT with a body", body: list(), options: { method: "PUT" }, status: 405, code: -32600, headers: { allow: "POST" } },
  { name: "Content-Type text/plain", body: list(), options: { headers: { "content-type": "text/plain" } }, status: 415, code: -32600 },
  { name: "no Content-Type", body: list(), options: { headers: { "content-type": undefined } }, status: 415, code: -32600 },
  { name: "Accept application/json only", body: list(), options: { headers: { accept: "application/json" } }, status: 406, code: -32600 },
  { name: "Host not allowed", body: list(), options: { headers: { host: "evil.example.com" } }, status: 403, code: -32600 },
  { name: "Origin not allowed", body: list(), options: { headers: { origin: "https://evil.example.com" } }, status: 403, code: -32600 },
  {
    name: "declared body over the limit",
    body: request("tools/call", { name: "echo", arguments: { text: "x".repeat(5000) } }),
    status: 413,
    code: -32600,
    headers: { connection: "close" }
  },
  {
    name: "chunked body over the limit",
    body: request("tools/call", { name: "echo", arguments: { text: "x".repeat(5000) } }),
    options: { headers: { "transfer-encoding": "chunked" } },
    status: 413,
    code: -32600,
    headers: { connection: "close" }
  },
  { name: "parse error", body: "{", options: { headers: json }, status: 400, code: -32700 },
  { name: "invalid UTF-8", body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), options: { headers: json }, status: 400, code: -32700 },
  { name: "batch", body: "[]", options: { headers: json }, status: 400, code: -32600 },
  { name: "a JSON-RPC response", body: { jsonrpc: "2.0", id: 1, result: {} }, status: 400, code: -32600 },
  { name: "notification", body: { jsonrpc: "2.0", method: "notifications/initialized", params: {} }, status: 202, code: undefined },
  {
    name: "cancellation of nothing",
    body: { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "none" } },
    status: 202,
    code: undefined
  },
  {
    name: "Mcp-Method disagreeing with the body",
    body: { jsonrpc: "2.0", id: 41, method: "tools/list", params: { _meta: meta() } },
    options: { headers: { "mcp-method": "prompts/list" } },
    status: 400,
    code: -32020
  },
  {
    name: "MCP-Protocol-Version missing",
    body: { jsonrpc: "2.0", id: 42, method: "tools/list", params: { _meta: meta() } },
    options: { headers: { "mcp-protocol-version": undefined } },
    status: 400,
    code: -32020
  },
  {
    name: "Mcp-Name disagreeing with the body",
    body: { jsonrpc: "2.0", id: 43, method: "tools/call", params: { name: "echo", arguments: { text: "a" }, _meta: meta() } },
    options: { headers: { "mcp-name": "other" } },
    status: 400,
    code: -32020
  },
  {
    name: "Mcp-Name repeated",
    body: JSON.stringify({ jsonrpc: "2.0", id: 45, method: "tools/call", params: { name: "echo", arguments: { text: "a" }, _meta: meta() } }),
    options: {
      rawHeaders: [
        ["Content-Type", "application/json"],
        ["Accept", "application/json, text/event-stream"],
        ["MCP-Protocol-Version", protocolVersion],
        ["Mcp-Method", "tools/call"],
        ["Mcp-Name", "echo"],
        ["Mcp-Name", "echo"]
      ]
    },
    status: 400,
    code: -32020
  },
  {
    name: "unknown tool (the request runs)",
    body: { jsonrpc: "2.0", id: 44, method: "tools/call", params: { name: "nope", arguments: {}, _meta: meta() } },
    status: 400,
    code: -32602
  },
  { name: "HEAD", body: undefined, options: { method: "HEAD" }, status: 405, code: undefined, headers: { allow: "POST" } },
  {
    name: "two Host headers (RFC 9112 §3.2)",
    body: JSON.stringify(list()),
    options: {
      rawHeaders: [
        ["Host", "127.0.0.1"],
        ["Host", "127.0.0.1"],
        ["Content-Type", "application/json"],
        ["Accept", "application/json, text/event-stream"],
        ["MCP-Protocol-Version", protocolVersion],
        ["Mcp-Method", "tools/list"]
      ]
    },
    status: 400,
    code: -32600,
    headers: { connection: "close" }
  },
  // The authority of an absolute-form target is the host addressed; Host is ignored (RFC 9112 §3.2.2).
  { name: "absolute-form target on another host", body: list(), options: { path: "http://evil.example/mcp" }, status: 403, code: -32600 },
  {
    name: "Content-Encoding gzip",
    body: list(),
    options: { headers: { "content-encoding": "gzip" } },
    status: 415,
    code: -32600,
    headers: { "accept-encoding": "identity" }
  }
]

/** What must be identical between the adapters. */
const comparable = (response: RawResponse) => ({
  status: response.status,
  body: response.text,
  contentType: response.headers["content-type"],
  allow: response.headers["allow"],
  connection: response.headers["connection"] === "close" ? "close" : "keep-alive",
  retryAfter: response.headers["retry-after"]
})

describe("the same refusal table on both adapters", () => {
  let node: { readonly url: string; readonly close: () => Promise<void> }
  let route: { readonly url: string; readonly close: () => Promise<void> }
  beforeAll(async () => {
    node = await start(options)
    route = await mounted()
  })
  afterAll(async () => {
    await node.close()
    await route.close()
  })

  it.each(cases.map((test) => [test.name, test] as const))("%s", async (_name, test) => {
    const fromNode = await send(node.url, test.body, test.options)
    const fromRoute = await send(route.url, test.body, test.options)
    for (const response of [fromNode, fromRoute]) {
      expect(response.status).toBe(test.status)
      if (test.code === undefined && test.status === 202) expect(response.text).toBe("")
      if (test.code !== undefined) {
        expect(response.headers["content-type"]).toBe("application/json")
        expect((JSON.parse(response.text) as { error: { code: number } }).error.code).toBe(test.code)
      }
      for (const [name, value] of Object.entries(test.headers ?? {})) expect([name, response.headers[name]]).toEqual([name, value])
    }
    expect(comparable(fromNode)).toEqual(comparable(fromRoute))
  })

  it("a request both accept gets the same answer too", async () => {
    const body = request("tools/call", { name: "echo", arguments: { text: "same" } })
    const [fromNode, fromRoute] = [await send(node.url, body), await send(route.url, { ...body })]
    expect(comparable(fromNode)).toEqual(comparable(fromRoute))
    expect(fromNode.status).toBe(200)
  })
})
