/**
 * The client on the in-memory transport against the everything server, on both eras: the same
 * application code (typed calls, lists, reads, prompts, multi-round input through the handlers)
 * runs against 2026-07-28 and against a server that only speaks 2025-11-25.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Schema, Stream } from "effect"
import { McpServer, Tool } from "@snodo/core"
import { InputHandlers, McpClient } from "@snodo/client"
import { InMemoryTransport } from "@snodo/testing"
import { TestClock } from "effect/testing"
import { serverLayerFor } from "../../../examples/everything/server.ts"

const handlers = InputHandlers.layer({
  elicit: (request) =>
    Effect.succeed(
      request.mode === "url"
        ? { action: "accept" }
        : { action: "accept", content: "name" in request.requestedSchema.properties ? { name: "Ada" } : { ok: true, color: "green", context: "tests", value: "v" } }
    ),
  sample: () => Effect.succeed({ role: "assistant", content: { type: "text", text: "Bonjour" }, model: "scripted" }),
  roots: Effect.succeed([{ uri: "file:///workspace", name: "workspace" }])
})

const clientOn = (dialects: ReadonlyArray<"2026-07-28" | "2025-11-25">) =>
  McpClient.layer().pipe(Layer.provide(InMemoryTransport.layer), Layer.provide(serverLayerFor(dialects)), Layer.provide(handlers))

const textOf = (result: { readonly content?: ReadonlyArray<unknown> }): string =>
  (result.content?.[0] as { readonly text?: string } | undefined)?.text ?? ""

const Add = McpClient.tool("add", {
  input: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  output: Schema.Struct({ sum: Schema.Number })
})

/** The application: one program, whatever the era. */
const application = Effect.gen(function*() {
  const client = yield* McpClient
  const tools = yield* client.listTools
  const simple = yield* client.callTool("test_simple_text")
  const failed = yield* client.callTool("test_error_handling")
  const elicited = yield* client.callTool("test_input_required_result_elicitation")
  const multiple = yield* client.callTool("test_input_required_result_multiple_inputs")
  const read = yield* client.readResource("test://static-text")
  const prompt = yield* client.getPrompt("test_prompt_with_arguments", { arg1: "x", arg2: "y" })
  return { client, tools, simple, failed, elicited, multiple, read, prompt }
})

describe.each([
  ["2026-07-28", ["2026-07-28", "2025-11-25"] as const, "modern"],
  ["2025-11-25", ["2025-11-25"] as const, "legacy"]
])("the client in memory, server speaking %s", (_name, dialects, era) => {
  it.effect("negotiates the era and runs the same application", () =>
    Effect.gen(function*() {
      const { client, tools, simple, failed, elicited, multiple, read, prompt } = yield* application
      expect(client.server.era).toBe(era)
      expect(client.server.serverInfo?.name).toBe("snodo-everything")
      expect(tools[0]?.name).toBe("test_simple_text")
      expect(tools.map((tool) => tool.name)).toContain("add")
      expect(simple.resultType).toBe("complete")
      expect(textOf(simple)).toBe("This is a simple text response for testing.")
      expect(failed.isError).toBe(true)
      expect(textOf(elicited)).toBe("Hello, Ada!")
      expect(textOf(multiple)).toBe("Name: Ada; Greeting: Bonjour; Roots: 1")
      expect(read.contents[0]).toMatchObject({ uri: "test://static-text", text: "This is the content of the static text resource." })
      expect(JSON.stringify(prompt.messages)).toContain("arg1='x'")
    }).pipe(Effect.provide(clientOn(dialects))))

  it.effect("typed calls encode the input and decode structuredContent", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const { sum } = yield* client.call(Add, { a: 2, b: 40 })
      expect(sum).toBe(42)
      const wrongOutput = McpClient.tool("add", { input: Add.input, output: Schema.Struct({ total: Schema.Number }) })
      const exit = yield* Effect.exit(client.call(wrongOutput, { a: 1, b: 1 }))
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("InvalidResult")
    }).pipe(Effect.provide(clientOn(dialects))))

  it.effect("paginated lists are Streams", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const names = yield* Stream.runCollect(Stream.map(client.list("prompts"), (prompt) => prompt.name))
      expect(names).toContain("test_simple_prompt")
    }).pipe(Effect.provide(clientOn(dialects))))
})

describe("multi-round input", () => {
  it.effect("a request for input without a handler fails with MissingHandler", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const exit = yield* Effect.exit(client.callTool("test_input_required_result_sampling"))
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("MissingHandler")
    }).pipe(Effect.provide(McpClient.layer().pipe(Layer.provide(InMemoryTransport.layer), Layer.provide(serverLayerFor(["2026-07-28"]))))))

  it.effect("requestState is echoed across rounds (multi_round, request_state)", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      expect(textOf(yield* client.callTool("test_input_required_result_request_state"))).toContain("state-ok")
      expect(textOf(yield* client.callTool("test_input_required_result_multi_round"))).toContain("Ada")
    }).pipe(Effect.provide(clientOn(["2026-07-28"]))))
})

describe("the result cache", () => {
  const Cached = McpServer.make({
    name: "cached",
    version: "1.0.0",
    cache: { "server/discover": { ttlMs: 60_000, cacheScope: "public" }, "tools/list": { ttlMs: 1_000, cacheScope: "private" } }
  }).add(Tool.make("noop", { input: Schema.Struct({}) }, () => Effect.succeed("ok")))
  const on = (cache: boolean) => McpClient.layer({ cache }).pipe(Layer.provide(InMemoryTransport.layer), Layer.provide(Cached.layer))
  const page = (client: McpClient["Service"]) => Stream.runCollect(client.list("tools"))

  it.effect("discover and lists are served from the cache while their ttlMs lasts, then asked again", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const discovered = yield* client.discover
      expect(discovered.ttlMs).toBe(60_000)
      expect(yield* client.discover).toBe(discovered)
      const tools = yield* page(client)
      expect((yield* page(client))[0]).toBe(tools[0])
      yield* TestClock.adjust("1001 millis")
      const fresh = yield* page(client)
      expect(fresh[0]).not.toBe(tools[0])
      expect(fresh[0]).toEqual(tools[0])
      expect(yield* client.discover).toBe(discovered)
    }).pipe(Effect.provide(on(true))))

  it.effect("with the cache off every call asks the server", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      expect(yield* client.discover).not.toBe(yield* client.discover)
    }).pipe(Effect.provide(on(false))))
})

describe("listen in memory", () => {
  it.effect.each([["2026-07-28"], ["2025-11-25"]] as const)("change notifications arrive on a scoped stream (%s)", ([dialect]) =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const changes = yield* client.listen({ promptsListChanged: true })
      const first = yield* Effect.forkChild(Stream.runHead(changes))
      yield* client.callTool("test_trigger_tool_change")
      yield* client.callTool("test_trigger_prompt_change")
      const change = yield* Fiber.join(first)
      expect(change._tag === "Some" && change.value.method).toBe("notifications/prompts/list_changed")
      expect(change._tag === "Some" && change.value._tag).toBe("PromptsListChanged")
    }).pipe(Effect.scoped, Effect.provide(clientOn([dialect]))))

  it.effect.each([["2026-07-28"], ["2025-11-25"]] as const)("a resource update arrives typed, with its uri, only for the resource asked for (%s)", ([dialect]) =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const changes = yield* client.listen({ resourceSubscriptions: ["test://watched"] })
      const first = yield* Effect.forkChild(Stream.runHead(changes))
      yield* client.callTool("test_trigger_resource_update", { uri: "test://other" })
      yield* client.callTool("test_trigger_resource_update", { uri: "test://watched" })
      const change = yield* Fiber.join(first)
      expect(change._tag === "Some" && change.value._tag === "ResourceUpdated" ? change.value.uri : undefined).toBe("test://watched")
    }).pipe(Effect.scoped, Effect.provide(clientOn([dialect]))))
})

describe("every MRTR fixture of the everything server, on both eras", () => {
  const fullHandlers = InputHandlers.layer({
    elicit: (request) =>
      Effect.succeed(request.mode === "url" ? { action: "accept" } : {
        action: "accept",
        content: { name: "Ada", color: "green", ok: true, confirmed: true, context: "tests", value: "v" }
      }),
    sample: () => Effect.succeed({ role: "assistant", content: { type: "text", text: "Paris" }, model: "scripted" }),
    roots: Effect.succeed([{ uri: "file:///a", name: "a" }, { uri: "file:///b", name: "b" }])
  })
  const on = (dialects: ReadonlyArray<"2026-07-28" | "2025-11-25">) =>
    McpClient.layer().pipe(Layer.provide(InMemoryTransport.layer), Layer.provide(serverLayerFor(dialects)), Layer.provide(fullHandlers))

  it.effect.each([["2026-07-28"], ["2025-11-25"]] as const)("answers each with the same handlers (%s)", ([dialect]) =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const texts: Record<string, string> = {}
      for (const name of ["elicitation", "sampling", "list_roots", "request_state", "multiple_inputs", "multi_round", "tampered_state", "capabilities"]) {
        texts[name] = textOf(yield* client.callTool(`test_input_required_result_${name}`))
      }
      expect(texts).toEqual({
        elicitation: "Hello, Ada!",
        sampling: "Sampling result: Paris",
        list_roots: "Found 2 root(s)",
        // the initialize era carries no requestState: the server asks by a request of its own
        request_state: dialect === "2026-07-28" ? expect.stringContaining("state-ok") : "Confirmed without requestState",
        multiple_inputs: "Name: Ada; Greeting: Paris; Roots: 2",
        multi_round: "Multi-round complete for Ada who likes green",
        tampered_state: dialect === "2026-07-28" ? expect.stringContaining("integrity-ok") : "Confirmed without requestState",
        capabilities: expect.stringContaining("capabilities-ok")
      })
      const prompt = yield* client.getPrompt("test_input_required_result_prompt")
      expect(JSON.stringify(prompt.messages)).toContain("Prompt with context: tests")
    }).pipe(Effect.provide(on([dialect]))))
})
