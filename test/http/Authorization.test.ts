/**
 * Authorization through the real HTTP transport: three principals with HS256 tokens made by jose
 * in the test, verified by the example application's own middleware, each seeing a different
 * catalog; guessed calls keep the application's refusal and are audited; cursors don't cross
 * principals. The official client lists and calls as each principal.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import type { Authorization } from "@snodo/core"
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { SignJWT } from "jose"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { app } from "../../examples/05-authorization/app.ts"
import { errorOf, expectValid, post, request } from "../../packages/http/test/support/Raw.ts"

const secret = randomBytes(32)
const audit: Array<Authorization.AuditEvent> = []
const tokens: Record<string, string> = {}
let base = ""
let dispose: () => Promise<void>

const sign = (sub: string, role: string, key: Uint8Array = secret) =>
  new SignJWT({ role }).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setExpirationTime("5m").sign(key)

beforeAll(async () => {
  for (const [sub, role] of [["ada", "admin"], ["ann", "analyst"], ["gus", "guest"]] as const) tokens[role] = await sign(sub, role)
  const runtime = ManagedRuntime.make(
    HttpRouter.serve(app(secret, (event) => Effect.sync(() => void audit.push(event))), { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
    )
  )
  const server = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  if (server.address._tag === "UnixPathAddress") throw new Error("expected TCP")
  base = `http://127.0.0.1:${server.address.port}/mcp`
  dispose = () => runtime.dispose()
})

afterAll(() => dispose())

const as = (role: string) => ({ authorization: `Bearer ${tokens[role]}` })

const listAll = async (role: string) => {
  const names: Array<string> = []
  let cursor: string | undefined
  do {
    const response = await post(base, request("tools/list", cursor === undefined ? {} : { cursor }), as(role))
    expectValid(response, "tools/list")
    const result = response.messages[0]!["result"] as { tools: Array<{ name: string }>; nextCursor?: string }
    names.push(...result.tools.map((tool) => tool.name))
    cursor = result.nextCursor
  } while (cursor !== undefined)
  return names
}

describe("authorization over HTTP", () => {
  it("refuses requests without a valid token before MCP", async () => {
    expect((await post(base, request("tools/list"))).status).toBe(401)
    const forged = await sign("mallory", "admin", randomBytes(32))
    expect((await post(base, request("tools/list"), { authorization: `Bearer ${forged}` })).status).toBe(401)
  })

  it("each principal sees its own catalog, paged", async () => {
    expect(await listAll("admin")).toEqual(["public_status", "report_daily", "report_weekly", "delete_records"])
    expect(await listAll("analyst")).toEqual(["public_status", "report_daily", "report_weekly"])
    expect(await listAll("guest")).toEqual(["public_status"])
  })

  it("a cursor does not cross principals", async () => {
    const first = await post(base, request("tools/list"), as("admin"))
    const cursor = (first.messages[0]!["result"] as { nextCursor: string }).nextCursor
    const crossed = await post(base, request("tools/list", { cursor }), as("analyst"))
    expect(crossed.status).toBe(400)
    expect(errorOf(crossed)).toMatchObject({ code: -32602, message: "Invalid or expired cursor" })
  })

  it("a guessed call keeps the application's refusal (in a 200), and is audited without arguments", async () => {
    audit.length = 0
    const refused = await post(base, request("tools/call", { name: "delete_records", arguments: { before: "2026-01-01-secret" } }), as("analyst"))
    expect(refused.status).toBe(200)
    expect(errorOf(refused)).toEqual({ code: -32001, message: "Forbidden: analysts cannot delete records", data: { required: "admin" } })
    expectValid(refused, "tools/call")
    expect(audit).toEqual([{
      phase: "invocation",
      outcome: "refused",
      method: "tools/call",
      component: { kind: "tool", name: "delete_records" },
      principal: "ann"
    }])
    expect(JSON.stringify(audit)).not.toContain("secret")
  })

  it("concealed components answer exactly like missing ones", async () => {
    const concealed = await post(base, request("tools/call", { name: "report_daily", arguments: { day: "x" } }), as("guest"))
    const missing = await post(base, request("tools/call", { name: "no_such_tool", arguments: {} }), as("guest"))
    expect([concealed.status, errorOf(concealed).code]).toEqual([missing.status, errorOf(missing).code])
    expect(errorOf(concealed).message).toBe("Unknown tool: report_daily")
  })

  it("the official client lists and calls as each principal", async () => {
    const connect = async (role: string) => {
      const client = new Client({ name: "authz-e2e", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
      await client.connect(new StreamableHTTPClientTransport(new URL(base), { requestInit: { headers: as(role) } }))
      return client
    }
    const admin = await connect("admin")
    const guest = await connect("guest")
    try {
      expect((await admin.listTools()).tools).toHaveLength(4)
      expect((await guest.listTools()).tools.map((tool) => tool.name)).toEqual(["public_status"])
      expect((await admin.callTool({ name: "delete_records", arguments: { before: "2020" } })).content).toEqual([{ type: "text", text: "deleted before 2020" }])
      const refused = await guest.callTool({ name: "delete_records", arguments: { before: "2020" } }).catch((error: unknown) => error)
      expect(refused).toBeInstanceOf(ProtocolError)
      expect((refused as ProtocolError).code).toBe(-32602)
    } finally {
      await admin.close()
      await guest.close()
    }
  })
})
