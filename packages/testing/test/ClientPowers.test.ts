/**
 * The test client is `@snodo/client`'s client: typed calls through a `ToolSpec`, task handles and
 * `callTool` waiting a task out, next to the one-round-trip methods a server's tests use.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { McpClient } from "@snodo/client"
import { McpTestClient } from "@snodo/testing"
import { serverLayerFor } from "../../../examples/everything/server.ts"

const TestLayer = McpTestClient.layer.pipe(Layer.provide(serverLayerFor(["2026-07-28"])))

const Add = McpClient.tool("add", {
  input: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
  output: Schema.Struct({ sum: Schema.Number })
})

describe("McpTestClient as @snodo/client's client", () => {
  it.effect("typed results: call decodes structuredContent; lists are typed", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      expect(yield* client.call(Add, { a: 20, b: 22 })).toEqual({ sum: 42 })
      const tools = yield* client.listTools
      expect(tools.find((tool) => tool.name === "add")?.inputSchema).toMatchObject({ type: "object" })
    }).pipe(Effect.provide(TestLayer)))

  it.live("task helpers: startTool hands back a task, await gives its result", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const started = yield* client.startTool("slow_compute", { seconds: 0.1, label: "e" })
      if (started._tag !== "Task") return expect.unreachable()
      const result = yield* started.task.await
      expect(result.content[0]).toEqual({ type: "text", text: "Computed e after 0.1s" })
      // the one-round-trip method shows the server's answer as written: a task
      const raw = yield* client.callTool("slow_compute", { seconds: 0.1 }, { capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } })
      expect(raw.resultType).toBe("task")
    }).pipe(Effect.provide(TestLayer)), 30_000)
})
