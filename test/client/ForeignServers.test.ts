/**
 * Our client against servers we did not write, each a real child process over stdio and over
 * Streamable HTTP (loopback): the official TypeScript server 2.4.0 in both of its set-ups (the
 * 2.x `serveStdio` / `createMcpHandler`, and its README's `StdioServerTransport` / stateless
 * `NodeStreamableHTTPServerTransport`), Effect's own `effect/ai` McpServer, and the Python SDK 2.3.0
 * server (`MCPServer`). Each asserts the era it negotiated, a typed call, and how a tool's failure
 * reaches the application: a `ToolError` that carries the server's text, or the declared failure
 * decoded from the text content (effect/ai writes it as JSON). test/client/Interop.test.ts covers
 * listen against the official and effect/ai servers.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Layer, Schedule, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { McpClient, StdioClientTransport, StreamableHttpClientTransport } from "@snodo/client"
import * as FreePort from "../support/FreePort.ts"
import { pythonWithMcp } from "./support/Python.ts"

const support = (file: string) => new URL(`./support/${file}`, import.meta.url).pathname

/** How to start a server: the command and its arguments before the transport's own. */
interface Server {
  readonly command: () => string
  readonly args: ReadonlyArray<string>
}

const servers = {
  "official (serveStdio / createMcpHandler)": { command: () => process.execPath, args: [support("OfficialServerMain.ts"), "handler"] },
  "official (README: StdioServerTransport / stateless HTTP)": { command: () => process.execPath, args: [support("OfficialServerMain.ts"), "readme"] },
  "effect/ai": { command: () => process.execPath, args: [support("EffectAiServerMain.ts")] },
  "Python SDK 2.3.0": { command: pythonWithMcp, args: [support("python_server.py")] }
} as const satisfies Record<string, Server>

/** The server over HTTP as a child process of the scope, once it answers. */
const httpServer = (server: Server) =>
  Effect.gen(function*() {
    const port = yield* Effect.promise(FreePort.freePort)
    yield* Effect.acquireRelease(
      Effect.sync((): ChildProcess => spawn(server.command(), [...server.args, "--http", "--port", String(port)], { stdio: "ignore" })),
      (child) => Effect.sync(() => void child.kill())
    )
    const url = `http://127.0.0.1:${port}/mcp`
    yield* Effect.tryPromise(() => fetch(url, { method: "GET" })).pipe(Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 300 }))
    return url
  })

/** A long probe timeout: connecting well within it shows an answer to the probe was not waited out. */
const options = { probeTimeout: "60 seconds" } as const

const overStdio = (server: Server) =>
  Layer.unwrap(Effect.sync(() =>
    McpClient.layer(options).pipe(Layer.provide(StdioClientTransport.layerNode({ command: server.command(), args: [...server.args, "--stdio"] })))
  ))

const overHttp = (server: Server) =>
  Layer.unwrap(Effect.map(httpServer(server), (url) =>
    McpClient.layer(options).pipe(Layer.provide(StreamableHttpClientTransport.layer({ url })), Layer.provide(FetchHttpClient.layer))))

const Echo = McpClient.tool("echo", { input: Schema.Struct({ text: Schema.String }), output: Schema.Struct({ text: Schema.String }) })

const transports = [["stdio", overStdio], ["HTTP", overHttp]] as const

describe.each(transports)("foreign servers over %s", (_transport, over) => {
  it.live("official 2.4.0 (serveStdio / createMcpHandler): 2026-07-28; echo typed; a tool without output schema; a failure's text", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      expect(client.server).toMatchObject({ era: "modern", protocolVersion: "2026-07-28", serverInfo: { name: "official-handler" } })
      expect(yield* client.call(Echo, { text: "héllo" })).toEqual({ text: "héllo" })
      const plain = yield* client.call(McpClient.tool("plain", { input: Schema.Struct({ text: Schema.String }) }), { text: "x" })
      expect(plain.content).toEqual([{ type: "text", text: "plain: x" }])
      const failed = yield* Effect.flip(client.call(McpClient.tool("fail", { input: Schema.Struct({ reason: Schema.String }) }), { reason: "no" }))
      expect(failed).toMatchObject({ _tag: "ToolError", name: "fail", message: "fail failed: refused: no" })
    }).pipe(Effect.provide(over(servers["official (serveStdio / createMcpHandler)"]))), 60_000)

  it.live("official 2.4.0 as its README sets it up: falls back to 2025-11-25 at once; the same calls", () =>
    Effect.gen(function*() {
      const start = yield* Clock.currentTimeMillis
      yield* Effect.gen(function*() {
        const client = yield* McpClient
        const connectMs = (yield* Clock.currentTimeMillis) - start
        expect(client.server).toMatchObject({ era: "legacy", protocolVersion: "2025-11-25", serverInfo: { name: "official-readme" } })
        // the server refuses server/discover at once (over HTTP: 400 with a null id); the 60 s probe is not waited out
        expect(connectMs).toBeLessThan(30_000)
        expect(yield* client.call(Echo, { text: "héllo" })).toEqual({ text: "héllo" })
        const failed = yield* Effect.flip(client.call(McpClient.tool("fail", { input: Schema.Struct({ reason: Schema.String }) }), { reason: "no" }))
        expect(failed.message).toBe("fail failed: refused: no")
      }).pipe(Effect.provide(over(servers["official (README: StdioServerTransport / stateless HTTP)"])))
    }), 60_000)

  it.live("effect/ai McpServer: 2026-07-28; echo typed; a declared failure decoded from the JSON text", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      expect(client.server).toMatchObject({ era: "modern", protocolVersion: "2026-07-28", serverInfo: { name: "effect-ai-interop" } })
      expect(yield* client.call(Echo, { text: "héllo" })).toEqual({ text: "héllo" })
      const Divide = McpClient.tool("divide", {
        input: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
        output: Schema.Struct({ quotient: Schema.Number }),
        failure: Schema.Struct({ _tag: Schema.Literal("DivisionByZero"), dividend: Schema.Number })
      })
      expect(yield* client.call(Divide, { a: 6, b: 3 })).toEqual({ quotient: 2 })
      expect(yield* Effect.flip(client.call(Divide, { a: 6, b: 0 }))).toEqual({ _tag: "DivisionByZero", dividend: 6 })
      // without the failure declared: a ToolError whose message is the server's text
      const undeclared = yield* Effect.flip(client.call(McpClient.tool("divide", { input: Divide.input }), { a: 1, b: 0 }))
      expect(undeclared._tag === "ToolError" && undeclared.message).toContain("DivisionByZero")
    }).pipe(Effect.provide(over(servers["effect/ai"]))), 60_000)

  it.live("Python SDK 2.3.0 MCPServer: 2026-07-28; echo typed; a failure's text", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      expect(client.server).toMatchObject({ era: "modern", protocolVersion: "2026-07-28", serverInfo: { name: "python-interop" } })
      expect(yield* client.call(Echo, { text: "héllo" })).toEqual({ text: "héllo" })
      const failed = yield* Effect.flip(client.call(McpClient.tool("fail", { input: Schema.Struct({ reason: Schema.String }) }), { reason: "no" }))
      expect(failed).toMatchObject({ _tag: "ToolError", message: "fail failed: Error executing tool fail: refused: no" })
      // a failure schema of the text itself: what the Python SDK says, decoded
      const Fail = McpClient.tool("fail", { input: Schema.Struct({ reason: Schema.String }), failure: Schema.String })
      expect(yield* Effect.flip(client.call(Fail, { reason: "why" }))).toBe("Error executing tool fail: refused: why")
    }).pipe(Effect.provide(over(servers["Python SDK 2.3.0"]))), 600_000)
})
