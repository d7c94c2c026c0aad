import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { McpLog, McpServer, Tool } from "@snodo/core"
import { McpTestClient } from "@snodo/testing"

const chatty = Tool.make("chatty", { input: Schema.Struct({}) }, () =>
  Effect.gen(function*() {
    yield* McpLog.log("debug", "fine detail")
    yield* McpLog.log("warning", { disk: "low" }, "storage")
    return "done"
  }))

const layerOf = (logging: boolean) =>
  McpTestClient.layer.pipe(Layer.provide(McpServer.make({ name: "logs", version: "1", logging }).add(chatty).layer))

const logFrames = (written: ReadonlyArray<unknown>) =>
  written.filter((frame) => (frame as { method?: string }).method === "notifications/message")

describe("McpLog", () => {
  it.effect("sends messages at or above the requested level, before the response", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      yield* client.callTool("chatty", {}, { meta: { "io.modelcontextprotocol/logLevel": "info" } })
      const written = client.written()
      expect(logFrames(written)).toEqual([
        { jsonrpc: "2.0", method: "notifications/message", params: { level: "warning", data: { disk: "low" }, logger: "storage" } }
      ])
      expect((written.at(-1) as { result?: unknown }).result).toBeDefined()
    }).pipe(Effect.provide(layerOf(true))))

  it.effect("sends nothing without a requested level", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      yield* client.callTool("chatty")
      expect(logFrames(client.written())).toEqual([])
    }).pipe(Effect.provide(layerOf(true))))

  it.effect("sends nothing and advertises no capability when logging is off", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      yield* client.callTool("chatty", {}, { meta: { "io.modelcontextprotocol/logLevel": "debug" } })
      expect(logFrames(client.written())).toEqual([])
      expect((yield* client.discover())["capabilities"]).toEqual({ tools: {} })
    }).pipe(Effect.provide(layerOf(false))))
})
