/**
 * The everything server as a real child process over stdio, driven by the official MCP client
 * 2.4.0 pinned to 2026-07-28. Every message the server writes is validated against schema.json.
 */
import { Client, ProtocolError } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { record, type WireRecorder } from "../support/WireRecorder.ts"
import { sourceCondition } from "../support/Sources.ts"

const serverArgs = [sourceCondition, "examples/everything/main.mjs", "--stdio"]

let client: Client
let wire: WireRecorder

beforeAll(async () => {
  client = new Client({ name: "snodo-e2e", version: "0.1.0" }, {
    capabilities: { sampling: {} },
    versionNegotiation: { mode: { pin: "2026-07-28" } }
  })
  const transport = new StdioClientTransport({ command: process.execPath, args: serverArgs, stderr: "pipe" })
  wire = record(transport)
  await client.connect(transport)
})

afterAll(async () => {
  await client?.close()
})

describe("everything over stdio with the official client", () => {
  it("negotiates 2026-07-28 and discovers the server", async () => {
    expect(client.getProtocolEra()).toBe("modern")
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
    const discovered = await client.discover()
    // the everything server enables the initialize era too (2026-07-28 preferred)
    expect(discovered.supportedVersions).toEqual(["2026-07-28", "2025-11-25"])
    expect(Object.keys(discovered.capabilities).toSorted()).toEqual(["completions", "extensions", "logging", "prompts", "resources", "tools"])
    expect(client.getServerVersion()?.name).toBe("snodo-everything")
  })

  it("lists every tool, test_simple_text first", async () => {
    const { tools } = await client.listTools()
    const names = tools.map((tool) => tool.name)
    expect(names[0]).toBe("test_simple_text")
    for (const name of ["test_image_content", "test_audio_content", "test_embedded_resource", "test_multiple_content_types",
      "test_tool_with_progress", "test_error_handling", "json_schema_2020_12_tool", "test_missing_capability",
      "test_streaming_elicitation", "test_logging_tool", "test_x_mcp_header", "echo", "add", "sleep", "sleep_stats"]) {
      expect(names).toContain(name)
    }
    for (const tool of tools) expect(tool.description).toBeTruthy()
    const jsonSchemaTool = tools.find((tool) => tool.name === "json_schema_2020_12_tool")
    expect(jsonSchemaTool?.inputSchema["$schema"]).toBe("https://json-schema.org/draft/2020-12/schema")
    expect(jsonSchemaTool?.inputSchema["additionalProperties"]).toBe(false)
  })

  it("calls every content tool", async () => {
    const text = await client.callTool({ name: "test_simple_text" })
    expect(text.content).toEqual([{ type: "text", text: "This is a simple text response for testing." }])
    const image = await client.callTool({ name: "test_image_content", arguments: {} })
    expect(image.content[0]).toMatchObject({ type: "image", mimeType: "image/png" })
    const audio = await client.callTool({ name: "test_audio_content", arguments: {} })
    expect(audio.content[0]).toMatchObject({ type: "audio", mimeType: "audio/wav" })
    const embedded = await client.callTool({ name: "test_embedded_resource", arguments: {} })
    expect(embedded.content[0]).toMatchObject({ type: "resource", resource: { uri: "test://embedded-resource", text: "This is an embedded resource content." } })
    const multiple = await client.callTool({ name: "test_multiple_content_types", arguments: {} })
    expect(multiple.content.map((block) => block.type)).toEqual(["text", "image", "resource"])
    const failing = await client.callTool({ name: "test_error_handling", arguments: {} })
    expect(failing.isError).toBe(true)
    expect(failing.content).toEqual([{ type: "text", text: "This tool intentionally returns an error for testing" }])
  })

  it("calls typed tools with structured content", async () => {
    const echo = await client.callTool({ name: "echo", arguments: { text: "hello" } })
    expect(echo.structuredContent).toEqual({ text: "hello" })
    const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 40 } })
    expect(sum.structuredContent).toEqual({ sum: 42 })
    const invalid = await client.callTool({ name: "add", arguments: { a: "two", b: 40 } })
    expect(invalid.isError).toBe(true)
    const schemaTool = await client.callTool({ name: "json_schema_2020_12_tool", arguments: { contactMethod: "email", email: "a@b.c" } })
    expect(schemaTool.content[0]).toMatchObject({ type: "text" })
    const refused = await client.callTool({ name: "json_schema_2020_12_tool", arguments: { contactMethod: "phone" } })
    expect(refused.isError).toBe(true)
    const header = await client.callTool({ name: "test_x_mcp_header", arguments: { region: "eu" } })
    expect(header.content).toEqual([{ type: "text", text: "Region: eu" }])
  })

  it("answers capability-gated and unknown tools with protocol errors", async () => {
    const missing = await client.callTool({ name: "test_missing_capability", arguments: {} })
    expect(missing.content).toEqual([{ type: "text", text: "Success" }])
    const unknown = await client.callTool({ name: "nope", arguments: {} }).catch((error: unknown) => error)
    expect(unknown).toBeInstanceOf(ProtocolError)
    expect((unknown as ProtocolError).code).toBe(-32602)
  })

  it("runs progress and diagnostic tools", async () => {
    const progressed = await client.callTool({ name: "test_tool_with_progress", arguments: {} })
    expect(progressed.content[0]).toMatchObject({ type: "text" })
    const streaming = await client.callTool({ name: "test_streaming_elicitation", arguments: {} })
    expect(streaming.content).toEqual([{ type: "text", text: "Streaming complete" }])
    const logging = await client.callTool({ name: "test_logging_tool", arguments: {} })
    expect(logging.content).toEqual([{ type: "text", text: "Logging evaluated" }])
    const slept = await client.callTool({ name: "sleep", arguments: { ms: 10 } })
    expect(slept.structuredContent).toEqual({ slept: 10 })
    const stats = await client.callTool({ name: "sleep_stats", arguments: {} })
    expect(stats.structuredContent).toMatchObject({ started: 1, completed: 1 })
  })

  it("reads every resource and the template", async () => {
    const { resources } = await client.listResources()
    // the fixtures, then each skill's SKILL.md (the Skills extension)
    expect(resources.map((resource) => resource.uri)).toEqual([
      "test://static-text",
      "test://static-binary",
      "ui://everything/calculator.html",
      "skill://acme/billing/refunds/SKILL.md",
      "skill://git-workflow/SKILL.md",
      "skill://pdf-processing/SKILL.md"
    ])
    const text = await client.readResource({ uri: "test://static-text" })
    expect(text.contents).toEqual([{ uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." }])
    const binary = await client.readResource({ uri: "test://static-binary" })
    expect(binary.contents[0]).toMatchObject({ uri: "test://static-binary", mimeType: "image/png" })
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(["test://template/{id}/data", "skill://{+path}"])
    const templated = await client.readResource({ uri: "test://template/123/data" })
    expect(JSON.parse((templated.contents[0] as { text: string }).text)).toEqual({ id: "123", templateTest: true, data: "Data for ID: 123" })
    const unknown = await client.readResource({ uri: "test://nonexistent" }).catch((error: unknown) => error)
    expect((unknown as ProtocolError).code).toBe(-32602)
    expect((unknown as ProtocolError).data).toEqual({ uri: "test://nonexistent" })
  })

  it("gets every prompt and completes an argument", async () => {
    const { prompts } = await client.listPrompts()
    expect(prompts.map((prompt) => prompt.name)).toEqual(expect.arrayContaining([
      "test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image"
    ]))
    const simple = await client.getPrompt({ name: "test_simple_prompt" })
    expect(simple.messages).toEqual([{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }])
    const withArgs = await client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "testValue1", arg2: "testValue2" } })
    expect(withArgs.messages[0]?.content).toEqual({ type: "text", text: "Prompt with arguments: arg1='testValue1', arg2='testValue2'" })
    const embedded = await client.getPrompt({ name: "test_prompt_with_embedded_resource", arguments: { resourceUri: "test://example-resource" } })
    expect(embedded.messages).toHaveLength(2)
    const image = await client.getPrompt({ name: "test_prompt_with_image" })
    expect(image.messages[0]?.content).toMatchObject({ type: "image", mimeType: "image/png" })
    const missing = await client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "x" } }).catch((error: unknown) => error)
    expect((missing as ProtocolError).code).toBe(-32602)
    const completion = await client.complete({ ref: { type: "ref/prompt", name: "test_prompt_with_arguments" }, argument: { name: "arg1", value: "test" } })
    expect(completion.completion.values).toEqual(["testValue1", "testValue2", "test"])
    expect(completion.completion.hasMore).toBe(false)
  })

  it("wrote only schema-valid messages", () => {
    expect(wire.messages.length).toBeGreaterThan(20)
    expect(wire.violations()).toEqual([])
  })
})
