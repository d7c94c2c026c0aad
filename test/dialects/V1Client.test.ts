/**
 * The initialize era end to end with the client most MCP hosts still run: the official v1 SDK
 * (`@modelcontextprotocol/sdk` 1.32.2, which speaks 2025-11-25 and knows nothing of
 * `server/discover`), against the everything server (both dialects) over a real stdio child
 * process and a real HTTP listener with sessions on. The same scenario runs on both transports;
 * every message the server writes is validated against the 2025-11-25 schema.json.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResultSchema,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import * as McpHttp from "@snodo/http/McpHttp"
import * as NodeServe from "@snodo/http/NodeServe"
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { createServer } from "node:http"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ServerLayer } from "../../examples/everything/server.ts"
import { record, type WireRecorder2025 } from "../support/WireRecorder2025.ts"

const main = fileURLToPath(new URL("../../examples/everything/main.mjs", import.meta.url))

interface Connected {
  readonly client: Client
  readonly transport: Transport
  readonly recorder: WireRecorder2025
  readonly elicited: Array<unknown>
  readonly logs: Array<unknown>
  readonly listChanges: () => number
}

/** A v1 client with every input capability and a handler for each, connected over `transport`. */
const connect = async (transport: Transport): Promise<Connected> => {
  const client = new Client({ name: "v1-host", version: "1.0.0" }, { capabilities: { elicitation: {}, sampling: {}, roots: {} } })
  const elicited: Array<unknown> = []
  const logs: Array<unknown> = []
  let listChanges = 0
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicited.push(request.params)
    return { action: "accept", content: { username: "ada", email: "ada@example.com" } }
  })
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: "assistant",
    content: { type: "text", text: "Paris" },
    model: "test-model",
    stopReason: "endTurn"
  }))
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///work", name: "work" }] }))
  client.setNotificationHandler(LoggingMessageNotificationSchema, async (notification) => void logs.push(notification.params.data))
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void listChanges++)
  const recorder = record(transport)
  await client.connect(transport)
  return { client, transport, recorder, elicited, logs, listChanges: () => listChanges }
}

const textOf = (result: object): string => {
  const content = "content" in result ? result.content : undefined
  const first = Array.isArray(content) ? (content[0] as { readonly text?: unknown } | undefined) : undefined
  return typeof first?.text === "string" ? first.text : ""
}

/** Polls `done` every 10 ms for at most 5 s. */
const eventually = async (done: () => boolean): Promise<void> => {
  for (let attempt = 0; attempt < 500 && !done(); attempt++) await new Promise((resolve) => setTimeout(resolve, 10))
}

const behaves = (name: string, connected: () => Connected) =>
  describe(name, () => {
    it("initializes at 2025-11-25: the server's identity and that era's capabilities", () => {
      const { client, recorder } = connected()
      expect(client.getServerVersion()).toMatchObject({ name: "snodo-everything", version: "0.1.0" })
      const capabilities = client.getServerCapabilities()
      expect(capabilities).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true }, logging: {}, completions: {} })
      expect(capabilities).not.toHaveProperty("extensions")
      const initialized = recorder.messages.find((entry) => entry.requestMethod === "initialize")?.message
      expect(initialized).toMatchObject({ result: { protocolVersion: "2025-11-25" } })
    })

    it("answers ping", async () => {
      expect(await connected().client.ping()).toEqual({})
    })

    it("lists and calls tools; results carry no 2026-07-28 members", async () => {
      const { client } = connected()
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["test_simple_text", "test_elicitation", "test_sampling", "echo"]))
      expect(tools[0]?.name).toBe("test_simple_text")
      const simple = await client.callTool({ name: "test_simple_text", arguments: {} })
      expect(simple).toEqual({ content: [{ type: "text", text: "This is a simple text response for testing." }] })
      const echoed = await client.callTool({ name: "echo", arguments: { text: "hi" } })
      expect(echoed).toMatchObject({ structuredContent: { text: "hi" } })
      const failed = await client.callTool({ name: "test_error_handling", arguments: {} })
      expect(failed).toMatchObject({ isError: true })
    })

    it("reports progress to the client's progress callback", async () => {
      const { client } = connected()
      const seen: Array<number> = []
      const result = await client.callTool({ name: "test_tool_with_progress", arguments: {} }, undefined, {
        onprogress: (progress) => void seen.push(progress.progress)
      })
      // The v1 client runs notification handlers a microtask later but settles a response at once,
      // and drops a request's progress handler with its response: the last report (written just
      // before the result, often in the same chunk) may reach the callback too late to be seen.
      // The earlier ones, 50 ms apart, always arrive.
      expect(seen.slice(0, 2)).toEqual([0, 50])
      expect([[0, 50], [0, 50, 100]]).toContainEqual(seen)
      expect(textOf(result)).not.toBe("")
    })

    it("a tool that calls Input.elicit is answered by the client's elicitation handler", async () => {
      const { client, elicited } = connected()
      const result = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } })
      expect(elicited.at(-1)).toMatchObject({
        mode: "form",
        message: "Who are you?",
        requestedSchema: { type: "object", required: ["username", "email"] }
      })
      expect(textOf(result)).toBe("User response: action=accept, content={\"username\":\"ada\",\"email\":\"ada@example.com\"}")
    })

    it("Input.sample and Input.roots reach the client's handlers too", async () => {
      const { client } = connected()
      expect(textOf(await client.callTool({ name: "test_sampling", arguments: { prompt: "Capital of France?" } }))).toBe("LLM response: Paris")
      expect(textOf(await client.callTool({ name: "test_input_required_result_list_roots", arguments: {} }))).toBe("Found 1 root(s)")
    })

    it("reads resources and subscribes to one; list changes arrive as notifications", async () => {
      const { client, listChanges } = connected()
      const read = await client.readResource({ uri: "test://static-text" })
      expect(read.contents).toEqual([{ uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." }])
      const templated = await client.readResource({ uri: "test://template/123/data" })
      expect(templated.contents[0]).toMatchObject({ uri: "test://template/123/data" })
      expect(await client.subscribeResource({ uri: "test://static-text" })).toEqual({})
      expect(await client.unsubscribeResource({ uri: "test://static-text" })).toEqual({})
      const before = listChanges()
      await client.callTool({ name: "test_trigger_tool_change", arguments: {} })
      await eventually(() => listChanges() > before)
      expect(listChanges()).toBe(before + 1)
    })

    it("sees skill files as ordinary resources: the template reads them; the Skills methods do not exist", async () => {
      const { client } = connected()
      const { resourceTemplates } = await client.listResourceTemplates()
      expect(resourceTemplates.map((template) => template.uriTemplate)).toContain("skill://{+path}")
      const manifest = await client.readResource({ uri: "skill://git-workflow/SKILL.md" })
      expect(manifest.contents[0]).toMatchObject({ uri: "skill://git-workflow/SKILL.md", mimeType: "text/markdown", text: expect.stringContaining("name: git-workflow") })
      const { resources } = await client.listResources()
      expect(resources.map((resource) => resource.uri).filter((uri) => uri.startsWith("skill://"))).toEqual([])
      await expect(client.request({ method: "skills/list", params: {} }, ResultSchema)).rejects.toMatchObject({ code: -32601 })
    })

    it("lists, gets and completes prompts", async () => {
      const { client } = connected()
      const { prompts } = await client.listPrompts()
      expect(prompts.map((prompt) => prompt.name)).toContain("test_prompt_with_arguments")
      const prompt = await client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "a", arg2: "b" } })
      expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: "Prompt with arguments: arg1='a', arg2='b'" } }])
      const completed = await client.complete({ ref: { type: "ref/prompt", name: "test_prompt_with_arguments" }, argument: { name: "arg1", value: "test" } })
      expect(completed.completion.values).toEqual(["testValue1", "testValue2", "test"])
    })

    it("logging/setLevel makes the same McpLog messages reach the client", async () => {
      const { client, logs } = connected()
      expect(await client.setLoggingLevel("info")).toEqual({})
      await client.callTool({ name: "test_tool_with_logging", arguments: {} })
      await eventually(() => logs.length >= 3)
      expect(logs.slice(-3)).toEqual(["Tool execution started", "Tool processing data", "Tool execution completed"])
    })

    it("wrote only messages valid under the 2025-11-25 schema", () => {
      const { recorder } = connected()
      expect(recorder.messages.length).toBeGreaterThan(20)
      expect(recorder.violations()).toEqual([])
    })
  })

// ---- stdio: a real child process -----------------------------------------------------------

let stdio: Connected
beforeAll(async () => {
  stdio = await connect(new StdioClientTransport({ command: process.execPath, args: [main, "--stdio"], stderr: "pipe" }))
})
afterAll(async () => {
  await stdio?.client.close()
})
behaves("the v1 client over stdio", () => stdio)

describe("the v1 client against a server with 2026-07-28 only", () => {
  it("is refused at initialize, with the message naming the supported version", async () => {
    const client = new Client({ name: "v1-host", version: "1.0.0" })
    const transport = new StdioClientTransport({ command: process.execPath, args: [main, "--stdio", "--dialects", "2026-07-28"], stderr: "pipe" })
    await expect(client.connect(transport)).rejects.toThrow(
      'initialize is not part of MCP 2026-07-28 (stateless; supported versions: 2026-07-28); initialize-era clients (MCP 2025-11-25) are served once the server enables that dialect: McpServer.make({ dialects: ["2026-07-28", "2025-11-25"] })'
    )
    await client.close()
  })
})

// ---- HTTP: a real listener with sessions ---------------------------------------------------

let runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>
let url: URL
let http: Connected
const urlOf = async (served: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>) => {
  const server = await served.runPromise(Effect.service(HttpServer.HttpServer))
  if (server.address._tag === "UnixPathAddress") throw new Error("expected TCP")
  return new URL(`http://127.0.0.1:${server.address.port}/mcp`)
}
beforeAll(async () => {
  runtime = ManagedRuntime.make(NodeServe.layer({ port: 0, sessions: true }).pipe(Layer.provide(ServerLayer)))
  url = await urlOf(runtime)
  http = await connect(new StreamableHTTPClientTransport(url))
})
afterAll(async () => {
  await http?.client.close()
  await runtime?.dispose()
})
behaves("the v1 client over HTTP, with sessions", () => http)

describe("HTTP sessions", () => {
  it("initialize issues a visible-ASCII Mcp-Session-Id; DELETE ends the session, and it is 404 from then on", async () => {
    const { client, transport } = await connect(new StreamableHTTPClientTransport(url))
    const session = (transport as StreamableHTTPClientTransport).sessionId
    expect(session).toMatch(/^[\x21-\x7e]{32}$/)
    expect(await client.ping()).toEqual({})
    await (transport as StreamableHTTPClientTransport).terminateSession()
    const after = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        "mcp-session-id": session!
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" })
    })
    expect(after.status).toBe(404)
    await client.close()
  })
})

// ---- the mounted route (McpHttp on Effect's HTTP server) -------------------------------------

let mounted: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>
let mountedClient: Connected
beforeAll(async () => {
  const app = HttpRouter.serve(McpHttp.layerRoute({ path: "/mcp", sessions: true })).pipe(
    Layer.provide(ServerLayer),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
  )
  mounted = ManagedRuntime.make(app)
  mountedClient = await connect(new StreamableHTTPClientTransport(await urlOf(mounted)))
})
afterAll(async () => {
  await mountedClient?.client.close()
  await mounted?.dispose()
})

describe("the v1 client on the mounted route, with sessions", () => {
  it("elicits through the session and receives list changes on the session's GET stream", async () => {
    const { client, listChanges, recorder } = mountedClient
    const result = await client.callTool({ name: "test_elicitation", arguments: { message: "Mounted?" } })
    expect(textOf(result)).toContain("action=accept")
    const before = listChanges()
    await client.callTool({ name: "test_trigger_tool_change", arguments: {} })
    await eventually(() => listChanges() > before)
    expect(listChanges()).toBe(before + 1)
    expect(recorder.violations()).toEqual([])
  })
})
