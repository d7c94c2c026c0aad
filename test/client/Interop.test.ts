/**
 * Interop: our client against servers we did not write, each over stdio and Streamable HTTP as
 * real child processes: the official TypeScript server 2.4.0 (`@modelcontextprotocol/server`) and
 * Effect's own `effect/ai` McpServer (4.1.0), both serving 2026-07-28 only (the bench's peers
 * with their `listen` catalog: `echo` and `publish`).
 */
import { spawn } from "node:child_process"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Schedule, Schema, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { McpClient, StdioClientTransport, StreamableHttpClientTransport } from "@snodo/client"
import * as FreePort from "../support/FreePort.ts"

const peers = {
  official: new URL("../../bench/peers/official.ts", import.meta.url).pathname,
  "effect/ai": new URL("../../bench/peers/effect-ai.ts", import.meta.url).pathname
} as const

const freePort = Effect.promise(FreePort.freePort)

/** The peer over HTTP as a child process of the scope, once it answers. */
const httpPeer = (script: string) =>
  Effect.gen(function*() {
    const port = yield* freePort
    yield* Effect.acquireRelease(
      Effect.sync(() => spawn(process.execPath, [script, "--http", "--port", String(port), "--tools", "listen"], { stdio: "ignore" })),
      (child) => Effect.sync(() => void child.kill())
    )
    const url = `http://127.0.0.1:${port}/mcp`
    yield* Effect.tryPromise(() => fetch(url, { method: "GET" })).pipe(
      Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 200 })
    )
    return url
  })

const overStdio = (script: string) =>
  McpClient.layer().pipe(Layer.provide(StdioClientTransport.layerNode({ command: process.execPath, args: [script, "--stdio", "--tools", "listen"] })))

const overHttp = (script: string) =>
  Layer.unwrap(Effect.map(httpPeer(script), (url) =>
    McpClient.layer().pipe(Layer.provide(StreamableHttpClientTransport.layer({ url })), Layer.provide(FetchHttpClient.layer))))

const Echo = McpClient.tool("echo", { input: Schema.Struct({ text: Schema.String }), output: Schema.Struct({ text: Schema.String }) })

const application = Effect.gen(function*() {
  const client = yield* McpClient
  expect(client.server.era).toBe("modern")
  expect(client.server.protocolVersion).toBe("2026-07-28")
  const names = (yield* client.listTools).map((tool) => tool.name)
  expect(names).toEqual(expect.arrayContaining(["echo", "publish"]))
  expect(yield* client.call(Echo, { text: "héllo" })).toEqual({ text: "héllo" })
  const raw = yield* client.callTool("echo", { text: "raw" })
  expect(raw.structuredContent).toEqual({ text: "raw" })
  return client
})

describe.each([["official"], ["effect/ai"]] as const)("interop with the %s server", (peer) => {
  it.live("over stdio: discover, list, typed call", () => Effect.asVoid(application).pipe(Effect.provide(overStdio(peers[peer]))), 60_000)

  it.live("over HTTP: discover, list, typed call, listen", () =>
    Effect.gen(function*() {
      const client = yield* application
      const changes = yield* client.listen({ toolsListChanged: true })
      const first = yield* Effect.forkChild(Stream.runHead(changes))
      yield* client.callTool("publish")
      const change = yield* Fiber.join(first)
      expect(change._tag === "Some" && change.value.method).toBe("notifications/tools/list_changed")
    }).pipe(Effect.scoped, Effect.provide(overHttp(peers[peer]))), 60_000)
})

describe("interop with the official server on 2025-11-25", () => {
  const dual = new URL("../support/OfficialDualServerMain.ts", import.meta.url).pathname

  it.live("a client that asks for 2025-11-25 gets the initialize era, and the same calls work", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      expect(client.server.era).toBe("legacy")
      expect(client.server.protocolVersion).toBe("2025-11-25")
      expect(client.server.serverInfo?.name).toBe("official-dual")
      expect(yield* client.call(Echo, { text: "héllo" })).toEqual({ text: "héllo" })
    }).pipe(Effect.provide(McpClient.layer({ protocolVersion: "2025-11-25" }).pipe(
      Layer.provide(StdioClientTransport.layerNode({ command: process.execPath, args: [dual] }))
    ))), 60_000)

  it.live("the default negotiation picks 2026-07-28 on the same dual-era server", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      expect(client.server.era).toBe("modern")
      expect(yield* client.call(Echo, { text: "x" })).toEqual({ text: "x" })
    }).pipe(Effect.provide(McpClient.layer().pipe(
      Layer.provide(StdioClientTransport.layerNode({ command: process.execPath, args: [dual] }))
    ))), 60_000)
})
