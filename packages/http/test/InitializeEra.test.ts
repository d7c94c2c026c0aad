/**
 * The initialize era (2025-11-25) over Streamable HTTP, on the raw wire: which era a message
 * belongs to, the sessionless default, sessions (issued, required, bound to their principal,
 * ended by DELETE or idleness, capped), the session's GET stream, server-to-client requests and
 * their POSTed answers, and the 2026-07-28 path left exactly as it was. Every message written
 * under 2025-11-25 is checked against that revision's schema.json.
 */
import { Content, Input, McpLog, McpServer, Resource, SubscriptionHub, Tool } from "@snodo/core"
import * as NodeServe from "@snodo/http/NodeServe"
import { Effect, Schema } from "effect"
import * as Http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { validateServerMessage2025 } from "../../../test/support/OfficialSchema2025.ts"
import { base, initializeBody, legacy, postLegacy, type Served, serveEra, sessionHeaders } from "./support/EraServer.ts"
import { errorOf, eventually, post, type RawResponse, request, send } from "./support/Raw.ts"

const NameForm = Input.form({
  message: "Name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
})

const ask = Tool.make("ask", { input: Schema.Struct({}) }, () =>
  Effect.map(Input.elicit("name", NameForm), (answer) => answer.action === "accept" ? `Hi ${answer.content.name}` : answer.action))
const echo = Tool.make("echo", { input: Schema.Struct({ text: Schema.String }) }, ({ text }) => Effect.succeed(text))
const log = Tool.make("log", { input: Schema.Struct({}) }, () => McpLog.log("info", "a line").pipe(Effect.as("logged")))
const readme = Resource.make({ uri: "file:///readme", name: "readme" }, () => Effect.succeed(Content.textContents("file:///readme", "hi")))

/** Callers name themselves in `x-user` (anonymous without it). */

const serve = (options: NodeServe.ServeOptions, dialects: ReadonlyArray<"2026-07-28" | "2025-11-25"> = ["2026-07-28", "2025-11-25"]) =>
  serveEra(McpServer.make({ name: "era-http", version: "1.0.0", logging: true, dialects }).add(ask, echo, log, readme), options)

/** Validates each message of a response under 2025-11-25. */
const expectValid2025 = (response: RawResponse, requestMethod?: string) => {
  for (const message of response.messages) {
    const answers = !("method" in message)
    expect(validateServerMessage2025(message, answers && requestMethod !== undefined ? { requestMethod } : {})).toEqual([])
  }
}

const initialize = async (url: string, headers: Record<string, string> = {}) => {
  const response = await postLegacy(url, initializeBody(), headers)
  expect(response.status).toBe(200)
  expectValid2025(response, "initialize")
  const session = response.headers["mcp-session-id"]
  return { response, session: typeof session === "string" ? session : undefined }
}

/** A GET stream of a session: its status and the events received so far. */
const openStream = (url: string, headers: Record<string, string>) =>
  new Promise<{ readonly status: number; readonly events: Array<Record<string, unknown>>; readonly close: () => void }>((resolve, reject) => {
    const target = new URL(url)
    const events: Array<Record<string, unknown>> = []
    const req = Http.request({ host: target.hostname, port: target.port, path: target.pathname, method: "GET", headers, agent: false }, (res) => {
      let buffer = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        buffer += chunk
        let end = buffer.indexOf("\n\n")
        while (end >= 0) {
          const data = buffer.slice(0, end).split("\n").find((line) => line.startsWith("data: "))
          if (data !== undefined) events.push(JSON.parse(data.slice(6)) as Record<string, unknown>)
          buffer = buffer.slice(end + 2)
          end = buffer.indexOf("\n\n")
        }
      })
      resolve({ status: res.statusCode ?? 0, events, close: () => req.destroy() })
    })
    req.on("error", (error) => (error as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(error))
    req.end()
  })

describe("sessionless (the default)", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({})
  })
  afterAll(() => served.runtime.dispose())

  it("initialize issues no session and advertises nothing a session would be needed for", async () => {
    const { response, session } = await initialize(served.url)
    expect(session).toBeUndefined()
    expect(response.messages[0]?.["result"]).toMatchObject({ protocolVersion: "2025-11-25", capabilities: { tools: {}, resources: {} } })
    expect(JSON.stringify(response.messages[0])).not.toMatch(/logging|listChanged|subscribe|extensions/)
  })

  it("later requests stand on MCP-Protocol-Version alone, and are answered in the era's shape", async () => {
    const echoed = await postLegacy(served.url, legacy("tools/call", { name: "echo", arguments: { text: "hi" } }), { "mcp-protocol-version": "2025-11-25" })
    expect(echoed.status).toBe(200)
    expect(echoed.messages[0]?.["result"]).toEqual({ content: [{ type: "text", text: "hi" }] })
    expectValid2025(echoed, "tools/call")
    const unknown = await postLegacy(served.url, legacy("tools/call", { name: "nope" }), { "mcp-protocol-version": "2025-11-25" })
    expect([unknown.status, errorOf(unknown).code]).toEqual([200, -32602])
  })

  it("refuses what needs a session: setLevel, subscribe, asking the client, GET, DELETE, client responses", async () => {
    const headers = { "mcp-protocol-version": "2025-11-25" }
    const setLevel = await postLegacy(served.url, legacy("logging/setLevel", { level: "info" }), headers)
    expect(errorOf(setLevel)).toEqual({ code: -32601, message: "Method not found: logging/setLevel needs a session (this server runs sessionless)" })
    const asked = await postLegacy(served.url, legacy("tools/call", { name: "ask", arguments: {} }), headers)
    expect(errorOf(asked).code).toBe(-32603)
    expect(errorOf(asked).message).toContain("need a session")
    expect(errorOf(asked).message).toContain("`sessions: true`")
    expect((await send(served.url, undefined, { method: "GET", headers: { accept: "text/event-stream" } })).status).toBe(405)
    expect((await send(served.url, undefined, { method: "DELETE" })).status).toBe(405)
    const answer = await postLegacy(served.url, { jsonrpc: "2.0", id: "snodo-1", result: {} }, headers)
    expect(answer.status).toBe(400)
    const initialized = await postLegacy(served.url, { jsonrpc: "2.0", method: "notifications/initialized" }, headers)
    expect(initialized.status).toBe(202)
  })

  it("keeps the 2026-07-28 path as it was: a request without headers or _meta is -32020, a modern one is served", async () => {
    const bare = await postLegacy(served.url, legacy("tools/list"))
    expect([bare.status, errorOf(bare).code]).toEqual([400, -32020])
    const modern = await post(served.url, request("tools/call", { name: "echo", arguments: { text: "modern" } }))
    expect(modern.status).toBe(200)
    expect(modern.messages[0]?.["result"]).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "modern" }] })
    const unsupported = await postLegacy(served.url, legacy("tools/list"), { "mcp-protocol-version": "1999-01-01" })
    expect([unsupported.status, errorOf(unsupported).code]).toEqual([400, -32020])
  })
})

describe("a server with 2026-07-28 only", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({ sessions: true }, ["2026-07-28"])
  })
  afterAll(() => served.runtime.dispose())

  it("refuses a v1 client's initialize as it always did, and serves no GET", async () => {
    const refused = await postLegacy(served.url, initializeBody())
    expect(refused.status).toBe(400)
    expect(errorOf(refused)).toMatchObject({ code: -32020 })
    // The refusal names the option that would serve this client.
    expect(errorOf(refused).message).toBe(
      'Header mismatch: missing MCP-Protocol-Version header (initialize-era clients (MCP 2025-11-25) are served once the server enables that dialect: McpServer.make({ dialects: ["2026-07-28", "2025-11-25"] }))'
    )
    expect(refused.headers["mcp-session-id"]).toBeUndefined()
    expect((await send(served.url, undefined, { method: "GET", headers: { accept: "text/event-stream" } })).status).toBe(405)
  })
})

describe("with sessions", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({ sessions: true })
  })
  afterAll(() => served.runtime.dispose())

  it("initialize issues a visible-ASCII Mcp-Session-Id; later requests need it, and the version it negotiated", async () => {
    const { session } = await initialize(served.url)
    expect(session).toMatch(/^[\x21-\x7e]+$/)
    const ok = await postLegacy(served.url, legacy("tools/call", { name: "echo", arguments: { text: "in session" } }), sessionHeaders(session!))
    expect(ok.messages[0]?.["result"]).toEqual({ content: [{ type: "text", text: "in session" }] })
    const missing = await postLegacy(served.url, legacy("tools/list"), { "mcp-protocol-version": "2025-11-25", "mcp-session-id": "" })
    expect([missing.status, errorOf(missing).message]).toEqual([400, "Bad Request: missing Mcp-Session-Id header"])
    const unknown = await postLegacy(served.url, legacy("tools/list"), sessionHeaders("not-a-session"))
    expect([unknown.status, errorOf(unknown).message]).toEqual([404, "Session not found"])
    const noVersion = await postLegacy(served.url, legacy("tools/list"), { "mcp-session-id": session! })
    expect(noVersion.status).toBe(400)
    expect(errorOf(noVersion).message).toContain("missing MCP-Protocol-Version")
    const again = await postLegacy(served.url, initializeBody(), { "mcp-session-id": session! })
    expect([again.status, errorOf(again).message]).toEqual([400, "Bad Request: initialize must not carry an Mcp-Session-Id"])
  })

  it("a session belongs to the principal that initialized it", async () => {
    const { session } = await initialize(served.url, { "x-user": "alice" })
    const alice = await postLegacy(served.url, legacy("ping"), sessionHeaders(session!, { "x-user": "alice" }))
    expect(alice.messages[0]?.["result"]).toEqual({})
    const bob = await postLegacy(served.url, legacy("ping"), sessionHeaders(session!, { "x-user": "bob" }))
    expect(bob.status).toBe(404)
  })

  it("logging/setLevel is remembered by the session: later requests stream their log messages", async () => {
    const { session } = await initialize(served.url)
    const quiet = await postLegacy(served.url, legacy("tools/call", { name: "log", arguments: {} }), sessionHeaders(session!))
    expect(quiet.messages.map((message) => message["method"])).toEqual([undefined])
    await postLegacy(served.url, legacy("logging/setLevel", { level: "info" }), sessionHeaders(session!))
    const loud = await postLegacy(served.url, legacy("tools/call", { name: "log", arguments: {} }), sessionHeaders(session!))
    expect(loud.headers["content-type"]).toContain("text/event-stream")
    expect(loud.messages[0]).toMatchObject({ method: "notifications/message", params: { level: "info", data: "a line" } })
    expectValid2025(loud, "tools/call")
  })

  it("Input.elicit: the request travels on the POST's stream, the answer is POSTed back (202), the result follows", async () => {
    const { session } = await initialize(served.url)
    const target = new URL(served.url)
    const call = legacy("tools/call", { name: "ask", arguments: {} })
    const result = await new Promise<Array<Record<string, unknown>>>((resolve, reject) => {
      const messages: Array<Record<string, unknown>> = []
      const req = Http.request({
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: { ...base, ...sessionHeaders(session!) },
        agent: false
      }, (res) => {
        let buffer = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => {
          buffer += chunk
          for (const line of buffer.split("\n").filter((text) => text.startsWith("data: "))) {
            const message = JSON.parse(line.slice(6)) as Record<string, unknown>
            if (messages.some((seen) => JSON.stringify(seen) === JSON.stringify(message))) continue
            messages.push(message)
            if (message["method"] === "elicitation/create") {
              void postLegacy(served.url, { jsonrpc: "2.0", id: message["id"], result: { action: "accept", content: { name: "Ada" } } }, sessionHeaders(session!))
                .then((answer) => expect(answer.status).toBe(202), reject)
            }
          }
        })
        res.on("end", () => resolve(messages))
      })
      req.on("error", reject)
      req.end(JSON.stringify(call))
    })
    expect(result[0]).toMatchObject({ method: "elicitation/create", params: { mode: "form", message: "Name?" } })
    expect(result.at(-1)).toMatchObject({ id: call.id, result: { content: [{ type: "text", text: "Hi Ada" }] } })
    for (const message of result) expect(validateServerMessage2025(message, "method" in message ? {} : { requestMethod: "tools/call" })).toEqual([])
  })

  it("notifications/cancelled of the session ends a waiting call: its stream ends with no answer", async () => {
    const { session } = await initialize(served.url)
    const target = new URL(served.url)
    const call = legacy("tools/call", { name: "ask", arguments: {} })
    const messages = await new Promise<Array<Record<string, unknown>>>((resolve, reject) => {
      const seen: Array<Record<string, unknown>> = []
      const req = Http.request({
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: { ...base, ...sessionHeaders(session!) },
        agent: false
      }, (res) => {
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => {
          for (const line of chunk.split("\n").filter((text) => text.startsWith("data: "))) {
            const message = JSON.parse(line.slice(6)) as Record<string, unknown>
            seen.push(message)
            if (message["method"] === "elicitation/create") {
              void postLegacy(served.url, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: call.id } }, sessionHeaders(session!))
                .then((accepted) => expect(accepted.status).toBe(202), reject)
            }
          }
        })
        res.on("end", () => resolve(seen))
      })
      req.on("error", reject)
      req.end(JSON.stringify(call))
    })
    expect(messages.map((message) => message["method"])).toEqual(["elicitation/create"])
  })

  it("GET opens the session's stream (one at a time) for the hub's changes; DELETE ends the session and its stream", async () => {
    const { session } = await initialize(served.url)
    await postLegacy(served.url, legacy("resources/subscribe", { uri: "file:///readme" }), sessionHeaders(session!))
    expect((await send(served.url, undefined, { method: "GET", headers: { ...sessionHeaders(session!), accept: "application/json" } })).status).toBe(406)
    const stream = await openStream(served.url, { ...sessionHeaders(session!), accept: "text/event-stream" })
    expect(stream.status).toBe(200)
    const second = await send(served.url, undefined, { method: "GET", headers: { ...sessionHeaders(session!), accept: "text/event-stream" } })
    expect(second.status).toBe(409)
    await Effect.runPromise(served.hub.publish(SubscriptionHub.resourceUpdated("file:///readme")))
    await Effect.runPromise(served.hub.publish(SubscriptionHub.toolsListChanged))
    await eventually(() => stream.events.length >= 2)
    expect(stream.events).toEqual([
      { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "file:///readme" } },
      { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: {} }
    ])
    for (const event of stream.events) expect(validateServerMessage2025(event, {})).toEqual([])
    const deleted = await send(served.url, undefined, { method: "DELETE", headers: sessionHeaders(session!) })
    expect(deleted.status).toBe(200)
    const after = await postLegacy(served.url, legacy("ping"), sessionHeaders(session!))
    expect(after.status).toBe(404)
    expect((await send(served.url, undefined, { method: "DELETE", headers: sessionHeaders(session!) })).status).toBe(404)
    stream.close()
  })

  it("a session idle longer than idleTimeout is gone (404); at most `max` live at once (503)", async () => {
    const limited = await serve({ sessions: { max: 2, idleTimeout: "200 millis" } })
    try {
      const { session } = await initialize(limited.url)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect((await postLegacy(limited.url, legacy("ping"), sessionHeaders(session!))).status).toBe(404)
      const sessions = [await initialize(limited.url), await initialize(limited.url)]
      expect(sessions.every(({ session: id }) => id !== undefined)).toBe(true)
      const refused = await postLegacy(limited.url, initializeBody())
      expect([refused.status, errorOf(refused).code]).toEqual([503, -32603])
      await send(limited.url, undefined, { method: "DELETE", headers: sessionHeaders(sessions[0]!.session!) })
      expect((await initialize(limited.url)).session).toBeDefined()
    } finally {
      await limited.runtime.dispose()
    }
  })

  it("the 2026-07-28 path is unchanged beside sessions", async () => {
    const modern = await post(served.url, request("tools/call", { name: "echo", arguments: { text: "modern" } }))
    expect(modern.headers["mcp-session-id"]).toBeUndefined()
    expect(modern.messages[0]?.["result"]).toMatchObject({ resultType: "complete" })
  })
})
