/**
 * The one-call server beyond the MCP endpoint: an Effect application served on its `HttpServer`
 * answers the other paths (without one they are the transport's 404), and JSON replies carry
 * `Content-Length` (no chunked encoding).
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import * as Http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as NodeServe from "@snodo/http/NodeServe"
import { errorOf, expectValid, headersFor, post, request, send } from "./support/Raw.ts"
import { Server, start } from "./support/TestServer.ts"

const portOf = async <E>(runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, E>): Promise<number> => {
  const address = (await runtime.runPromise(Effect.service(HttpServer.HttpServer))).address
  if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  return address.port
}

/**
 * Serves `app` on NodeServe (port 0) with the test server for the suite it is called in; the
 * returned function gives the base URL once the suite started.
 */
const servedOnNodeServe = <E>(app: Layer.Layer<never, E, HttpServer.HttpServer>): () => string => {
  const runtime = ManagedRuntime.make(
    app.pipe(Layer.provideMerge(NodeServe.layer({ port: 0 })), Layer.provide(Server.layer))
  )
  let base = ""
  beforeAll(async () => {
    base = `http://127.0.0.1:${await portOf(runtime)}`
  })
  afterAll(() => runtime.dispose())
  return () => base
}

/**
 * A request whose response is read with its raw header list (names as sent, repetitions kept); its
 * request line carries `requestTarget` as is when given (default: the URL's path).
 */
const rawPost = (url: string, body: Record<string, unknown>, requestTarget?: string) =>
  new Promise<{ status: number; rawHeaders: ReadonlyArray<string>; bytes: Buffer }>((resolve, reject) => {
    const target = new URL(url)
    const req = Http.request({
      host: target.hostname,
      port: target.port,
      path: requestTarget ?? target.pathname,
      method: "POST",
      headers: headersFor(body),
      agent: false
    }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders, bytes: Buffer.concat(chunks) }))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end(JSON.stringify(body))
  })

const headerValues = (rawHeaders: ReadonlyArray<string>, name: string): Array<string> => {
  const values: Array<string> = []
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === name) values.push(rawHeaders[i + 1]!)
  }
  return values
}

describe("an Effect application served on NodeServe's HttpServer", () => {
  const routes = Layer.mergeAll(
    HttpRouter.add("GET", "/health", HttpServerResponse.text("ok")),
    HttpRouter.add("POST", "/mcp", HttpServerResponse.text("the router's /mcp"))
  )
  const baseUrl = servedOnNodeServe(HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }))

  it("answers the paths other than the MCP endpoint", async () => {
    const health = await send(`${baseUrl()}/health`, undefined, { method: "GET" })
    expect([health.status, health.text]).toEqual([200, "ok"])
    const health2 = await send(`${baseUrl()}/health?probe=1`, undefined, { method: "GET" })
    expect([health2.status, health2.text]).toEqual([200, "ok"])
  })

  it("paths it has no route for are its own 404, not the transport's", async () => {
    const missing = await send(`${baseUrl()}/nowhere`, undefined, { method: "GET" })
    expect(missing.status).toBe(404)
    expect(missing.text).not.toContain("-32601")
  })

  it("the MCP endpoint still answers MCP (the endpoint comes before the application's routes)", async () => {
    const response = await post(`${baseUrl()}/mcp`, request("tools/call", { name: "echo", arguments: { text: "hi" } }))
    expect(response.status).toBe(200)
    expect(response.messages[0]!["result"]).toMatchObject({ content: [{ type: "text", text: "hi" }] })
    expectValid(response, "tools/call")
    const query = await post(`${baseUrl()}/mcp?x=1`, request("tools/list"))
    expect(query.status).toBe(200)
    expectValid(query, "tools/list")
  })
})

describe("HttpServer.serve on NodeServe's HttpServer", () => {
  const baseUrl = servedOnNodeServe(HttpServer.serve(Effect.succeed(HttpServerResponse.text("fallback"))))

  it("a bare app answers every other path, any method", async () => {
    for (const [method, path] of [["GET", "/"], ["DELETE", "/x/y"], ["POST", "/mcp/deeper"]] as const) {
      const response = await send(`${baseUrl()}${path}`, undefined, { method })
      expect([method, path, response.status, response.text]).toEqual([method, path, 200, "fallback"])
    }
    expect((await post(`${baseUrl()}/mcp`, request("tools/list"))).status).toBe(200)
  })
})

describe("NodeServe without an application", () => {
  let server: Awaited<ReturnType<typeof start>>
  beforeAll(async () => {
    server = await start()
  })
  afterAll(() => server.close())

  it("other paths are 404 with a JSON-RPC -32601 body", async () => {
    const base = server.url.replace(/\/mcp$/, "")
    for (const [method, path] of [["GET", "/"], ["GET", "/health"], ["POST", "/mcp/"], ["POST", "/other"]] as const) {
      const response = await send(`${base}${path}`, path.startsWith("/mcp") || method === "POST" ? request("tools/list") : undefined, { method })
      expect([path, response.status, response.headers["content-type"]]).toEqual([path, 404, "application/json"])
      expect(errorOf(response).code).toBe(-32601)
      expect(response.messages[0]!["id"]).toBeUndefined()
      expectValid(response)
    }
  })
})

describe("request targets", () => {
  let server: Awaited<ReturnType<typeof start>>
  beforeAll(async () => {
    server = await start()
  })
  afterAll(() => server.close())

  /** One tools/list whose request line carries `target` as is. */
  const postTarget = async (target: string) => {
    const reply = await rawPost(server.url, request("tools/list"), target)
    return { status: reply.status, body: JSON.parse(reply.bytes.toString("utf8")) as Record<string, unknown> }
  }

  it("the absolute form of the endpoint's URL reaches the endpoint, with or without a query", async () => {
    for (const target of [server.url, `${server.url}?session=1`]) {
      const answer = await postTarget(target)
      expect([target, answer.status, "result" in answer.body]).toEqual([target, 200, true])
    }
  })

  it("the absolute form of another path is still 404", async () => {
    const answer = await postTarget(server.url.replace(/\/mcp$/, "/other"))
    expect(answer.status).toBe(404)
  })
})

describe("JSON replies of the Node endpoint", () => {
  let server: Awaited<ReturnType<typeof start>>
  beforeAll(async () => {
    server = await start()
  })
  afterAll(() => server.close())

  it("a result carries Content-Length equal to the body's bytes, and no chunked encoding", async () => {
    // Multi-byte text: the length is in bytes, not UTF-16 units.
    const reply = await rawPost(server.url, request("tools/call", { name: "echo", arguments: { text: "héllo wörld ✓ 世界" } }))
    expect(reply.status).toBe(200)
    expect(headerValues(reply.rawHeaders, "content-length")).toEqual([String(reply.bytes.length)])
    expect(headerValues(reply.rawHeaders, "transfer-encoding")).toEqual([])
    expect(reply.bytes.length).toBeGreaterThan(reply.bytes.toString("utf8").length)
    expect(JSON.parse(reply.bytes.toString("utf8"))["result"]).toBeDefined()
  })

  it("a list page, written as its bytes encoded once, carries its Content-Length and the request's id", async () => {
    // A multi-byte string id: the head before the page's bytes is counted in bytes too.
    const first = await rawPost(server.url, { ...request("tools/list"), id: "lïst ✓ 1" })
    const second = await rawPost(server.url, { ...request("tools/list"), id: 7 })
    for (const reply of [first, second]) {
      expect(reply.status).toBe(200)
      expect(headerValues(reply.rawHeaders, "content-length")).toEqual([String(reply.bytes.length)])
      expect(headerValues(reply.rawHeaders, "transfer-encoding")).toEqual([])
    }
    const [one, two] = [first, second].map((reply) => JSON.parse(reply.bytes.toString("utf8")) as Record<string, unknown>)
    expect([one!["id"], two!["id"]]).toEqual(["lïst ✓ 1", 7])
    expect(one!["result"]).toStrictEqual(two!["result"])
    expect((one!["result"] as { readonly tools: ReadonlyArray<unknown> }).tools.length).toBeGreaterThan(0)
    // The bytes are the frame the pipeline encoded: the same text as the id's frame written whole.
    expect(first.bytes.toString("utf8")).toBe(`{"jsonrpc":"2.0","id":"lïst ✓ 1","result":${JSON.stringify(one!["result"])}}`)
  })

  it("so does a refusal and an error answer", async () => {
    const refused = await rawPost(server.url, { jsonrpc: "2.0", id: 1 })
    expect(refused.status).toBe(400)
    expect(headerValues(refused.rawHeaders, "content-length")).toEqual([String(refused.bytes.length)])
    expect(headerValues(refused.rawHeaders, "transfer-encoding")).toEqual([])
    const unknown = await rawPost(server.url, request("tools/call", { name: "no-such-tool", arguments: {} }))
    expect(headerValues(unknown.rawHeaders, "content-length")).toEqual([String(unknown.bytes.length)])
    expect(headerValues(unknown.rawHeaders, "transfer-encoding")).toEqual([])
  })
})
