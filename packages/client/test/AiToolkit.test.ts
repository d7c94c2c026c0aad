/**
 * The effect/ai bridge against the everything server (in memory): the server's tools become an
 * `effect/ai` Toolkit with their names, descriptions and JSON Schemas, whose handlers call the
 * server.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { Tool } from "effect/ai"
import { AiToolkit, McpClient } from "@snodo/client"
import { InMemoryTransport } from "@snodo/testing"
import { serverLayerFor } from "../../../examples/everything/server.ts"

const ClientLayer = McpClient.layer().pipe(Layer.provide(InMemoryTransport.layer), Layer.provide(serverLayerFor(["2026-07-28"])))

const resultOf = (handled: unknown): unknown => (handled as { readonly result?: unknown } | undefined)?.result

describe("AiToolkit", () => {
  it.effect("bridges every tool: name, description, JSON Schema, a handler that calls the server", () =>
    Effect.gen(function*() {
      const { handlers, toolkit, tools } = yield* AiToolkit.make
      const add = toolkit.tools["add"]
      expect(Object.keys(toolkit.tools)).toEqual(tools.map((tool) => tool.name))
      expect(add === undefined ? undefined : Tool.getDescription(add)).toBe(tools.find((tool) => tool.name === "add")?.description)
      expect(add === undefined ? undefined : Tool.getJsonSchema(add)).toMatchObject({ type: "object", properties: { a: {}, b: {} } })
      const withHandlers = yield* Effect.provide(toolkit, handlers)
      const results = yield* Stream.runCollect(yield* withHandlers.handle("add", { a: 2, b: 3 }))
      expect(resultOf(results.at(-1))).toEqual({ sum: 5 })
      const failed = yield* Stream.runCollect(yield* withHandlers.handle("test_error_handling", {}))
      expect(JSON.stringify(resultOf(failed.at(-1)))).toContain("intentionally returns an error")
    }).pipe(Effect.provide(ClientLayer)))
})
