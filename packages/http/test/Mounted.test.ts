/**
 * The transport mounted as a route of an application's own HttpRouter, behind the application's
 * authentication middleware: the principal it verifies reaches handlers and scopes cancellation;
 * the route applies its own limits without NodeServe.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as McpHttp from "@snodo/http/McpHttp"
import { App as ExampleApp, Authentication } from "../../../examples/02-http-mounted/main.ts"
import { errorOf, eventually, expectValid, post, request, send } from "./support/Raw.ts"
import { Server, stats } from "./support/TestServer.ts"

const listen = async <E>(app: Layer.Layer<never, E, HttpRouter.HttpRouter>) => {
  const runtime = ManagedRuntime.make(
    HttpRouter.serve(app, { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
    )
  )
  const server = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  const address = server.address
  if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  return { base: `http://127.0.0.1:${address.port}`, close: () => runtime.dispose() }
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

describe("the example application", () => {
  let app: Awaited<ReturnType<typeof listen>>
  beforeAll(async () => {
    app = await listen(ExampleApp)
  })
  afterAll(() => app.close())

  it("serves its own routes next to MCP", async () => {
    const health = await send(`${app.base}/health`, undefined, { method: "GET" })
    expect([health.status, health.text]).toEqual([200, "ok"])
  })

  it("its authentication answers before MCP, and the verified principal reaches the handler", async () => {
    const body = request("tools/call", { name: "whoami" })
    expect((await post(`${app.base}/mcp`, body)).status).toBe(401)
    expect((await post(`${app.base}/mcp`, body, bearer("forged"))).status).toBe(401)
    const alice = await post(`${app.base}/mcp`, body, bearer("alice-token"))
    expect(alice.status).toBe(200)
    expect(alice.messages[0]!["result"]).toMatchObject({ content: [{ type: "text", text: "You are alice" }] })
    expectValid(alice, "tools/call")
  })

  it("_meta and arbitrary headers never become the principal", async () => {
    const body = request("tools/call", { name: "whoami" }, { principal: "root", "io.modelcontextprotocol/principal": "root" })
    const response = await post(`${app.base}/mcp`, body, { ...bearer("bob-token"), "x-principal": "root", "x-user": "root" })
    expect(response.messages[0]!["result"]).toMatchObject({ content: [{ text: "You are bob" }] })
  })
})

describe("a route with its own limits", () => {
  let app: Awaited<ReturnType<typeof listen>>
  beforeAll(async () => {
    const routes = Layer.mergeAll(
      McpHttp.layerRoute({ path: "/rpc", maxHeaderBytes: 2048 }).pipe(Layer.provide(Authentication.layer)),
      HttpRouter.add("GET", "/", HttpServerResponse.text("home"))
    ).pipe(Layer.provide(Server.layer))
    app = await listen(routes)
  })
  afterAll(() => app.close())

  it("mounts at the configured path", async () => {
    const response = await post(`${app.base}/rpc`, request("tools/list"), bearer("alice-token"))
    expect(response.status).toBe(200)
    expectValid(response, "tools/list")
  })

  it("refuses a head over its own limit with 431", async () => {
    const response = await post(`${app.base}/rpc`, request("tools/list"), { ...bearer("alice-token"), "x-filler": "a".repeat(4096) })
    expect(response.status).toBe(431)
  })

  it("checks Host on its own (loopback by default)", async () => {
    const response = await post(`${app.base}/rpc`, request("tools/list"), { ...bearer("alice-token"), host: "evil.example.com" })
    expect(response.status).toBe(403)
    expect(errorOf(response).code).toBe(-32600)
  })

  it("honours notifications/cancelled from the same principal only", async () => {
    const before = { ...stats }
    const body = { ...request("tools/call", { name: "slow", arguments: { ms: 400 } }), id: 77 }
    const pending = post(`${app.base}/rpc`, body, bearer("alice-token"))
    await eventually(() => stats.started > before.started)
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 77 } }
    expect((await send(`${app.base}/rpc`, cancel, { headers: bearer("bob-token") })).status).toBe(202)
    const response = await pending
    expect(response.messages[0]!["result"]).toMatchObject({ content: [{ text: "slept" }] })

    const second = { ...request("tools/call", { name: "slow", arguments: { ms: 5000 } }), id: 78 }
    const started = stats.started
    const cancelled = post(`${app.base}/rpc`, second, bearer("alice-token"))
    await eventually(() => stats.started > started)
    const interrupted = stats.interrupted
    await send(`${app.base}/rpc`, { ...cancel, params: { requestId: 78 } }, { headers: bearer("alice-token") })
    expect((await cancelled).messages).toEqual([])
    await eventually(() => stats.interrupted > interrupted)
  })
})

describe("a defect inside the mounted route", () => {
  let app: Awaited<ReturnType<typeof listen>>
  beforeAll(async () => {
    const routes = McpHttp.layerRoute({
      path: "/rpc",
      // An application's policy with a bug: it throws for one host name.
      allowedHosts: (hostname) => {
        if (hostname === "boom.example") throw new Error("policy bug")
        return hostname === "127.0.0.1"
      }
    }).pipe(Layer.provide(Server.layer))
    app = await listen(routes)
  })
  afterAll(() => app.close())

  it("is answered like the Node endpoint answers it: 500, a -32603 that leaks nothing, the connection closed", async () => {
    const response = await post(`${app.base}/rpc`, request("tools/list"), { host: "boom.example" })
    expect(response.status).toBe(500)
    expect(response.headers["connection"]).toBe("close")
    expect(errorOf(response)).toEqual({ code: -32603, message: "Internal error" })
    expect(response.text).not.toContain("policy bug")
    expectValid(response)
    expect((await post(`${app.base}/rpc`, request("tools/list"))).status).toBe(200)
  })
})
