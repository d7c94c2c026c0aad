/**
 * End to end with the official client `@modelcontextprotocol/client` 2.4.0 over Streamable HTTP,
 * pinned to 2026-07-28, against the everything server on a real listener (port 0). Every message
 * the server writes (JSON bodies and SSE events) is captured from the client's fetch and validated
 * against the official schema.
 */
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills"
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import * as NodeServe from "@snodo/http/NodeServe"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ServerLayer } from "../../examples/everything/server.ts"
import { validateServerMessage } from "../support/OfficialSchema.ts"

let runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>
let url: URL
const written: Array<{ readonly method: string; readonly message: unknown }> = []
const invalid: Array<string> = []

const messagesOf = (contentType: string | null, text: string): Array<unknown> => {
  if (text === "") return []
  if (contentType?.startsWith("text/event-stream")) {
    return text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)))
  }
  return contentType?.startsWith("application/json") ? [JSON.parse(text)] : []
}

/**
 * Methods of the Skills extension, which schema.json does not define: the official `SkillsClient`
 * checks their results instead (it refuses an invalid entry, or a page without cache hints).
 */
const skillsMethods = new Set(["skills/list", "skills/get", "resources/directory/read"])

/** The client's fetch, recording and validating every message of every response. */
const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init)
  const body = typeof init?.body === "string" ? JSON.parse(init.body) as { method?: string } : {}
  const method = body.method ?? "?"
  response.clone().text().then((text) => {
    for (const message of messagesOf(response.headers.get("content-type"), text)) {
      written.push({ method, message })
      const errors = skillsMethods.has(method) && "result" in (message as object) ? [] : validateServerMessage(message, { requestMethod: method })
      if (errors.length > 0) invalid.push(`${method}: ${errors.join("; ")}`)
    }
  }, () => undefined)
  return response
}

const connect = async (capabilities: Record<string, unknown> = {}) => {
  const client = new Client({ name: "snodo-e2e", version: "1.0.0" }, {
    capabilities,
    versionNegotiation: { mode: { pin: "2026-07-28" } }
  })
  await client.connect(new StreamableHTTPClientTransport(url, { fetch: recordingFetch }))
  return client
}

let client: Client
beforeAll(async () => {
  runtime = ManagedRuntime.make(NodeServe.layer({ port: 0 }).pipe(Layer.provide(ServerLayer)))
  const server = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  if (server.address._tag === "UnixPathAddress") throw new Error("expected TCP")
  url = new URL(`http://127.0.0.1:${server.address.port}/mcp`)
  client = await connect()
})
afterAll(async () => {
  await client?.close()
  await runtime?.dispose()
})

const text = (result: { content?: unknown }) => (result.content as Array<{ type: string; text?: string }>)[0]

describe("the official client over HTTP", () => {
  it("negotiates 2026-07-28 through server/discover", async () => {
    expect(client.getProtocolEra()).toBe("modern")
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
    expect(client.getServerVersion()).toMatchObject({ name: "snodo-everything" })
    const discovered = await client.discover()
    expect(discovered.supportedVersions).toContain("2026-07-28")
    expect(discovered.capabilities).toMatchObject({ tools: {}, resources: {}, prompts: {}, completions: {} })
  })

  it("lists every tool, in a stable order, x-mcp-header tool included", async () => {
    const { tools } = await client.listTools()
    const names = tools.map((tool) => tool.name)
    expect(names[0]).toBe("test_simple_text")
    expect(names).toEqual(expect.arrayContaining(["test_x_mcp_header", "echo", "add", "sleep", "test_tool_with_progress"]))
    expect((await client.listTools({}, { cacheMode: "bypass" })).tools.map((tool) => tool.name)).toEqual(names)
  })

  it("calls tools of every content type", async () => {
    expect(text(await client.callTool({ name: "test_simple_text" }))).toEqual({ type: "text", text: "This is a simple text response for testing." })
    expect(text(await client.callTool({ name: "test_image_content", arguments: {} }))).toMatchObject({ type: "image", mimeType: "image/png" })
    expect(text(await client.callTool({ name: "test_audio_content", arguments: {} }))).toMatchObject({ type: "audio", mimeType: "audio/wav" })
    expect(text(await client.callTool({ name: "test_embedded_resource", arguments: {} }))).toMatchObject({ type: "resource" })
    const mixed = await client.callTool({ name: "test_multiple_content_types", arguments: {} })
    expect((mixed.content as Array<{ type: string }>).map((c) => c.type)).toEqual(["text", "image", "resource"])
    const failed = await client.callTool({ name: "test_error_handling", arguments: {} })
    expect(failed.isError).toBe(true)
    const added = await client.callTool({ name: "add", arguments: { a: 2, b: 40 } })
    expect(added.structuredContent).toEqual({ sum: 42 })
  })

  it("mirrors x-mcp-header parameters, which the server checks", async () => {
    const result = await client.callTool({ name: "test_x_mcp_header", arguments: { region: "Hello, 世界" } })
    expect(text(result)).toEqual({ type: "text", text: "Region: Hello, 世界" })
  })

  it("receives progress over SSE before the result", async () => {
    const progress: Array<number> = []
    const result = await client.callTool({ name: "test_tool_with_progress", arguments: {} }, {
      onprogress: (update) => progress.push(update.progress)
    })
    expect(progress).toEqual([0, 50, 100])
    expect(text(result)?.type).toBe("text")
  })

  it("reads resources and templates", async () => {
    const { resources } = await client.listResources()
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(["test://static-text", "test://static-binary"]))
    const textual = await client.readResource({ uri: "test://static-text" })
    expect(textual.contents[0]).toMatchObject({ uri: "test://static-text", text: "This is the content of the static text resource." })
    const binary = await client.readResource({ uri: "test://static-binary" })
    expect(binary.contents[0]).toMatchObject({ mimeType: "image/png" })
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates[0]).toMatchObject({ uriTemplate: "test://template/{id}/data" })
    const templated = await client.readResource({ uri: "test://template/123/data" })
    expect(JSON.stringify(templated.contents)).toContain("123")
    await expect(client.readResource({ uri: "test://nonexistent" })).rejects.toMatchObject({ code: -32602 })
  })

  it("gets prompts and completes arguments", async () => {
    const { prompts } = await client.listPrompts()
    expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(["test_simple_prompt", "test_prompt_with_arguments"]))
    expect((await client.getPrompt({ name: "test_simple_prompt" })).messages.length).toBeGreaterThan(0)
    const withArgs = await client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "a", arg2: "b" } })
    expect(JSON.stringify(withArgs.messages)).toContain("a")
    expect((await client.getPrompt({ name: "test_prompt_with_embedded_resource", arguments: { resourceUri: "test://x" } })).messages.length).toBeGreaterThan(0)
    expect((await client.getPrompt({ name: "test_prompt_with_image" })).messages.length).toBeGreaterThan(0)
    const completion = await client.complete({ ref: { type: "ref/prompt", name: "test_prompt_with_arguments" }, argument: { name: "arg1", value: "" } })
    expect(Array.isArray(completion.completion.values)).toBe(true)
  })

  it("surfaces JSON-RPC errors as ProtocolError with their code", async () => {
    const unknown = await client.callTool({ name: "no_such_tool", arguments: {} }).catch((error: unknown) => error)
    expect(unknown).toBeInstanceOf(ProtocolError)
    expect((unknown as ProtocolError).code).toBe(-32602)
    const missing = await client.callTool({ name: "test_missing_capability", arguments: {} }).catch((error: unknown) => error)
    expect((missing as ProtocolError).code).toBe(-32021)
    const sampling = await connect({ sampling: {} })
    expect(text(await sampling.callTool({ name: "test_missing_capability", arguments: {} }))).toEqual({ type: "text", text: "Success" })
    await sampling.close()
  })

  it("aborting a call closes its stream, and the server interrupts the handler", async () => {
    const stats = async () => (await client.callTool({ name: "sleep_stats", arguments: {} })).structuredContent as { started: number; interrupted: number; completed: number }
    const before = await stats()
    const abort = new AbortController()
    const call = client.callTool({ name: "sleep", arguments: { ms: 10_000 } }, { signal: abort.signal, onprogress: () => undefined })
    await new Promise((resolve) => setTimeout(resolve, 300))
    abort.abort(new Error("stop"))
    await expect(call).rejects.toThrow()
    let after = await stats()
    for (let i = 0; i < 50 && after.interrupted === before.interrupted; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      after = await stats()
    }
    expect(after.started).toBe(before.started + 1)
    expect(after.interrupted).toBe(before.interrupted + 1)
    expect(after.completed).toBe(before.completed)
  })

  it("serves its skills to the official SkillsClient: every file verified, directories walked", async () => {
    const skills = new SkillsClient(client)
    expect([skills.supported, skills.directoryRead]).toEqual([true, true])
    const { invalid: refused, skills: entries } = await skills.list()
    expect(refused).toEqual([])
    expect(entries.map((skill) => skill.uri)).toEqual([
      "skill://acme/billing/refunds/SKILL.md",
      "skill://git-workflow/SKILL.md",
      "skill://pdf-processing/SKILL.md"
    ])
    for (const skill of entries) {
      if (skill.resources === "dynamic") throw new Error("expected a file list")
      for (const file of skill.resources) expect((await skills.read(skill, file.uri)).verified).toBe(true)
    }
    const templates = await skills.readDirectory("skill://pdf-processing/templates")
    expect(templates.resources.map((child) => [child.name, child.mimeType])).toEqual([["invoice.md", "text/markdown"], ["regional", "inode/directory"]])
    await expect(skills.get("skill://pdf-processing/references/FORMS.md")).rejects.toMatchObject({ code: -32602 })
  })

  it("every message the server wrote validates against the official schema", async () => {
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(written.length).toBeGreaterThan(30)
    expect(written.some(({ message }) => (message as { method?: string }).method === "notifications/progress")).toBe(true)
    expect(invalid).toEqual([])
  })
})
