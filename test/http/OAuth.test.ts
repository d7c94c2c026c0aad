/**
 * The MCP authorization spec end to end: the everything server with OAuth enabled (NodeServe,
 * `--oauth-issuer`), a real authorization server on loopback (`oauth2-mock-server`, see
 * `test/support/AuthorizationServer.ts`), and the official client 2.4.0 with its
 * `ClientCredentialsProvider`: 401 → Protected Resource Metadata → authorization server metadata →
 * token (with the RFC 8707 resource) → the call succeeds. Tokens for another audience, expired,
 * from another issuer, tampered with, or without the scope a tool needs are refused with the
 * spec's status and challenge, before any handler runs. Streams end when their token expires.
 */
import { Client, ClientCredentialsProvider, InsufficientScopeError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Effect, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import * as Net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as OAuth from "../../examples/everything/oauth.ts"
import { errorOf, expectValid, post, request, send } from "../../packages/http/test/support/Raw.ts"
import * as AuthorizationServer from "../support/AuthorizationServer.ts"
import { freePort } from "../support/FreePort.ts"

const clients = {
  "snodo-e2e": { secret: "s3cret", scopes: ["mcp", "mcp:admin"] },
  reader: { secret: "r3ader", scopes: ["mcp"] }
}

let as: AuthorizationServer.TestAuthorizationServer
let other: AuthorizationServer.TestAuthorizationServer
let runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>
let origin = ""
let url = ""
let metadataUrl = ""

beforeAll(async () => {
  as = await AuthorizationServer.start(clients)
  other = await AuthorizationServer.start(clients)
  const port = await freePort()
  origin = `http://127.0.0.1:${port}`
  url = `${origin}/mcp`
  metadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`
  runtime = ManagedRuntime.make(OAuth.layer({ issuer: as.issuer, port, leeway: 0 }))
  await runtime.runPromise(Effect.service(HttpServer.HttpServer))
})

afterAll(async () => {
  await runtime?.dispose()
  await as?.stop()
  await other?.stop()
})

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const call = (name: string, args: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) =>
  request("tools/call", { name, arguments: args }, meta)

const connect = async (clientId: keyof typeof clients, options: { readonly onInsufficientScope?: "throw" } = {}) => {
  const seen: Array<string> = []
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init)
    const target = new URL(input instanceof Request ? input.url : String(input))
    seen.push(`${init?.method ?? "GET"} ${target.origin === origin ? "" : "AS "}${target.pathname} ${response.status}`)
    return response
  }
  const provider = new ClientCredentialsProvider({ clientId, clientSecret: clients[clientId].secret, expectedIssuer: as.issuer })
  const client = new Client({ name: "oauth-e2e", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider, fetch: recording, ...options }))
  return { client, seen }
}

describe("OAuth 2.1 resource server: the official client", () => {
  it("401 → metadata discovery → token for this resource → tools/call succeeds", async () => {
    const { client, seen } = await connect("snodo-e2e")
    try {
      expect((await client.callTool({ name: "add", arguments: { a: 2, b: 40 } })).structuredContent).toEqual({ sum: 42 })
      // The first request was refused; then the resource's metadata, the issuer's metadata, one token.
      expect(seen.slice(0, 5)).toEqual([
        "POST /mcp 401",
        "GET /.well-known/oauth-protected-resource/mcp 200",
        "GET AS /.well-known/oauth-authorization-server 404",
        "GET AS /.well-known/openid-configuration 200",
        "POST AS /token 200"
      ])
      expect(seen.slice(5).every((line) => line.startsWith("POST /mcp 2"))).toBe(true)
    } finally {
      await client.close()
    }
  })

  it("a call needing more scope is challenged (403); the client steps up and succeeds", async () => {
    const { client, seen } = await connect("snodo-e2e")
    try {
      const result = await client.callTool({ name: "test_trigger_tool_change", arguments: {} })
      expect(result.content).toEqual([{ type: "text", text: "Mutation triggered" }])
      expect(seen).toContain("POST /mcp 403")
      expect(seen.filter((line) => line === "POST AS /token 200")).toHaveLength(2)
    } finally {
      await client.close()
    }
  })

  it("a client that cannot get the scope sees the challenge's scope", async () => {
    const { client } = await connect("reader", { onInsufficientScope: "throw" })
    try {
      expect((await client.callTool({ name: "echo", arguments: { text: "hi" } })).structuredContent).toEqual({ text: "hi" })
      const refused = await client.callTool({ name: "test_trigger_tool_change", arguments: {} }).catch((error: unknown) => error)
      expect(refused).toBeInstanceOf(InsufficientScopeError)
      expect((refused as InsufficientScopeError).requiredScope).toBe("mcp:admin")
    } finally {
      await client.close()
    }
  })
})

describe("OAuth 2.1 resource server: refusals on the wire", () => {
  const tokenFor = (scope = "mcp") => as.token("snodo-e2e", { resource: url, scope })

  it("serves its Protected Resource Metadata at both well-known URIs", async () => {
    const expected = {
      resource: url,
      authorization_servers: [as.issuer],
      scopes_supported: ["mcp"],
      bearer_methods_supported: ["header"],
      resource_name: "snodo everything"
    }
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const response = await fetch(`${origin}${path}`)
      expect([path, response.status, response.headers.get("content-type")]).toEqual([path, 200, "application/json"])
      expect(await response.json()).toEqual(expected)
    }
  })

  it("no token: 401 with the metadata URL and the scope to ask for", async () => {
    const response = await post(url, request("tools/list"))
    expect(response.status).toBe(401)
    expect(response.headers["www-authenticate"]).toBe(`Bearer resource_metadata="${metadataUrl}", scope="mcp"`)
    expect(errorOf(response)).toMatchObject({ code: -32001 })
    expectValid(response)
  })

  it("a token in the query string is not read", async () => {
    const token = await tokenFor()
    const body = request("tools/list")
    const response = await send(url, body, { path: `/mcp?access_token=${token}` })
    expect(response.status).toBe(401)
    expect(response.headers["www-authenticate"]).not.toContain("error=")
  })

  const invalid = (description: string) =>
    `Bearer error="invalid_token", resource_metadata="${metadataUrl}", error_description="${description}"`

  it("a token issued for another resource: 401 invalid_token (no passthrough)", async () => {
    const token = await as.token("snodo-e2e", { resource: "http://127.0.0.1:1/other-mcp", scope: "mcp" })
    const response = await post(url, request("tools/list"), bearer(token))
    expect(response.status).toBe(401)
    expect(response.headers["www-authenticate"]).toBe(invalid("The access token was not issued for this resource"))
    const unbound = await as.token("snodo-e2e", { scope: "mcp" }) // no resource at all: no audience
    expect((await post(url, request("tools/list"), bearer(unbound))).headers["www-authenticate"]).toBe(
      invalid("The access token was not issued for this resource")
    )
  })

  it("an expired token: 401 invalid_token", async () => {
    const token = await as.mint({ aud: url, scope: "mcp" }, { expiresIn: -60 })
    const response = await post(url, request("tools/list"), bearer(token))
    expect(response.status).toBe(401)
    expect(response.headers["www-authenticate"]).toBe(invalid("The access token expired"))
  })

  it("a token of another issuer: 401 invalid_token, whether signed by its keys or claiming its name", async () => {
    const foreign = await other.mint({ aud: url, scope: "mcp" })
    const renamed = await as.mint({ aud: url, scope: "mcp", iss: other.issuer })
    for (const token of [foreign, renamed]) {
      const response = await post(url, request("tools/list"), bearer(token))
      expect(response.status).toBe(401)
      expect(response.headers["www-authenticate"]).toBe(invalid("The access token is not valid"))
    }
  })

  it("a tampered token: 401 invalid_token", async () => {
    const [header, payload, signature] = (await tokenFor()).split(".") as [string, string, string]
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>
    const elevated = Buffer.from(JSON.stringify({ ...claims, scope: "mcp mcp:admin" })).toString("base64url")
    const flipped = `${signature.slice(0, -2)}${signature.endsWith("AA") ? "BB" : "AA"}`
    for (const token of [`${header}.${elevated}.${signature}`, `${header}.${payload}.${flipped}`, "not-a-jwt"]) {
      const response = await post(url, request("tools/list"), bearer(token))
      expect([token.slice(-8), response.status]).toEqual([token.slice(-8), 401])
      expect(response.headers["www-authenticate"]).toBe(invalid("The access token is not valid"))
    }
  })

  it("a token without the tool's scope: 403 insufficient_scope with the scope, and the tool never runs", async () => {
    const reader = await as.token("reader", { resource: url, scope: "mcp mcp:admin" }) // the server grants only mcp
    const refused = await post(url, call("test_trigger_tool_change"), bearer(reader))
    expect(refused.status).toBe(403)
    expect(refused.headers["www-authenticate"]).toBe(
      `Bearer error="insufficient_scope", scope="mcp:admin", resource_metadata="${metadataUrl}", error_description="The access token lacks a scope this operation needs"`
    )
    expect(errorOf(refused)).toEqual({
      code: -32003,
      message: "Insufficient scope: this operation needs mcp:admin",
      data: { error: "insufficient_scope", scope: "mcp:admin" }
    })
    expectValid(refused, "tools/call")
    // A token with no scope of this server: the sleep handler is never entered.
    const admin = await tokenFor("mcp mcp:admin")
    const statsOf = async () => (await post(url, call("sleep_stats"), bearer(admin))).messages[0]!["result"] as { structuredContent: { started: number } }
    const before = (await statsOf()).structuredContent.started
    const none = await as.token("snodo-e2e", { resource: url })
    expect((await post(url, call("sleep", { ms: 1 }), bearer(none))).status).toBe(403)
    expect((await statsOf()).structuredContent.started).toBe(before)
  })

  it("Expect: 100-continue without a token: 401, no 100 Continue, and the connection closes", async () => {
    const port = Number(new URL(url).port)
    const head = [
      "POST /mcp HTTP/1.1",
      `Host: 127.0.0.1:${port}`,
      "Expect: 100-continue",
      "Content-Type: application/json",
      "Accept: application/json, text/event-stream",
      "Content-Length: 20",
      "",
      ""
    ].join("\r\n")
    const { text, closed } = await new Promise<{ text: string; closed: boolean }>((resolve) => {
      const socket = Net.connect(port, "127.0.0.1", () => socket.write(head))
      let received = ""
      const timer = setTimeout(() => {
        socket.destroy()
        resolve({ text: received, closed: false })
      }, 3000)
      socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")))
      socket.on("error", () => undefined)
      socket.on("end", () => {
        clearTimeout(timer)
        socket.destroy()
        resolve({ text: received, closed: true })
      })
    })
    expect(text.slice(0, 12)).toBe("HTTP/1.1 401")
    expect(text).not.toContain("100 Continue")
    expect(text.toLowerCase()).toContain(`www-authenticate: bearer resource_metadata="${metadataUrl}"`)
    expect(closed).toBe(true)
  })
})

describe("OAuth 2.1 resource server: token lifetime and long responses", () => {
  const shortLived = () => as.mint({ aud: url, scope: "mcp mcp:admin" }, { expiresIn: 2 })

  it("a listen stream ends with a terminal error when its token expires", async () => {
    const token = await shortLived()
    const body = request("subscriptions/listen", { notifications: { toolsListChanged: true } })
    const response = await send(url, body, { headers: bearer(token) })
    expect(response.status).toBe(200)
    expect(response.messages[0]).toMatchObject({ method: "notifications/subscriptions/acknowledged" })
    expect(response.messages.at(-1)).toEqual({
      jsonrpc: "2.0",
      id: body.id,
      error: { code: -32001, message: "Unauthorized: the access token expired" }
    })
    expectValid(response, "subscriptions/listen")
  })

  it("an SSE response ends with a terminal error when its token expires, and the handler is interrupted", async () => {
    const admin = await as.token("snodo-e2e", { resource: url, scope: "mcp" })
    const statsOf = async () =>
      ((await post(url, call("sleep_stats"), bearer(admin))).messages[0]!["result"] as { structuredContent: { interrupted: number } })
        .structuredContent.interrupted
    const before = await statsOf()
    const body = call("sleep", { ms: 20_000 }, { progressToken: "p" })
    const response = await send(url, body, { headers: bearer(await shortLived()) })
    expect(response.status).toBe(200)
    expect(response.headers["content-type"]).toBe("text/event-stream")
    expect(response.messages[0]).toMatchObject({ method: "notifications/progress" })
    expect(response.messages.at(-1)).toEqual({
      jsonrpc: "2.0",
      id: body.id,
      error: { code: -32001, message: "Unauthorized: the access token expired" }
    })
    await expect.poll(statsOf, { timeout: 3000 }).toBe(before + 1)
  })

  it("a plain response still pending when its token expires is answered 401", async () => {
    const body = call("sleep", { ms: 20_000 })
    const response = await send(url, body, { headers: bearer(await shortLived()) })
    expect(response.status).toBe(401)
    expect(response.headers["www-authenticate"]).toBe(invalid401Expired())
    expect(errorOf(response)).toEqual({ code: -32001, message: "Unauthorized: the access token expired" })
  })
})

const invalid401Expired = () => `Bearer error="invalid_token", resource_metadata="${metadataUrl}", error_description="The access token expired"`

describe("OAuth 2.1 resource server: principal ids (issue 29, defect 6)", () => {
  /** Starts a 1.5 s `sleep` as `caller`, posts `notifications/cancelled` for it as `canceller`: was it cancelled? */
  const cancelledBy = async (caller: string, canceller: string) => {
    const body = call("sleep", { ms: 1500 })
    const running = post(url, body, bearer(caller))
    await new Promise((resolve) => setTimeout(resolve, 300))
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: body.id } }
    expect((await post(url, cancel, bearer(canceller))).status).toBe(202)
    const response = await running
    return response.messages.length === 0
  }

  it("a client named like a user is not that user: it cannot cancel her calls", async () => {
    const user = await as.mint({ aud: url, scope: "mcp", sub: "alice", client_id: "web-app" })
    // What a client-credentials grant issues to a client registered as `alice` (sub and client_id alike).
    const client = await as.mint({ aud: url, scope: "mcp", sub: "alice", client_id: "alice" })
    const noSub = await as.mint({ aud: url, scope: "mcp", sub: undefined, client_id: "alice" })
    expect(await cancelledBy(user, client)).toBe(false)
    expect(await cancelledBy(user, noSub)).toBe(false)
    // The same principal still cancels its own.
    expect(await cancelledBy(user, await as.mint({ aud: url, scope: "mcp", sub: "alice", client_id: "web-app" }))).toBe(true)
  })

  it("a token whose sub is `anonymous` is not the unauthenticated principal: it is an authenticated one", async () => {
    // Posted cancels of the anonymous principal reach nothing; a token's own principal cancels its calls.
    const token = await as.mint({ aud: url, scope: "mcp", sub: "anonymous", client_id: "web-app" })
    expect(await cancelledBy(token, token)).toBe(true)
  })
})
