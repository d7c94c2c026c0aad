/**
 * The transport's statuses over a real listener on port 0: JSON answers and their status mapping,
 * SSE switching, notifications, refusals before the body, no sessions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, expectValid, headersFor, post, request, send } from "./support/Raw.ts"
import { start } from "./support/TestServer.ts"

let server: Awaited<ReturnType<typeof start>>
beforeAll(async () => {
  server = await start()
})
afterAll(() => server.close())

describe("answers", () => {
  it("a tools/call as application/json, 200, no session id", async () => {
    const response = await post(server.url, request("tools/call", { name: "echo", arguments: { text: "hi" } }))
    expect(response.status).toBe(200)
    expect(response.headers["content-type"]).toBe("application/json")
    expect(response.headers["mcp-session-id"]).toBeUndefined()
    expect(response.messages).toHaveLength(1)
    expect(response.messages[0]!["result"]).toMatchObject({ content: [{ type: "text", text: "hi" }], resultType: "complete" })
    expectValid(response, "tools/call")
  })

  it("progress switches the response to a request-scoped SSE stream ending with the response", async () => {
    const body = request("tools/call", { name: "progress", arguments: { steps: 3 } }, { progressToken: "tok" })
    const response = await post(server.url, body)
    expect(response.status).toBe(200)
    expect(response.headers["content-type"]).toBe("text/event-stream")
    expect(response.headers["x-accel-buffering"]).toBe("no")
    expect(response.messages.map((m) => m["method"] ?? "response")).toEqual([
      "notifications/progress",
      "notifications/progress",
      "notifications/progress",
      "response"
    ])
    expect(response.messages.map((m) => (m["params"] as Record<string, unknown> | undefined)?.["progress"])).toEqual([1, 2, 3, undefined])
    expect(response.messages[3]!["id"]).toBe(body.id)
    expect(response.messages.every((m) => !("id" in m) || m["id"] === body.id)).toBe(true)
    expectValid(response, "tools/call")
  })

  it("an unpaced burst of 100 progress reports all precede the response", async () => {
    const response = await post(server.url, request("tools/call", { name: "progress", arguments: { steps: 100 } }, { progressToken: 7 }))
    const progress = response.messages.filter((m) => m["method"] === "notifications/progress")
    expect(progress.length).toBeGreaterThan(0)
    expect(response.messages.at(-1)!["result"]).toBeDefined()
    expectValid(response, "tools/call")
  })

  it("a progress token alone does not open a stream when nothing is reported", async () => {
    const response = await post(server.url, request("tools/call", { name: "echo", arguments: { text: "x" } }, { progressToken: "t" }))
    expect(response.headers["content-type"]).toBe("application/json")
  })

  it("log messages at the requested level arrive on the stream", async () => {
    const response = await post(server.url, request("tools/call", { name: "log" }, { "io.modelcontextprotocol/logLevel": "debug" }))
    expect(response.headers["content-type"]).toBe("text/event-stream")
    expect(response.messages[0]).toMatchObject({ method: "notifications/message", params: { level: "info", logger: "test" } })
    expectValid(response, "tools/call")
  })

  it("maps JSON-RPC errors to HTTP statuses", async () => {
    const cases: ReadonlyArray<readonly [Record<string, unknown>, number, number]> = [
      [request("no/such/method"), 404, -32601],
      [request("tools/call", { name: "nope" }), 400, -32602],
      [request("tools/call", { name: "boom" }), 500, -32603],
      [request("tools/call", { name: "quota" }), 200, -32001]
    ]
    for (const [body, status, code] of cases) {
      const response = await post(server.url, body)
      expect([body["method"], response.status]).toEqual([body["method"], status])
      expect(errorOf(response).code).toBe(code)
      expect(response.messages[0]!["id"]).toBe(body["id"])
      expectValid(response)
    }
    const boom = await post(server.url, request("tools/call", { name: "boom" }))
    expect(boom.text).not.toContain("secret detail")
  })

  it("an unsupported version named by header and body is 400 -32022", async () => {
    const body = request("tools/list", {}, { "io.modelcontextprotocol/protocolVersion": "v999.0.0" })
    const response = await post(server.url, body, { "mcp-protocol-version": "v999.0.0" })
    expect(response.status).toBe(400)
    expect(errorOf(response)).toMatchObject({ code: -32022, data: { requested: "v999.0.0", supported: ["2026-07-28"] } })
    expectValid(response)
  })

  it("missing _meta is 400 -32602, even with the headers right", async () => {
    const response = await post(server.url, { jsonrpc: "2.0", id: 9, method: "tools/list", params: {} })
    expect(response.status).toBe(400)
    expect(errorOf(response).code).toBe(-32602)
  })
})

describe("bodies", () => {
  it("a notification is 202 with no body", async () => {
    const response = await send(server.url, { jsonrpc: "2.0", method: "notifications/initialized" })
    expect(response.status).toBe(202)
    expect(response.text).toBe("")
  })

  it("malformed JSON is 400 -32700 without an id", async () => {
    const response = await send(server.url, '{"jsonrpc":"2.0","id":1,"method":"tools/list",', { headers: { "mcp-method": "tools/list" } })
    expect(response.status).toBe(400)
    expect(errorOf(response).code).toBe(-32700)
    expect("id" in response.messages[0]!).toBe(false)
    expectValid(response)
  })

  it("duplicate keys are a parse error", async () => {
    const response = await send(server.url, '{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}')
    expect(response.status).toBe(400)
    expect(errorOf(response).code).toBe(-32700)
  })

  it("invalid UTF-8 is 400 -32700", async () => {
    const response = await send(server.url, Buffer.from([0x7b, 0xff, 0x7d]).toString("latin1"))
    expect(response.status).toBe(400)
    expect(errorOf(response).code).toBe(-32700)
  })

  it("a batch is 400 -32600", async () => {
    const response = await send(server.url, JSON.stringify([request("tools/list")]))
    expect(response.status).toBe(400)
    expect(errorOf(response).code).toBe(-32600)
    expectValid(response)
  })

  it("a JSON-RPC response object is refused with 400", async () => {
    const response = await send(server.url, { jsonrpc: "2.0", id: 1, result: {} })
    expect(response.status).toBe(400)
    expect(errorOf(response).code).toBe(-32600)
  })

  it("an invalid notification is refused with 400", async () => {
    const response = await send(server.url, { jsonrpc: "2.0", method: "notifications/x", params: [1] })
    expect(response.status).toBe(400)
  })
})

describe("refusals before the body", () => {
  it("GET and DELETE are 405 with Allow: POST", async () => {
    for (const method of ["GET", "DELETE", "PUT"]) {
      const response = await send(server.url, undefined, { method, headers: { accept: "text/event-stream" } })
      expect(response.status).toBe(405)
      expect(response.headers["allow"]).toBe("POST")
    }
  })

  it("a Content-Type other than JSON is 415", async () => {
    const body = request("tools/list")
    for (const contentType of ["text/plain", "application/json; charset=latin1", undefined]) {
      const response = await post(server.url, body, { "content-type": contentType })
      expect(response.status).toBe(415)
    }
    expect((await post(server.url, body, { "content-type": "application/json; charset=utf-8" })).status).toBe(200)
  })

  it("an Accept without both JSON and SSE is 406; a wildcard or none is fine", async () => {
    const body = request("tools/list")
    expect((await post(server.url, body, { accept: "application/json" })).status).toBe(406)
    expect((await post(server.url, body, { accept: "text/event-stream" })).status).toBe(406)
    expect((await post(server.url, body, { accept: "application/json, text/event-stream;q=0" })).status).toBe(406)
    expect((await post(server.url, body, { accept: "*/*" })).status).toBe(200)
    expect((await post(server.url, body, { accept: "text/event-stream, application/json" })).status).toBe(200)
    expect((await post(server.url, body, { accept: undefined })).status).toBe(200)
  })

  it("a foreign Origin is 403; loopback origins are accepted", async () => {
    const body = request("tools/list")
    const evil = await post(server.url, body, { origin: "http://evil.example.com" })
    expect(evil.status).toBe(403)
    expect(errorOf(evil).code).toBe(-32600)
    expectValid(evil)
    expect((await post(server.url, body, { origin: "null" })).status).toBe(403)
    for (const origin of [`http://localhost:${server.port}`, "http://127.0.0.1:5173", "https://[::1]"]) {
      expect((await post(server.url, body, { origin })).status).toBe(200)
    }
  })

  it("a foreign Host (DNS rebinding) is 403; loopback hosts are accepted", async () => {
    const body = request("tools/list")
    expect((await post(server.url, body, { host: "evil.example.com" })).status).toBe(403)
    expect((await post(server.url, body, { host: `evil.example.com:${server.port}` })).status).toBe(403)
    for (const host of [`localhost:${server.port}`, "127.0.0.1", `[::1]:${server.port}`]) {
      expect((await post(server.url, body, { host })).status).toBe(200)
    }
  })

  it("another path is 404", async () => {
    const response = await send(server.url, request("tools/list"), { path: "/other" })
    expect(response.status).toBe(404)
  })

  it("ignores Mcp-Session-Id and Last-Event-ID, and never issues a session", async () => {
    const body = request("tools/list")
    const response = await post(server.url, body, { "mcp-session-id": "abc", "last-event-id": "3" })
    expect(response.status).toBe(200)
    expect(response.headers["mcp-session-id"]).toBeUndefined()
  })

  it("headers derived for a body are what the official client sends", () => {
    expect(headersFor(request("tools/call", { name: "echo" }))["mcp-name"]).toBe("echo")
  })
})
