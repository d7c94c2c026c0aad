/**
 * Request metadata headers against the body: MCP-Protocol-Version, Mcp-Method, Mcp-Name and the
 * `x-mcp-header` parameters, over a real listener, with raw (repeatable) headers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, expectValid, headersFor, post, type RawResponse, request, send } from "./support/Raw.ts"
import { start } from "./support/TestServer.ts"

let server: Awaited<ReturnType<typeof start>>
beforeAll(async () => {
  server = await start()
})
afterAll(() => server.close())

const expectMismatch = (response: RawResponse, header: string, body: string) => {
  expect(response.status).toBe(400)
  expect(errorOf(response)).toMatchObject({ code: -32020, data: { header, body } })
  expectValid(response)
}

const b64 = (text: string) => `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`

describe("standard headers", () => {
  it("MCP-Protocol-Version is required and must match _meta", async () => {
    const body = request("tools/list")
    expectMismatch(await post(server.url, body, { "mcp-protocol-version": undefined }), "MCP-Protocol-Version", "params._meta.io.modelcontextprotocol/protocolVersion")
    const other = await post(server.url, body, { "mcp-protocol-version": "2025-11-25" })
    expectMismatch(other, "MCP-Protocol-Version", "params._meta.io.modelcontextprotocol/protocolVersion")
    expect(other.messages[0]!["id"]).toBe(body.id)
  })

  it("a header naming a version the body lacks defers to admission (-32602)", async () => {
    const response = await post(server.url, { jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: {} } })
    expect(response.status).toBe(400)
    expect(errorOf(response).code).toBe(-32602)
  })

  it("Mcp-Method is required, exact and case-sensitive; header names are not", async () => {
    const body = request("tools/list")
    expectMismatch(await post(server.url, body, { "mcp-method": undefined }), "Mcp-Method", "method")
    expectMismatch(await post(server.url, body, { "mcp-method": "prompts/list" }), "Mcp-Method", "method")
    expectMismatch(await post(server.url, body, { "mcp-method": "TOOLS/LIST" }), "Mcp-Method", "method")
    const upper = await send(server.url, body, {
      rawHeaders: [["Content-Type", "application/json"], ["Accept", "application/json, text/event-stream"], [
        "MCP-PROTOCOL-VERSION",
        "2026-07-28"
      ], ["MCP-METHOD", "tools/list"]]
    })
    expect(upper.status).toBe(200)
  })

  it("Mcp-Name is required for tools/call, prompts/get and resources/read and must match", async () => {
    const call = request("tools/call", { name: "echo", arguments: { text: "a" } })
    expectMismatch(await post(server.url, call, { "mcp-name": undefined }), "Mcp-Name", "params.name")
    expectMismatch(await post(server.url, call, { "mcp-name": "wrong_tool_name" }), "Mcp-Name", "params.name")
    const read = request("resources/read", { uri: "test://x" })
    expectMismatch(await post(server.url, read, { "mcp-name": "test://y" }), "Mcp-Name", "params.uri")
  })

  it("Mcp-Name surrounded by whitespace, or Base64-encoded, is accepted", async () => {
    const call = request("tools/call", { name: "echo", arguments: { text: "a" } })
    expect((await post(server.url, call, { "mcp-name": "  echo\t" })).status).toBe(200)
    expect((await post(server.url, call, { "mcp-name": b64("echo") })).status).toBe(200)
    expectMismatch(await post(server.url, call, { "mcp-name": "=?base64?ZWNobw?=" }), "Mcp-Name", "params.name")
  })

  it("a repeated Mcp-Name is refused", async () => {
    const call = request("tools/call", { name: "echo", arguments: { text: "a" } })
    const pairs = Object.entries(headersFor(call)) as Array<[string, string]>
    const response = await send(server.url, call, { rawHeaders: [...pairs, ["Mcp-Name", "echo"]] })
    expectMismatch(response, "Mcp-Name", "params.name")
  })

  it("a missing name in the body is the runtime's -32602, not a header error", async () => {
    const response = await post(server.url, request("tools/call", { arguments: {} }))
    expect(errorOf(response).code).toBe(-32602)
  })
})

describe("Mcp-Param headers (x-mcp-header)", () => {
  const call = (args: Record<string, unknown>, headers: Record<string, string | undefined>) =>
    post(server.url, request("tools/call", { name: "region", arguments: args }), headers)

  it("matching plain, Base64, integer (numerically) and boolean values are accepted", async () => {
    const ok = await call({ region: "us-west1", shard: 42, dry: true, nested: { zone: "b" } }, {
      "mcp-param-region": "us-west1",
      "mcp-param-shard": "42.0",
      "mcp-param-dry": "true",
      "mcp-param-zone": "b"
    })
    expect(ok.status).toBe(200)
    expect(ok.messages[0]!["result"]).toMatchObject({ structuredContent: { region: "us-west1", shard: 42 } })
    for (const region of ["Hello, 世界", " padded ", "line1\nline2", "=?base64?literal?="]) {
      expect((await call({ region }, { "mcp-param-region": b64(region) })).status).toBe(200)
    }
    expect((await call({ region: "SGVsbG8=" }, { "mcp-param-region": "SGVsbG8=" })).status).toBe(200)
    expect((await call({ region: "=?base64?SGVsbG8=" }, { "mcp-param-region": "=?base64?SGVsbG8=" })).status).toBe(200)
    expect((await call({ region: "x", shard: -7 }, { "mcp-param-region": "x", "mcp-param-shard": "-7" })).status).toBe(200)
  })

  it("a value in the body without its header is refused before the tool runs", async () => {
    expectMismatch(await call({ region: "us" }, {}), "Mcp-Param-Region", "params.arguments.region")
    expectMismatch(
      await call({ region: "us", nested: { zone: "a" } }, { "mcp-param-region": "us" }),
      "Mcp-Param-Zone",
      "params.arguments.nested.zone"
    )
  })

  it("a null or absent value needs no header, and a header without a value is refused", async () => {
    expect((await call({ region: "us", shard: null }, { "mcp-param-region": "us" })).status).not.toBe(400)
    expectMismatch(await call({ region: "us" }, { "mcp-param-region": "us", "mcp-param-dry": "false" }), "Mcp-Param-Dry", "params.arguments.dry")
  })

  it("mismatched, malformed and repeated values are refused", async () => {
    expectMismatch(await call({ region: "us" }, { "mcp-param-region": "eu" }), "Mcp-Param-Region", "params.arguments.region")
    expectMismatch(await call({ region: "Hello" }, { "mcp-param-region": "=?base64?SGVsbG8?=" }), "Mcp-Param-Region", "params.arguments.region")
    expectMismatch(await call({ region: "Hello" }, { "mcp-param-region": "=?base64?SGVs!!!bG8=?=" }), "Mcp-Param-Region", "params.arguments.region")
    expectMismatch(await call({ region: "a", shard: 42 }, { "mcp-param-region": "a", "mcp-param-shard": "42.5" }), "Mcp-Param-Shard", "params.arguments.shard")
    expectMismatch(await call({ region: "a", shard: 42 }, { "mcp-param-region": "a", "mcp-param-shard": "0x2a" }), "Mcp-Param-Shard", "params.arguments.shard")
    expectMismatch(await call({ region: "a", dry: true }, { "mcp-param-region": "a", "mcp-param-dry": "True" }), "Mcp-Param-Dry", "params.arguments.dry")
    const body = request("tools/call", { name: "region", arguments: { region: "us" } })
    const pairs = Object.entries(headersFor(body)) as Array<[string, string]>
    const repeated = await send(server.url, body, { rawHeaders: [...pairs, ["Mcp-Param-Region", "us"], ["mcp-param-region", "us"]] })
    expectMismatch(repeated, "Mcp-Param-Region", "params.arguments.region")
    const latin1 = await send(server.url, body, { rawHeaders: [...pairs, ["Mcp-Param-Region", "\u00e9"]] })
    expectMismatch(latin1, "Mcp-Param-Region", "params.arguments.region")
  })

  it("unknown Mcp-Param headers are ignored", async () => {
    expect((await call({ region: "us" }, { "mcp-param-region": "us", "mcp-param-other": "x" })).status).toBe(200)
    const echo = await post(server.url, request("tools/call", { name: "echo", arguments: { text: "t" } }), { "mcp-param-text": "nope" })
    expect(echo.status).toBe(200)
  })
})
