import { describe, expect, it } from "@effect/vitest"
import * as Method from "@snodo/protocol/methods/Method"
import { Effect, Layer, Schema } from "effect"
import { McpError, McpServer, Tool } from "@snodo/core"
import { Dialect, Dialect2025_11_25, Dialect2026_07_28, DialectRegistry } from "@snodo/core/dialect"
import { Extension, Route, RouteTable } from "@snodo/core/extension"
import { McpTestClient } from "@snodo/testing"

/** A test-only revision: no client capabilities required, but a `com.example/tenant` key is. */
const TestDialect: Dialect.Dialect = {
  ...Dialect2026_07_28,
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
    Layer.provide(DialectRegistry.layer(dialects))
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
    }).pipe(withDialects([Dialect2026_07_28, TestDialect])))

  it.effect("a dialect that is not registered is -32022, whatever packages exist", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const refused = yield* Effect.flip(client.callTool("echo", { text: "hi" }, testMeta({ "com.example/tenant": "t1" })))
      expect(refused.code).toBe(-32022)
      expect(refused.data).toEqual({ supported: ["2026-07-28"], requested: "2099-01-01-test" })
    }).pipe(withDialects([Dialect2026_07_28])))
})

describe("the route table per dialect", () => {
  const method = (name: string) => Method.request({ name, params: Schema.Struct({}), result: Schema.Struct({}) })
  const Own = Route.make({ method: method("example/own"), run: () => Effect.succeed(Route.acknowledged) })
  const wrapped = Route.make({ method: method("example/shared"), run: () => Effect.succeed(Route.result({ by: "dialect" })) })
  const extension: RouteTable.Contributed = {
    name: "com.example/ext",
    contribution: {
      routes: [Own],
      wraps: [Extension.wrap(wrapped, (route) => ({ ...route, nameParam: "wrapped" }))]
    }
  }
  const Modern: Dialect.Dialect = { ...Dialect2026_07_28, version: "2099-01-01", routes: [wrapped] }
  const Closed: Dialect.Dialect = { ...Modern, version: "2099-02-02", extensions: false }
  const table = RouteTable.make({ dialects: [Modern, Closed], extensions: [extension], offers: () => true })

  it("gives a dialect that takes no extensions neither their methods nor their wraps", () => {
    expect(table.lookup(Modern, "example/own")?.extension).toBe("com.example/ext")
    expect(table.lookup(Modern, "example/shared")?.route.nameParam).toBe("wrapped")
    expect(table.lookup(Closed, "example/own")).toBeUndefined()
    expect(table.lookup(Closed, "example/shared")?.route).toBe(wrapped)
  })

  it("composes the wraps of several extensions on one route, in the order they were added", () => {
    const mark = (by: string) => (route: Route.Route<unknown, unknown>): Route.Route<unknown, unknown> => ({
      ...route,
      nameParam: `${route.nameParam ?? "dialect"} < ${by}`
    })
    const first: RouteTable.Contributed = { name: "com.example/first", contribution: { wraps: [Extension.wrap(wrapped, mark("first"))] } }
    const second: RouteTable.Contributed = { name: "com.example/second", contribution: { wraps: [Extension.wrap(wrapped, mark("second"))] } }
    const both = RouteTable.make({ dialects: [Modern], extensions: [first, second], offers: () => true })
    expect(both.lookup(Modern, "example/shared")?.route.nameParam).toBe("dialect < first < second")
  })

  it("answers -32601 naming the dialect that removed a method", () => {
    expect(table.notFound("initialize", Modern).message).toBe(
      "Method not found: initialize is not part of MCP 2099-01-01 (stateless; supported versions: 2099-01-01, 2099-02-02); initialize-era clients (MCP 2025-11-25) are served once the server enables that dialect: McpServer.make({ dialects: [\"2026-07-28\", \"2025-11-25\"] })"
    )
    const legacy = RouteTable.make({ dialects: [Dialect2026_07_28, Dialect2025_11_25], extensions: [], offers: () => true })
    expect(legacy.notFound("subscriptions/listen", Dialect2025_11_25).message).toBe(
      "Method not found: subscriptions/listen is not part of MCP 2025-11-25 (initialize-era; supported versions: 2026-07-28, 2025-11-25)"
    )
    expect(legacy.serves("initialize")).toBe(true)
  })

  it.effect("refuses a registry naming a version twice (a typed failure, no throw), and lists the initialize-era dialects apart", () =>
    Effect.gen(function*() {
      const twice = yield* Effect.flip(DialectRegistry.make([Dialect2026_07_28, Dialect2026_07_28]))
      expect(twice._tag).toBe("ConfigurationError")
      expect(twice.message).toContain("each once")
      const unknown = yield* Effect.flip(Layer.build(DialectRegistry.layer(["1999-01-01" as DialectRegistry.BuiltInVersion])))
      expect(unknown.message).toContain("unknown version 1999-01-01")
      const both = yield* DialectRegistry.make([Dialect2026_07_28, Dialect2025_11_25])
      expect(both.legacy.map((dialect) => dialect.version)).toEqual(["2025-11-25"])
      expect(DialectRegistry.defaultRegistry.legacy).toEqual([])
      expect(DialectRegistry.defaultRegistry.supported).toEqual(["2026-07-28"])
    }).pipe(Effect.scoped))
})

describe("the dialects option", () => {
  it.effect("enables the built-in versions it names, preferred first, over a registry in context", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      expect((yield* client.discover())["supportedVersions"]).toEqual(["2026-07-28", "2025-11-25"])
    }).pipe(Effect.provide(McpTestClient.layer.pipe(
      Layer.provide(McpServer.make({ name: "x", version: "1", dialects: ["2026-07-28", "2025-11-25"] }).add(echo).layer),
      Layer.provide(DialectRegistry.layer([Dialect2026_07_28, TestDialect]))
    ))))

  it.effect("an empty list, or a version twice, fails the Layer", () =>
    Effect.gen(function*() {
      const empty = yield* Effect.flip(Layer.build(McpServer.make({ name: "x", version: "1", dialects: [] }).layer))
      expect(empty.message).toContain("name at least one version")
      const twice = yield* Effect.flip(Layer.build(McpServer.make({ name: "x", version: "1", dialects: ["2026-07-28", Dialect2026_07_28] }).layer))
      expect(twice.message).toContain("each once")
    }).pipe(Effect.scoped))
})

describe("McpServer.add and McpServer.extend in a pipe", () => {
  const ping = Tool.make("ping", { input: Schema.Struct({}) }, () => Effect.succeed("pong"))
  const noop = Extension.make({ name: "com.example/noop", make: () => Effect.succeed({}) })

  it.effect("add and extend (data-last and data-first) build the same definition as the methods", () =>
    Effect.gen(function*() {
      const piped = McpServer.make({ name: "p", version: "1" }).pipe(McpServer.add(ping), McpServer.extend(noop))
      const direct = McpServer.extend(McpServer.make({ name: "p", version: "1" }).add(ping), noop)
      expect(piped.components).toEqual([ping])
      expect(piped.extensions.map((extension) => extension.name)).toEqual(["com.example/noop"])
      expect(direct.extensions.map((extension) => extension.name)).toEqual(["com.example/noop"])
      const twice = yield* Effect.flip(Layer.build(piped.pipe(McpServer.extend(noop)).layer))
      expect(twice._tag).toBe("ConfigurationError")
      expect(twice.message).toBe(`Extension "com.example/noop" is added to this server twice`)
    }).pipe(Effect.scoped))
})
