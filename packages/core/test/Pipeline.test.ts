import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { McpServer, Tool } from "@snodo/core"
import { McpTestClient } from "@snodo/testing"

const echo = Tool.make("echo", {
  input: Schema.Struct({ text: Schema.String })
}, ({ text }) => Effect.succeed({ text }))

const Server = McpServer.make({ name: "pipeline", version: "1.0.0" }).add(echo)
const provide = Effect.provide(McpTestClient.layer.pipe(Layer.provide(Server.layer)))

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {}
}

const request = (body: Record<string, unknown>) => JSON.stringify({ jsonrpc: "2.0", ...body })

/** Sends raw text and returns the single frame written in answer (or none). */
const answer = (frame: string) =>
  Effect.gen(function*() {
    const client = yield* McpTestClient
    const written = yield* client.raw(frame)
    expect(written.length).toBeLessThanOrEqual(1)
    return written[0] as { id?: unknown; error?: { code: number; message: string; data?: unknown }; result?: unknown } | undefined
  })

describe("codec", () => {
  it.effect("refuses duplicate keys, trailing data and 65-digit integers with -32700 and no id", () =>
    Effect.gen(function*() {
      for (const frame of ['{"a":1,"a":2}', '{"jsonrpc":"2.0"} x', `{"id":${"1".repeat(65)}}`, "", "{"]) {
        const response = yield* answer(frame)
        expect(response?.error?.code).toBe(-32700)
        expect(response).not.toHaveProperty("id")
      }
    }).pipe(provide))

  it.effect("refuses batches with -32600", () =>
    Effect.gen(function*() {
      const response = yield* answer(`[${request({ id: 1, method: "tools/list", params: { _meta: meta } })}]`)
      expect(response?.error?.code).toBe(-32600)
      expect(response).not.toHaveProperty("id")
    }).pipe(provide))

  it.effect("refuses bad ids with -32600 and never echoes them", () =>
    Effect.gen(function*() {
      for (const id of [null, 1.5, true, { a: 1 }, "x".repeat(257), "9223372036854775808"]) {
        const raw = typeof id === "string" && /^\d+$/.test(id)
          ? `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{}}`
          : request({ id, method: "tools/list", params: { _meta: meta } })
        const response = yield* answer(raw)
        expect(response?.error?.code).toBe(-32600)
        expect(response).not.toHaveProperty("id")
      }
    }).pipe(provide))

  it.effect("echoes int64 ids beyond the safe range exactly", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const raw = `{"jsonrpc":"2.0","id":9223372036854775807,"method":"server/discover","params":${JSON.stringify({ _meta: meta })}}`
      const before = client.frames().length
      yield* client.raw(raw)
      expect(client.frames().length).toBe(before + 1)
      expect(client.frames()[before]).toMatch(/^\{"jsonrpc":"2.0","id":9223372036854775807,"result":/)
    }).pipe(provide))

  it.effect("accepts a 256-byte string id", () =>
    Effect.gen(function*() {
      const id = "é".repeat(128)
      const response = yield* answer(request({ id, method: "server/discover", params: { _meta: meta } }))
      expect(response?.id).toBe(id)
      expect(response?.error).toBeUndefined()
    }).pipe(provide))

  it.effect("answers non-object params with -32602 and the id", () =>
    Effect.gen(function*() {
      const response = yield* answer(request({ id: 7, method: "tools/list", params: [1] }))
      expect(response?.error?.code).toBe(-32602)
      expect(response?.id).toBe(7)
    }).pipe(provide))

  it.effect("never answers responses or notifications", () =>
    Effect.gen(function*() {
      expect(yield* answer(request({ id: 1, result: {} }))).toBeUndefined()
      expect(yield* answer(request({ id: 1, error: { code: 1, message: "x" } }))).toBeUndefined()
      expect(yield* answer(request({ method: "notifications/whatever", params: {} }))).toBeUndefined()
      expect(yield* answer(JSON.stringify({ jsonrpc: "1.0", method: "x" }))).toBeUndefined()
    }).pipe(provide))

  it.effect("refuses jsonrpc other than 2.0 with -32600", () =>
    Effect.gen(function*() {
      const response = yield* answer(JSON.stringify({ jsonrpc: "1.0", id: 3, method: "tools/list", params: {} }))
      expect(response?.error?.code).toBe(-32600)
      expect(response?.id).toBe(3)
    }).pipe(provide))
})

describe("admission", () => {
  const call = (params: Record<string, unknown>, method = "tools/list") => answer(request({ id: 1, method, params }))

  it.effect("requires protocolVersion and clientCapabilities", () =>
    Effect.gen(function*() {
      expect((yield* call({}))?.error?.code).toBe(-32602)
      expect((yield* call({ _meta: "x" }))?.error?.code).toBe(-32602)
      expect((yield* call({ _meta: { "io.modelcontextprotocol/clientCapabilities": {} } }))?.error?.code).toBe(-32602)
      expect((yield* call({ _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }))?.error?.code).toBe(-32602)
      expect((yield* call({ _meta: { ...meta, "io.modelcontextprotocol/clientCapabilities": [] } }))?.error?.code).toBe(-32602)
    }).pipe(provide))

  it.effect("answers an unknown version with -32022 and what is supported", () =>
    Effect.gen(function*() {
      const response = yield* call({ _meta: { ...meta, "io.modelcontextprotocol/protocolVersion": "2025-11-25" } })
      expect(response?.error?.code).toBe(-32022)
      expect(response?.error?.data).toEqual({ supported: ["2026-07-28"], requested: "2025-11-25" })
    }).pipe(provide))

  it.effect("validates clientInfo, logLevel, key grammar and progress tokens", () =>
    Effect.gen(function*() {
      const bad = [
        { "io.modelcontextprotocol/clientInfo": { name: "x" } },
        { "io.modelcontextprotocol/clientInfo": "x" },
        { "io.modelcontextprotocol/logLevel": "verbose" },
        { "-bad/key": 1 },
        { "com.example/-x": 1 },
        { progressToken: 1.5 },
        { progressToken: "t".repeat(257) },
        { progressToken: null }
      ]
      for (const extra of bad) {
        expect((yield* call({ _meta: { ...meta, ...extra } }))?.error?.code).toBe(-32602)
      }
      const good = [
        { "io.modelcontextprotocol/clientInfo": { name: "x", version: "1" } },
        { "io.modelcontextprotocol/logLevel": "debug" },
        { "com.example/trace": 1 },
        { progressToken: 12 },
        { progressToken: "t".repeat(256) }
      ]
      for (const extra of good) {
        expect((yield* call({ _meta: { ...meta, ...extra } }))?.error).toBeUndefined()
      }
    }).pipe(provide))

  it.effect("answers removed, unknown and capability-less methods with -32601", () =>
    Effect.gen(function*() {
      for (const method of ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "nope", "prompts/list", "resources/read", "completion/complete"]) {
        expect((yield* call({ _meta: meta }, method))?.error?.code).toBe(-32601)
      }
      const initialize = yield* call({}, "initialize")
      expect(initialize?.error?.message).toContain("2026-07-28")
    }).pipe(provide))
})

describe("tools", () => {
  it.effect("validation failures are isError results that name the path, not the value", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const result = yield* client.callTool("echo", { text: "secret-value".length })
      expect(result.isError).toBe(true)
      const text = JSON.stringify(result.content)
      expect(text).toContain("/text")
      expect(text).not.toContain("12")
    }).pipe(provide))

  it.effect("an unknown tool is -32602", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const error = yield* Effect.flip(client.callTool("nope"))
      expect(error.code).toBe(-32602)
    }).pipe(provide))

  it.effect("every result carries resultType, serverInfo and list cache hints", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const list = yield* client.request("tools/list")
      expect(list.resultType).toBe("complete")
      expect(list["_meta"]).toEqual({ "io.modelcontextprotocol/serverInfo": { name: "pipeline", version: "1.0.0" } })
      expect(list["ttlMs"]).toBe(0)
      expect(list["cacheScope"]).toBe("private")
      const call = yield* client.callTool("echo", { text: "hi" })
      expect(call.structuredContent).toEqual({ text: "hi" })
      expect(call["ttlMs"]).toBeUndefined()
    }).pipe(provide))
})
