import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { Dialect, McpError, McpServer, Tool } from "@snodo/core"
import { McpTestClient } from "@snodo/testing"

/** A test-only revision: no client capabilities required, but a `com.example/tenant` key is. */
const TestDialect: Dialect.Dialect = {
  ...Dialect.Dialect2026_07_28,
  version: "2099-01-01-test",
  admit: (meta) =>
    typeof meta["com.example/tenant"] !== "string"
      ? new McpError.InvalidParams({ message: "Invalid _meta: com.example/tenant is required by 2099-01-01-test" })
      : {
        protocolVersion: "2099-01-01-test",
        clientCapabilities: {},
        clientInfo: undefined,
        logLevel: undefined,
        progressToken: undefined,
        raw: meta
      }
}

const echo = Tool.make("echo", { input: Schema.Struct({ text: Schema.String }) }, ({ text }) => Effect.succeed(text))
const server = McpServer.make({ name: "dialects", version: "1" }).add(echo)

const withDialects = (dialects: ReadonlyArray<Dialect.Dialect>) =>
  Effect.provide(McpTestClient.layer.pipe(
    Layer.provide(server.layer),
    Layer.provide(Dialect.DialectRegistry.layer(dialects))
  ))

const testMeta = (extra: Record<string, unknown>) => ({ meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01-test", ...extra } })

describe("dialect registry", () => {
  it.effect("an enabled test dialect admits by its own rules, beside 2026-07-28", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const discovered = yield* client.discover()
      expect(discovered["supportedVersions"]).toEqual(["2026-07-28", "2099-01-01-test"])
      const ok = yield* client.callTool("echo", { text: "hi" }, testMeta({ "com.example/tenant": "t1" }))
      expect(ok.content).toEqual([{ type: "text", text: "hi" }])
      const refused = yield* Effect.flip(client.callTool("echo", { text: "hi" }, testMeta({})))
      expect(refused.code).toBe(-32602)
      expect(refused.message).toContain("com.example/tenant")
      // the 2026-07-28 rules still apply to 2026-07-28 requests
      expect((yield* client.callTool("echo", { text: "x" })).content).toEqual([{ type: "text", text: "x" }])
    }).pipe(withDialects([Dialect.Dialect2026_07_28, TestDialect])))

  it.effect("a dialect that is not registered is -32022, whatever packages exist", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const refused = yield* Effect.flip(client.callTool("echo", { text: "hi" }, testMeta({ "com.example/tenant": "t1" })))
      expect(refused.code).toBe(-32022)
      expect(refused.data).toEqual({ supported: ["2026-07-28"], requested: "2099-01-01-test" })
    }).pipe(withDialects([Dialect.Dialect2026_07_28])))
})
