/**
 * Initialize-era sessions (2025-11-25) across instances: three everything servers (child
 * processes) on one PostgreSQL (`--sessions postgres://…`, tasks and the hub on the same schema)
 * behind a round-robin proxy with no stickiness, driven by the v1 SDK client 1.32.2 and by the
 * official client 2.4.0 in its default (legacy) negotiation mode. Every request of the session
 * lands on the next instance in turn; the proxy's record says where each went.
 *
 * Each client: initializes, lists, calls tools on every instance, answers an elicitation and a
 * sampling request on an instance other than the one whose handler asked, subscribes to a
 * resource and receives its update on its GET stream, has its log level honoured by the other
 * instances, sees progress; then the instance holding its GET stream is killed (SIGKILL) with a call
 * in flight on each instance (only the killed one's is lost) and the client carries on through the
 * others (its reconnected GET stream receives updates again);
 * finally DELETE ends the session everywhere (404 on every instance left). Each client runs on a
 * fresh set of servers, in a random schema dropped afterwards.
 */
import { PgClient } from "@effect/sql-pg"
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Effect, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { randomBytes } from "node:crypto"
import { afterAll, describe, expect, it } from "vitest"
import * as RoundRobinProxy from "../support/RoundRobinProxy.ts"
import { type Server, start } from "../support/TaskServers.ts"

const admin = process.env["SNODO_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const schemas: Array<string> = []
const servers: Array<Server> = []
const proxies: Array<RoundRobinProxy.Proxy> = []

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()))
  await Promise.all(servers.map((server) => server.stop()))
  await Effect.runPromise(Effect.scoped(Effect.flatMap(PgClient.make({ url: Redacted.make(admin), maxConnections: 1 }), (pg) =>
    Effect.forEach(schemas, (schema) => pg.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)))).pipe(Effect.provide(Reactivity.layer)))
}, 30_000)

/** Three everything servers sharing sessions on a fresh schema, behind a fresh proxy. */
const cluster = async () => {
  const schema = `snodo_sessions_${randomBytes(6).toString("hex")}`
  schemas.push(schema)
  const url = new URL(admin)
  const spec = `postgres://${url.host}${url.pathname}?schema=${schema}`
  const started = await Promise.all([0, 1, 2].map(() => start("examples/everything/main.mjs", ["--sessions", spec])))
  servers.push(...started)
  const proxy = await RoundRobinProxy.start(started.map((server) => server.url))
  proxies.push(proxy)
  return { servers: started, proxy }
}

/** What the scenario needs of a client, the same for both SDKs. */
interface Driver {
  readonly callTool: (name: string, args: Record<string, unknown>, onprogress?: (progress: number) => void) => Promise<string>
  readonly listTools: () => Promise<ReadonlyArray<string>>
  readonly listPrompts: () => Promise<ReadonlyArray<string>>
  readonly listResources: () => Promise<ReadonlyArray<string>>
  readonly subscribe: (uri: string) => Promise<void>
  readonly setLevel: (level: "info") => Promise<void>
  readonly sessionId: () => string | undefined
  readonly terminate: () => Promise<void>
  readonly close: () => Promise<void>
  readonly elicited: Array<unknown>
  readonly logs: Array<unknown>
  readonly updated: Array<string>
  readonly listChanges: Array<string>
}

const elicitAnswer = { action: "accept", content: { username: "ada", email: "ada@example.com" } } as const
const sampleAnswer = { role: "assistant", content: { type: "text", text: "Paris" }, model: "test-model", stopReason: "endTurn" } as const

const textOf = (result: object): string => {
  const content = "content" in result ? result.content : undefined
  const first = Array.isArray(content) ? (content[0] as { readonly text?: unknown } | undefined) : undefined
  return typeof first?.text === "string" ? first.text : ""
}

const v1 = async (url: string): Promise<Driver> => {
  const client = new V1Client({ name: "v1-host", version: "1.0.0" }, { capabilities: { elicitation: {}, sampling: {} } })
  const transport = new V1Transport(new URL(url))
  const driver = { elicited: [] as Array<unknown>, logs: [] as Array<unknown>, updated: [] as Array<string>, listChanges: [] as Array<string> }
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void driver.listChanges.push("tools"))
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    driver.elicited.push(request.params)
    return elicitAnswer
  })
  client.setRequestHandler(CreateMessageRequestSchema, async () => sampleAnswer)
  client.setNotificationHandler(LoggingMessageNotificationSchema, async (notification) => void driver.logs.push(notification.params.data))
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => void driver.updated.push(notification.params.uri))
  await client.connect(transport)
  return {
    ...driver,
    callTool: async (name, args, onprogress) =>
      textOf(await client.callTool({ name, arguments: args }, undefined, onprogress === undefined ? undefined : { onprogress: (progress) => onprogress(progress.progress) })),
    listTools: async () => (await client.listTools()).tools.map((tool) => tool.name),
    listPrompts: async () => (await client.listPrompts()).prompts.map((prompt) => prompt.name),
    listResources: async () => (await client.listResources()).resources.map((resource) => resource.uri),
    subscribe: async (uri) => void await client.subscribeResource({ uri }),
    setLevel: async (level) => void await client.setLoggingLevel(level),
    sessionId: () => transport.sessionId,
    terminate: () => transport.terminateSession(),
    close: () => client.close()
  }
}

const v2 = async (url: string): Promise<Driver> => {
  // The default negotiation mode: legacy (initialize, 2025-11-25).
  const client = new V2Client({ name: "v2-host", version: "1.0.0" }, { capabilities: { elicitation: {}, sampling: {} } })
  const transport = new V2Transport(new URL(url))
  const driver = { elicited: [] as Array<unknown>, logs: [] as Array<unknown>, updated: [] as Array<string>, listChanges: [] as Array<string> }
  client.setNotificationHandler("notifications/tools/list_changed", () => void driver.listChanges.push("tools"))
  client.setRequestHandler("elicitation/create", async (request) => {
    driver.elicited.push(request.params)
    return elicitAnswer
  })
  client.setRequestHandler("sampling/createMessage", async () => sampleAnswer)
  client.setNotificationHandler("notifications/message", (notification) => void driver.logs.push(notification.params.data))
  client.setNotificationHandler("notifications/resources/updated", (notification) => void driver.updated.push(notification.params.uri))
  await client.connect(transport)
  return {
    ...driver,
    callTool: async (name, args, onprogress) =>
      textOf(await client.callTool({ name, arguments: args }, onprogress === undefined ? undefined : { onprogress: (progress) => onprogress(progress.progress) })),
    listTools: async () => (await client.listTools()).tools.map((tool) => tool.name),
    listPrompts: async () => (await client.listPrompts()).prompts.map((prompt) => prompt.name),
    listResources: async () => (await client.listResources()).resources.map((resource) => resource.uri),
    subscribe: async (uri) => void await client.subscribeResource({ uri }),
    setLevel: async (level) => void await client.setLoggingLevel(level),
    sessionId: () => transport.sessionId,
    terminate: () => transport.terminateSession(),
    close: () => client.close()
  }
}

/** Polls `done` every 20 ms for at most `millis`; the caller asserts afterwards. */
const eventually = async (done: () => boolean, millis = 10_000): Promise<void> => {
  for (const until = Date.now() + millis; !done() && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 20))
}

const post = (url: string, session: string, body: unknown) =>
  fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
      "mcp-session-id": session
    },
    body: JSON.stringify(body)
  })

const scenario = (name: string, connect: (url: string) => Promise<Driver>) =>
  it(`${name}: one session served by three instances, then one killed, then DELETE`, async () => {
    const { proxy, servers: instances } = await cluster()
    const client = await connect(proxy.url)
    const session = client.sessionId()
    expect(session).toMatch(/^[\x21-\x7e]{32}$/)

    // Lists, and tool calls landing on every instance.
    expect(await client.listTools()).toEqual(expect.arrayContaining(["echo", "test_elicitation", "test_trigger_resource_update"]))
    expect(await client.listPrompts()).toContain("test_simple_prompt")
    expect(await client.listResources()).toContain("test://static-text")
    for (let call = 0; call < 6; call++) expect(await client.callTool("echo", { text: `hi ${call}` })).toContain(`hi ${call}`)
    const echoed = proxy.routed.filter((entry) => entry.tool === "echo" && entry.status === 200)
    expect(new Set(echoed.map((entry) => entry.backend))).toEqual(new Set([0, 1, 2]))

    // Elicitation and sampling: the client's answer is POSTed to another instance than the asking one.
    expect(await client.callTool("test_elicitation", { message: "Who are you?" })).toBe(
      "User response: action=accept, content={\"username\":\"ada\",\"email\":\"ada@example.com\"}"
    )
    expect(client.elicited.at(-1)).toMatchObject({ message: "Who are you?" })
    expect(await client.callTool("test_sampling", { prompt: "Capital of France?" })).toBe("LLM response: Paris")
    for (const tool of ["test_elicitation", "test_sampling"]) {
      // The call's SSE answer opened (with the request to the client) before the client answered.
      const asked = proxy.routed.findIndex((entry) => entry.tool === tool)
      // The instance that took the answer writes its 202 once it forwarded the answer, which can be
      // after the call's result reached the client: wait for it to pass the proxy.
      const answered = () => proxy.routed.slice(asked).find((entry) => entry.rpc === "response")
      await eventually(() => answered() !== undefined)
      const answer = answered()
      expect(answer?.status, JSON.stringify(proxy.routed.slice(Math.max(0, asked - 2)))).toBe(202)
      expect(answer?.backend).not.toBe(proxy.routed[asked]!.backend)
    }

    // resources/subscribe on one instance; the update published by another reaches the GET stream on a third.
    await client.subscribe("test://static-text")
    await client.callTool("test_trigger_resource_update", { uri: "test://not-subscribed" })
    await client.callTool("test_trigger_resource_update", { uri: "test://static-text" })
    await eventually(() => client.updated.length > 0)
    expect(client.updated).toEqual(["test://static-text"])
    // A list change published on whichever instance the call lands on reaches the stream too.
    await client.callTool("test_trigger_tool_change", {})
    await eventually(() => client.listChanges.length > 0)
    expect(client.listChanges).toEqual(["tools"])

    // logging/setLevel is honoured wherever the next call lands.
    await client.callTool("test_tool_with_logging", {})
    expect(client.logs).toEqual([])
    await client.setLevel("info")
    for (let call = 0; call < 3; call++) await client.callTool("test_tool_with_logging", {})
    await eventually(() => client.logs.length >= 9)
    expect(client.logs.slice(0, 3)).toEqual(["Tool execution started", "Tool processing data", "Tool execution completed"])
    expect(client.logs).toHaveLength(9)

    // Progress reaches the client's callback.
    const seen: Array<number> = []
    expect(await client.callTool("test_tool_with_progress", {}, (progress) => void seen.push(progress))).not.toBe("")
    expect(seen.slice(0, 2)).toEqual([0, 50])

    // kill -9 of the instance holding the GET stream: the client carries on through the others.
    const streams = () => proxy.routed.filter((entry) => entry.httpMethod === "GET" && entry.status === 200)
    const holding = streams().find((entry) => entry.open)
    expect(holding).toBeDefined()
    const opened = streams().length
    // Three calls in flight, one on each instance: the one on the killed instance is lost, the others answer.
    const sleeping = proxy.sent.filter((entry) => entry.tool === "sleep").length
    const inFlight = Promise.allSettled([0, 1, 2].map(() => client.callTool("sleep", { ms: 3000 })))
    await eventually(() => proxy.sent.filter((entry) => entry.tool === "sleep").length === sleeping + 3)
    await instances[holding!.backend]!.kill9()
    const settled = await inFlight
    expect(settled.filter((outcome) => outcome.status === "rejected")).toHaveLength(1)
    expect(settled.filter((outcome) => outcome.status === "fulfilled").map((outcome) => outcome.value)).toEqual([
      expect.stringContaining("3000"),
      expect.stringContaining("3000")
    ])
    for (let call = 0; call < 4; call++) expect(await client.callTool("echo", { text: `after ${call}` })).toContain(`after ${call}`)
    expect(await client.callTool("test_elicitation", { message: "Still there?" })).toContain("action=accept")
    // The client opens its GET stream again, on an instance still alive, which picks the session up.
    await eventually(() => streams().length > opened && streams().at(-1)!.open)
    const reopened = streams().at(-1)!
    expect(reopened.open).toBe(true)
    expect(reopened.backend).not.toBe(holding!.backend)
    await client.callTool("test_trigger_resource_update", { uri: "test://static-text" })
    await eventually(() => client.updated.length > 1)
    expect(client.updated).toEqual(["test://static-text", "test://static-text"])

    // DELETE ends the session everywhere: 404 on every instance left.
    await client.terminate()
    const alive = [0, 1, 2].filter((backend) => backend !== holding!.backend)
    for (const backend of alive) {
      const answer = await post(instances[backend]!.url, session!, { jsonrpc: "2.0", id: 1, method: "ping" })
      expect(answer.status).toBe(404)
    }
    await client.close()
  }, 120_000)

describe("initialize-era sessions across three instances on PostgreSQL", () => {
  scenario("the v1 SDK client 1.32.2", v1)
  scenario("the official client 2.4.0 (legacy negotiation)", v2)
})
