import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { Completion, Content, McpError, McpServer, Prompt, Resource, ResourceTemplate, Tool, ToolResult } from "@snodo/core"
import { McpTestClient } from "@snodo/testing"

class Boom extends Schema.TaggedError<Boom>()("Boom", { message: Schema.String }) {}

const tools = [
  Tool.make("wrong_output", { input: Schema.Struct({}), output: Schema.Struct({ n: Schema.Finite }) },
    () => Effect.succeed({ n: "not a number" } as unknown as { n: number })),
  Tool.make("no_structured", { input: Schema.Struct({}), output: Schema.Struct({ n: Schema.Finite }) },
    () => Effect.succeed(ToolResult.content([Content.text("no structured content")]))),
  Tool.make("typed_failure", { input: Schema.Struct({}) }, () => Effect.fail(new Boom({ message: "secret detail" }))),
  Tool.make("rendered_failure", { input: Schema.Struct({}), onFailure: (error: Boom) => ToolResult.error(`rendered: ${error.message}`) },
    () => Effect.fail(new Boom({ message: "visible" }))),
  Tool.make("protocol_failure", { input: Schema.Struct({}) },
    () => Effect.fail(McpError.ApplicationError.of(-32001, "Quota exceeded", { retryAfterMs: 5 }))),
  Tool.make("defect", { input: Schema.Struct({}) }, () => Effect.die(new Error("stack and secrets"))),
  Tool.make("thrown", { input: Schema.Struct({}) }, () => Effect.sync(() => {
    throw new Error("thrown secret")
  })),
  Tool.make("raw", {
    inputSchema: { type: "object", properties: { n: { type: "integer", minimum: 1 } }, required: ["n"] }
  }, (args) => Effect.succeed({ doubled: Number(args["n"]) * 2 })),
  Tool.make("plain_string", { input: Schema.Struct({}) }, () => Effect.succeed("just text")),
  Tool.make("plain_array", { input: Schema.Struct({}) }, () => Effect.succeed([1, 2]))
]

const readme = Resource.make({ uri: "file:///readme", name: "readme" },
  () => Effect.succeed(Content.textContents("file:///readme", "hi")))

const users = ResourceTemplate.make({
  uriTemplate: "users://{id}/profile",
  name: "user",
  complete: { id: () => Effect.succeed(Array.from({ length: 150 }, (_, i) => `u${i}`)) }
}, ({ uri, variables }) => Effect.succeed(variables["id"] === "ghost" ? undefined : Content.textContents(uri, String(variables["id"]))))

const greet = Prompt.make("greet", {
  description: "Greets",
  arguments: { name: { required: true }, mood: {} },
  complete: { mood: Completion.fromList(["happy", "hungry", "sad"]) }
}, ({ name, mood }) => Effect.succeed([Prompt.user(`Hello ${name} (${mood ?? "calm"})`)]))

const Server = McpServer.make({ name: "handlers", version: "1.0.0", cache: { "resources/read": { ttlMs: 1000, cacheScope: "public" } } })
  .add(...tools, readme, users, greet)
const provide = Effect.provide(McpTestClient.layer.pipe(Layer.provide(Server.layer)))

describe("tool results", () => {
  it.effect("output that violates the output schema is -32603", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      expect((yield* Effect.flip(client.callTool("wrong_output"))).code).toBe(-32603)
      expect((yield* Effect.flip(client.callTool("no_structured"))).code).toBe(-32603)
    }).pipe(provide))

  it.effect("typed failures become isError results naming only the tag, unless rendered", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const failure = yield* client.callTool("typed_failure")
      expect(failure.isError).toBe(true)
      expect(JSON.stringify(failure.content)).toContain("Boom")
      expect(JSON.stringify(failure.content)).not.toContain("secret detail")
      const rendered = yield* client.callTool("rendered_failure")
      expect(rendered.content).toEqual([{ type: "text", text: "rendered: visible" }])
      const protocol = yield* Effect.flip(client.callTool("protocol_failure"))
      expect(protocol.code).toBe(-32001)
      expect(protocol.data).toEqual({ retryAfterMs: 5 })
    }).pipe(provide))

  it.effect("defects become a generic -32603 without the exception text", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      for (const name of ["defect", "thrown"]) {
        const error = yield* Effect.flip(client.callTool(name))
        expect(error.code).toBe(-32603)
        expect(error.message).toBe("Internal error")
        expect(JSON.stringify(client.written().at(-1))).not.toMatch(/secret|stack/)
      }
    }).pipe(provide))

  it.effect("raw JSON Schema inputs are validated by the basic backend", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      expect((yield* client.callTool("raw", { n: 2 })).structuredContent).toEqual({ doubled: 4 })
      const refused = yield* client.callTool("raw", { n: 0 })
      expect(refused.isError).toBe(true)
      expect(JSON.stringify(refused.content)).toContain("/n")
    }).pipe(provide))

  it.effect("plain values: strings are text, non-objects are JSON text without structuredContent", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      expect((yield* client.callTool("plain_string")).content).toEqual([{ type: "text", text: "just text" }])
      const array = yield* client.callTool("plain_array")
      expect(array.content).toEqual([{ type: "text", text: "[1,2]" }])
      expect(array.structuredContent).toBeUndefined()
    }).pipe(provide))

  it.effect("arguments that are not an object are -32602", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const error = yield* Effect.flip(client.request("tools/call", { name: "raw", arguments: [1] }))
      expect(error.code).toBe(-32602)
    }).pipe(provide))
})

describe("resources", () => {
  it.effect("reads exact resources and templates, with cache hints", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const read = yield* client.readResource("file:///readme")
      expect(read["contents"]).toEqual([{ uri: "file:///readme", text: "hi" }])
      expect(read["ttlMs"]).toBe(1000)
      expect(read["cacheScope"]).toBe("public")
      const templated = yield* client.readResource("users://ada/profile")
      expect(templated["contents"]).toEqual([{ uri: "users://ada/profile", text: "ada" }])
    }).pipe(provide))

  it.effect("unknown resources are -32602 with the uri; relative URIs are -32602", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      for (const uri of ["users://ghost/profile", "nope://x"]) {
        const error = yield* Effect.flip(client.readResource(uri))
        expect(error.code).toBe(-32602)
        expect(error.message).toBe("Resource not found")
        expect(error.data).toEqual({ uri })
      }
      expect((yield* Effect.flip(client.readResource("relative/path"))).code).toBe(-32602)
    }).pipe(provide))

  it.effect("refuses overlapping templates and resources a template matches", () =>
    Effect.gen(function*() {
      const a = ResourceTemplate.make({ uriTemplate: "x://{a}/b", name: "a" }, () => Effect.succeed(undefined))
      const b = ResourceTemplate.make({ uriTemplate: "x://c/{b}", name: "b" }, () => Effect.succeed(undefined))
      const overlap = yield* Effect.flip(Layer.build(McpServer.make({ name: "x", version: "1" }).add(a, b).layer))
      expect(overlap.message).toContain("overlaps")
      const exact = Resource.make({ uri: "x://c/b", name: "c" }, () => Effect.succeed(Content.textContents("x://c/b", "")))
      const clash = yield* Effect.flip(Layer.build(McpServer.make({ name: "x", version: "1" }).add(a, exact).layer))
      expect(clash.message).toContain("also matched")
    }).pipe(Effect.scoped))
})

describe("prompts and completions", () => {
  it.effect("renders prompts and checks required arguments first", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const got = yield* client.getPrompt("greet", { name: "Ada" })
      expect(got["messages"]).toEqual([{ role: "user", content: { type: "text", text: "Hello Ada (calm)" } }])
      expect(got["description"]).toBe("Greets")
      const missing = yield* Effect.flip(client.getPrompt("greet", {}))
      expect(missing.code).toBe(-32602)
      expect(missing.message).toContain("name")
      expect((yield* Effect.flip(client.getPrompt("nope"))).code).toBe(-32602)
      expect((yield* Effect.flip(client.request("prompts/get", { name: "greet", arguments: { name: 1 } }))).code).toBe(-32602)
    }).pipe(provide))

  it.effect("completes prompt arguments and template variables, capped at 100", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const mood = yield* client.complete({ type: "ref/prompt", name: "greet" }, { name: "mood", value: "h" })
      expect(mood["completion"]).toEqual({ values: ["happy", "hungry"], total: 2, hasMore: false })
      const ids = yield* client.complete({ type: "ref/resource", uri: "users://{id}/profile" }, { name: "id", value: "" })
      const completion = ids["completion"] as { values: Array<string>; total: number; hasMore: boolean }
      expect(completion.values).toHaveLength(100)
      expect(completion.total).toBe(150)
      expect(completion.hasMore).toBe(true)
      const none = yield* client.complete({ type: "ref/prompt", name: "greet" }, { name: "name", value: "" })
      expect(none["completion"]).toEqual({ values: [], total: 0, hasMore: false })
      expect((yield* Effect.flip(client.complete({ type: "ref/prompt", name: "nope" }, { name: "x", value: "" }))).code).toBe(-32602)
    }).pipe(provide))

  it.effect("discover advertises exactly the capabilities registered", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const discovered = yield* client.discover()
      expect(discovered["capabilities"]).toEqual({ tools: {}, resources: {}, prompts: {}, completions: {} })
    }).pipe(provide))
})
