/**
 * The client's API where an application meets it, against the everything server on a real HTTP
 * listener (port 0): a `ToolError` says what the server said; a tool without an output schema is
 * called typed; a declared failure still decodes from `structuredContent`; waiting for the next
 * listen change is one call (`nextChange`); `AiToolkit.makeWith` bridges a subset of the tools.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { FetchHttpClient, HttpServer } from "effect/http"
import * as NodeServe from "@snodo/http/NodeServe"
import { AiToolkit, McpClient, StreamableHttpClientTransport } from "@snodo/client"
import { serverLayerFor } from "../../examples/everything/server.ts"
import { handlers } from "./support/EverythingCalls.ts"

const overHttp = Layer.unwrap(Effect.gen(function*() {
  const server = yield* HttpServer.HttpServer
  if (server.address._tag === "UnixPathAddress") return yield* Effect.die("expected TCP")
  return McpClient.layer().pipe(
    Layer.provide(StreamableHttpClientTransport.layer({ url: `http://127.0.0.1:${server.address.port}/mcp` })),
    Layer.provide(FetchHttpClient.layer),
    Layer.provide(handlers)
  )
})).pipe(Layer.provide(NodeServe.layer({ port: 0, sessions: false }).pipe(Layer.provide(serverLayerFor(["2026-07-28"])))))

const NoInput = Schema.Struct({})

describe("the client's API", () => {
  it.live("a ToolError's message carries the server's text", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const error = yield* Effect.flip(client.call(McpClient.tool("test_error_handling", { input: NoInput }), {}))
      expect(error).toMatchObject({
        _tag: "ToolError",
        name: "test_error_handling",
        message: "test_error_handling failed: This tool intentionally returns an error for testing"
      })
    }).pipe(Effect.provide(overHttp)), 30_000)

  it.live("a tool that declares no output schema: the spec needs none, the call gives the CallToolResult", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const result = yield* client.call(McpClient.tool("test_simple_text", { input: NoInput }), {})
      expect(result.content).toEqual([{ type: "text", text: "This is a simple text response for testing." }])
    }).pipe(Effect.provide(overHttp)), 30_000)

  it.live("a declared failure decodes from structuredContent", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const Add = McpClient.tool("add", {
        input: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
        output: Schema.Struct({ sum: Schema.Number }),
        failure: Schema.Struct({ _tag: Schema.Literal("SumOverflow"), a: Schema.Number, b: Schema.Number })
      })
      expect(yield* client.call(Add, { a: 1, b: 2 })).toEqual({ sum: 3 })
      expect(yield* Effect.flip(client.call(Add, { a: 1e308, b: 1e308 }))).toEqual({ _tag: "SumOverflow", a: 1e308, b: 1e308 })
    }).pipe(Effect.provide(overHttp)), 30_000)

  it.live("nextChange: the next listen change in one call", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const next = yield* client.nextChange({ toolsListChanged: true })
      yield* client.callTool("test_trigger_prompt_change") // not asked for
      yield* client.callTool("test_trigger_tool_change")
      const change = yield* next
      expect(change).toMatchObject({ _tag: "ToolsListChanged", method: "notifications/tools/list_changed" })
    }).pipe(Effect.scoped, Effect.provide(overHttp)), 30_000)

  it.live("AiToolkit.makeWith bridges the tools picked, by name or by predicate", () =>
    Effect.gen(function*() {
      const byName = yield* AiToolkit.makeWith({ tools: ["add", "test_simple_text", "no_such_tool"] })
      expect(byName.tools.map((tool) => tool.name).toSorted()).toEqual(["add", "test_simple_text"])
      expect(Object.keys(byName.toolkit.tools).toSorted()).toEqual(["add", "test_simple_text"])
      const readOnly = yield* AiToolkit.makeWith({ tools: (tool) => tool.annotations?.readOnlyHint === true })
      expect(readOnly.tools.length).toBeGreaterThan(0)
      expect(readOnly.tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true)
      const all = yield* AiToolkit.make
      expect(all.tools.length).toBeGreaterThan(readOnly.tools.length)
    }).pipe(Effect.provide(overHttp)), 30_000)
})
