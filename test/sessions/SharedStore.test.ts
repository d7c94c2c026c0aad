/**
 * The `SessionStore` contract through the transport, on both stores: two HTTP endpoints in this
 * process (each an "instance", with its own table of sessions) share one store — the in-process
 * `SessionStore.layerMemory` store, or `PgSessionStore` on a random schema of the real PostgreSQL —
 * behind the round-robin proxy. The v1 SDK client's session works on both; the caps count every
 * instance's sessions; an unknown session is 404 everywhere, as is a session after DELETE; a
 * session of one principal is not another's (nor can another end this instance's copy of it).
 */
import { PgClient } from "@effect/sql-pg"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import * as Principal from "@snodo/core/Principal"
import type * as Authentication from "@snodo/http/Authentication"
import * as NodeServe from "@snodo/http/NodeServe"
import * as SessionStore from "@snodo/http/SessionStore"
import * as TasksPostgres from "@snodo/postgres"
import { Duration, Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { HttpServer } from "effect/http"
import { Reactivity } from "effect/reactivity"
import { randomBytes } from "node:crypto"
import { afterAll, describe, expect, it } from "vitest"
import { ServerLayer } from "../../examples/everything/server.ts"
import { postFrom } from "../support/PostFrom.ts"
import * as RoundRobinProxy from "../support/RoundRobinProxy.ts"
import { eventsOf } from "../support/Sse.ts"

const admin = process.env["SNODO_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const schemas: Array<string> = []
const runtimes: Array<ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>> = []
const proxies: Array<RoundRobinProxy.Proxy> = []

const withAdmin = <A, E>(effect: Effect.Effect<A, E, PgClient.PgClient>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(PgClient.make({ url: Redacted.make(admin), maxConnections: 1 }), (pg) =>
    Effect.provideService(effect, PgClient.PgClient, pg))).pipe(Effect.provide(Reactivity.layer)))

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()))
  await Promise.all(runtimes.map((runtime) => runtime.dispose()))
  await withAdmin(Effect.flatMap(Effect.service(PgClient.PgClient), (pg) =>
    Effect.forEach(schemas, (schema) => pg.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`))))
}, 30_000)

// A short initialize deadline: an initialized session must outlive it (its expiry follows
// `notifications/initialized`; the v1 client's test waits past it). Short, but not so short that a
// loaded machine misses it between an `initialize` and its `notifications/initialized`.
const initializeMillis = 1_000
const sessionOptions = { maxPerPrincipal: 2, initializeTimeout: Duration.millis(initializeMillis) }
// For the tests that count sessions never initialized: they must all still hold their place when
// the last one asks, however slow a loaded machine is between the requests.
const countingOptions = { ...sessionOptions, initializeTimeout: Duration.seconds(30) }

/**
 * Two endpoints on a fresh store (`store()` once; each runtime builds the Layer apart: an instance
 * with its own table, and for PostgreSQL its own pool and LISTEN), behind a proxy.
 */
const pair = async (store: () => Layer.Layer<SessionStore.SessionStore, unknown>, sessions = sessionOptions) => {
  const urls: Array<string> = []
  const shared = store()
  for (let instance = 0; instance < 2; instance++) {
    const runtime = ManagedRuntime.make(
      NodeServe.layer({ port: 0, sessions, authenticate: byHeader }).pipe(Layer.provide(ServerLayer), Layer.provide(shared))
    )
    runtimes.push(runtime)
    const server = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
    if (server.address._tag === "UnixPathAddress") throw new Error("expected TCP")
    urls.push(`http://127.0.0.1:${server.address.port}/mcp`)
  }
  const proxy = await RoundRobinProxy.start(urls)
  proxies.push(proxy)
  return { urls, proxy, runtimes: runtimes.slice(-2) }
}

/** Callers name themselves in `x-user` (anonymous without it): enough to have two principals. */
const byHeader: Authentication.Authenticator = {
  authenticate: (headers) => {
    const user = headers["x-user"]
    return Effect.succeed({
      principal: typeof user === "string" ? Principal.Principal.of({ id: user, claims: {} }) : Principal.anonymous,
      grant: undefined
    })
  }
}

const rpc = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25", ...headers },
    body: JSON.stringify(body)
  })

const initialize = (url: string, headers: Record<string, string> = {}) =>
  rpc(url, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1.0.0" } }
  }, headers)

/** `initialize` from a socket bound to `localAddress`: the status and the session id given. */
const initializeFrom = async (url: string, localAddress: string) => {
  const answer = await postFrom(url, localAddress, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1.0.0" } }
  })
  const session = answer.headers["mcp-session-id"]
  return { status: answer.status, session: typeof session === "string" ? session : undefined }
}

const contract = (name: string, store: () => Layer.Layer<SessionStore.SessionStore, unknown>) =>
  describe(name, () => {
    it("anonymous callers are counted per source address across instances (issue 38, A1): one address's share refuses neither another", async () => {
      const { urls } = await pair(store, countingOptions)
      const [a, b] = urls as [string, string]
      // maxPerPrincipal 2: from 127.0.0.2, one session on each instance, then the third is refused (the store counts them)
      const flood = [await initializeFrom(a, "127.0.0.2"), await initializeFrom(b, "127.0.0.2"), await initializeFrom(a, "127.0.0.2")]
      expect(flood.map(({ status }) => status)).toEqual([200, 200, 503])
      expect(flood.filter(({ session }) => session !== undefined)).toHaveLength(2)
      // another anonymous caller, from another address, on either instance
      const other = await initializeFrom(b, "127.0.0.1")
      expect(other.status).toBe(200)
      expect(other.session).toBeDefined()
    }, 30_000)

    it("a v1 client's session is served by both instances: elicitation answered on the other, log level kept, DELETE everywhere", async () => {
      const { urls, proxy } = await pair(store)
      const client = new Client({ name: "v1-host", version: "1.0.0" }, { capabilities: { elicitation: {} } })
      const logs: Array<unknown> = []
      client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { username: "ada", email: "ada@example.com" } }))
      client.setNotificationHandler(LoggingMessageNotificationSchema, async (notification) => void logs.push(notification.params.data))
      const transport = new StreamableHTTPClientTransport(new URL(proxy.url))
      await client.connect(transport)
      // Past the initialize deadline: the initialized session is still served (its expiry moved on).
      await new Promise((resolve) => setTimeout(resolve, initializeMillis + 200))
      const elicited = await client.callTool({ name: "test_elicitation", arguments: { message: "Who?" } })
      expect(JSON.stringify(elicited)).toContain("action=accept")
      const asked = proxy.routed.findIndex((entry) => entry.tool === "test_elicitation")
      const answer = proxy.routed.slice(asked).find((entry) => entry.rpc === "response")
      expect(answer?.status).toBe(202)
      expect(answer?.backend).not.toBe(proxy.routed[asked]!.backend)
      await client.setLoggingLevel("info")
      await client.callTool({ name: "test_tool_with_logging", arguments: {} })
      await client.callTool({ name: "test_tool_with_logging", arguments: {} })
      expect(logs).toHaveLength(6)
      const session = transport.sessionId!
      await transport.terminateSession()
      for (const url of urls) {
        const after = await rpc(url, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": session })
        expect(after.status).toBe(404)
      }
      await client.close()
    }, 30_000)

    it("the per-principal cap counts the sessions of every instance; 503 with Retry-After beyond it", async () => {
      const { urls } = await pair(store, countingOptions)
      const [a, b] = urls as [string, string]
      expect((await initialize(a)).status).toBe(200)
      expect((await initialize(b)).status).toBe(200)
      const refused = await initialize(a)
      expect(refused.status).toBe(503)
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      expect(await refused.json()).toMatchObject({ error: { code: -32603, data: { retryable: true, limit: 2 } } })
    }, 30_000)

    it("a session is its principal's: another principal naming it is 404 on every instance and ends nothing of it", async () => {
      const { urls } = await pair(store)
      const [a, b] = urls as [string, string]
      const alice = { "x-user": "alice" }
      const session = (await initialize(a, alice)).headers.get("mcp-session-id")!
      const hers = { ...alice, "mcp-session-id": session }
      expect((await rpc(a, { jsonrpc: "2.0", method: "notifications/initialized" }, hers)).status).toBe(202)
      // Alice's GET stream on B.
      const aborted = new AbortController()
      const stream = await fetch(b, { headers: { accept: "text/event-stream", "mcp-protocol-version": "2025-11-25", ...hers }, signal: aborted.signal })
      expect(stream.status).toBe(200)
      const next = eventsOf(stream)
      for (const url of urls) {
        expect((await rpc(url, { jsonrpc: "2.0", id: 1, method: "ping" }, { "x-user": "bob", "mcp-session-id": session })).status).toBe(404)
      }
      // Her session and her stream on B are intact: an update of her subscription reaches it.
      expect((await rpc(a, { jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "test://static-text" } }, hers)).status).toBe(200)
      const trigger = { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "test_trigger_resource_update", arguments: { uri: "test://static-text" } } }
      expect((await rpc(b, trigger, hers)).status).toBe(200)
      expect(await next()).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "test://static-text" } })
      aborted.abort()
    }, 30_000)

    it("one GET stream per session across instances: a GET on B ends the older one on A", async () => {
      const { urls } = await pair(store)
      const [a, b] = urls as [string, string]
      const session = (await initialize(a)).headers.get("mcp-session-id")!
      const get = (url: string) =>
        fetch(url, { headers: { accept: "text/event-stream", "mcp-protocol-version": "2025-11-25", "mcp-session-id": session } })
      expect((await rpc(a, { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": session })).status).toBe(202)
      const older = await get(a)
      expect(older.status).toBe(200)
      const onA = eventsOf(older)
      const newer = await get(b)
      expect(newer.status).toBe(200)
      await expect(onA()).rejects.toThrow("the stream ended")
      await newer.body?.cancel()
    }, 30_000)

    it("an id nobody issued is 404 on every instance; one issued on A is found on B, and outlives A's shutdown", async () => {
      const { urls, runtimes: [first] } = await pair(store)
      const [a, b] = urls as [string, string]
      for (const url of urls) {
        const unknown = await rpc(url, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": randomBytes(24).toString("base64url") })
        expect(unknown.status).toBe(404)
      }
      const created = await initialize(a)
      const session = created.headers.get("mcp-session-id")!
      expect((await rpc(b, { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": session })).status).toBe(202)
      await new Promise((resolve) => setTimeout(resolve, 600))
      const pinged = await rpc(b, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": session })
      expect(pinged.status).toBe(200)
      expect(await pinged.json()).toEqual({ jsonrpc: "2.0", id: 1, result: {} })
      // A shuts down gracefully (its copies of the sessions end): the session lives on, on B.
      await first!.dispose()
      expect((await rpc(b, { jsonrpc: "2.0", id: 2, method: "ping" }, { "mcp-session-id": session })).status).toBe(200)
    }, 30_000)
  })

contract("SessionStore.layerMemory: two endpoints of one process", () => Layer.succeed(SessionStore.SessionStore, SessionStore.makeMemory()))

/** A PostgreSQL store on a fresh schema (migrated first, dropped after the file). */
const pgStore = (schema = `snodo_shared_${randomBytes(6).toString("hex")}`) => {
  schemas.push(schema)
  const migrated = Effect.promise(() => withAdmin(TasksPostgres.migrate({ schema })))
  return Layer.unwrap(Effect.as(
    migrated,
    TasksPostgres.PgSessionStore.layer({ schema }).pipe(Layer.provide(PgClient.layer({ url: Redacted.make(admin), maxConnections: 4 })))
  ))
}

contract("PgSessionStore: two endpoints, each with its own pool and LISTEN", () => pgStore())

describe("PgSessionStore with its table unreadable", () => {
  it("answers a session's request 503, retryable (not 404: the session is not gone), and serves it again once readable", async () => {
    const schema = `snodo_shared_${randomBytes(6).toString("hex")}`
    const { urls } = await pair(() => pgStore(schema))
    const [a, b] = urls as [string, string]
    const session = (await initialize(a)).headers.get("mcp-session-id")!
    expect((await rpc(a, { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": session })).status).toBe(202)
    const move = (from: string, to: string) =>
      withAdmin(Effect.flatMap(Effect.service(PgClient.PgClient), (pg) => pg.unsafe(`ALTER TABLE ${schema}.${from} RENAME TO ${to}`)))
    await move("snodo_sessions", "snodo_sessions_away")
    const refused = await rpc(b, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": session })
    expect(refused.status).toBe(503)
    expect(refused.headers.get("retry-after")).toBe("1")
    expect(await refused.json()).toMatchObject({ id: 1, error: { code: -32603, data: { retryable: true } } })
    expect((await initialize(b)).status).toBe(503)
    await move("snodo_sessions_away", "snodo_sessions")
    expect((await rpc(b, { jsonrpc: "2.0", id: 2, method: "ping" }, { "mcp-session-id": session })).status).toBe(200)
  }, 30_000)
})
