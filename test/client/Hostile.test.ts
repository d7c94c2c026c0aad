/**
 * Issue 38, the rows that are about time rather than memory (C3's `overflow: "fail"`, C5, C6, C7,
 * C8's tasks, C10): a hostile server written for the test, as a child process (stdio) or on a
 * loopback port (HTTP), and the client in this process. Each asserts the typed error and its
 * message, the time to fail after the fault, and that the same connection (or a well-behaved
 * server) keeps working.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Stream } from "effect"
import { FetchHttpClient, HttpServer } from "effect/http"
import { NodeServices } from "@effect/platform-node"
import * as NodeServe from "@snodo/http/NodeServe"
import { InputHandlers, McpClient, type McpClientModule, StdioClientTransport, StreamableHttpClientTransport } from "@snodo/client"
import { serverLayerFor } from "../../examples/everything/server.ts"
import * as HostileHttpServer from "./support/HostileHttpServer.ts"

const hostile = new URL("./support/HostileStdioServer.mjs", import.meta.url).pathname

const overStdio = (scenario: string, options?: McpClientModule.Options, count = 1000, onStderr?: (line: string) => void) =>
  McpClient.layer(options).pipe(Layer.provide(StdioClientTransport.layerNode({
    command: process.execPath,
    args: [hostile, scenario, String(count)],
    ...(onStderr === undefined ? {} : { onStderr })
  })))

const httpServer = (scenario: HostileHttpServer.Scenario) =>
  Effect.acquireRelease(Effect.promise(() => HostileHttpServer.start(scenario)), (server) => Effect.promise(server.close))

const overHttp = (url: string, options?: McpClientModule.Options) =>
  McpClient.layer(options).pipe(Layer.provide(StreamableHttpClientTransport.layer({ url })), Layer.provide(FetchHttpClient.layer))

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E | undefined =>
  Exit.isFailure(exit) ? exit.cause.reasons.flatMap((reason) => reason._tag === "Fail" ? [reason.error] : [])[0] : undefined

const callTool = (name: string, options?: McpClientModule.RequestOptions) =>
  Effect.gen(function*() {
    const client = yield* McpClient
    return yield* client.callTool(name, {}, options)
  })

const elicitCalls = { count: 0 }
const decline = InputHandlers.layer({ elicit: () => Effect.sync(() => void elicitCalls.count++).pipe(Effect.as({ action: "decline" as const })) })

describe("the client against a hostile server: bounded waits (issue 38)", () => {
  it.live("C3: a listen with overflow: \"fail\" fails with Overflow once its buffer is full", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const changes = yield* client.listen({ toolsListChanged: true }, { buffer: 16, overflow: "fail" })
      // the application does not read while the server floods; then it reads
      yield* Effect.sleep("1 second")
      const exit = yield* Effect.exit(Stream.runDrain(changes))
      const error = failureOf(exit)
      expect(error?._tag).toBe("Overflow")
      expect(error?.message).toContain("16 changes were waiting (buffer)")
      yield* client.ping
    }).pipe(Effect.scoped, Effect.provide(overStdio("listen-flood", undefined, 10_000))), 30_000)

  it.live("C5: a result sent on an SSE stream the server leaves open is delivered at once", () =>
    Effect.gen(function*() {
      const server = yield* httpServer("result-then-open")
      const started = Date.now()
      const result = yield* Effect.provide(
        Effect.gen(function*() {
          const client = yield* McpClient
          return yield* client.callTool("answer")
        }),
        overHttp(server.url, { requestTimeout: "20 seconds" })
      )
      expect(result.content).toEqual([{ type: "text", text: "the answer" }])
      expect(Date.now() - started).toBeLessThan(2000)
      // the client closed the stream once it had the answer
      yield* Effect.sleep("200 millis")
      expect(server.seen.closedStreams).toBe(1)
    }).pipe(Effect.scoped), 30_000)

  it.live("C6: a listen stream outlives requestTimeout (our everything server over HTTP)", () =>
    Effect.gen(function*() {
      const address = (yield* HttpServer.HttpServer).address
      const url = address._tag === "UnixPathAddress" ? "" : `http://127.0.0.1:${address.port}/mcp`
      yield* Effect.gen(function*() {
        const client = yield* McpClient
        const changes = yield* client.listen({ toolsListChanged: true })
        const first = yield* Effect.forkChild(Stream.runHead(changes))
        yield* Effect.sleep("2500 millis") // 2.5 × requestTimeout
        yield* client.callTool("test_trigger_tool_change")
        const change = yield* Fiber.join(first)
        expect(change._tag === "Some" && change.value.method).toBe("notifications/tools/list_changed")
      }).pipe(Effect.scoped, Effect.provide(overHttp(url, { requestTimeout: "1 second" })))
    }).pipe(Effect.provide(NodeServe.layer({ port: 0 }).pipe(Layer.provide(serverLayerFor(["2026-07-28"]))))), 30_000)

  it.live("C7: closing the client does not wait for a DELETE the server never answers", () =>
    Effect.gen(function*() {
      const server = yield* httpServer("legacy-no-delete")
      yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient
        expect(client.server.era).toBe("legacy")
        yield* client.ping
      }).pipe(Effect.provide(McpClient.layer().pipe(
        Layer.provide(StreamableHttpClientTransport.layer({ url: server.url, closeTimeout: "500 millis" })),
        Layer.provide(FetchHttpClient.layer)
      ))))
      expect(server.seen.deletes).toBe(1)
    }).pipe(
      Effect.scoped,
      Effect.timeoutOrElse({ duration: "5 seconds", orElse: () => Effect.die("closing the client waited for the DELETE") })
    ), 30_000)

  it.live.each(["layerNode", "layer"] as const)("C7: closing a stdio client (%s) ends a child that ignores SIGTERM and its stdin closing", (which) =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const options = { command: process.execPath, args: [hostile, "ignores-signals"], shutdownMillis: 300, onStderr: (line: string) => void lines.push(line) }
      const transport = which === "layerNode"
        ? StdioClientTransport.layerNode(options)
        : StdioClientTransport.layer(options).pipe(Layer.provide(NodeServices.layer))
      const started = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* McpClient
        yield* client.ping
        return Date.now()
      }).pipe(Effect.provide(McpClient.layer().pipe(Layer.provide(transport)))))
      // layerNode: stdin closed, 300 ms, SIGTERM (ignored), 300 ms, SIGKILL; layer: SIGTERM, 300 ms, SIGKILL
      expect(Date.now() - started).toBeLessThan(2000)
      // layerNode still reads stderr while it closes; layer stops reading it first
      if (which === "layerNode") expect(lines).toContain("seen SIGTERM")
    }).pipe(Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.die("closing waited for the child") })), 30_000)

  it.live("C8: a task asking a new question on every poll fails with TooManyRounds after maxRounds, and is cancelled", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      elicitCalls.count = 0
      const exit = yield* Effect.exit(callTool("asks").pipe(
        Effect.provide(overStdio("task-asks", { maxRounds: 3 }, 0, (line) => void lines.push(line))),
        Effect.provide(decline)
      ))
      const error = failureOf(exit)
      expect(error?._tag).toBe("TooManyRounds")
      expect(error?.message).toBe("Task task-1 still asked for input after 3 rounds (maxRounds); it was cancelled")
      expect(elicitCalls.count).toBe(3)
      expect(lines).toContain("seen tasks/cancel")
    }), 30_000)

  it.live("C8: callTool waits for a task working forever at most taskTimeout, then cancels it", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const started = Date.now()
      const exit = yield* Effect.exit(callTool("forever", { taskTimeout: "1 second" }).pipe(
        Effect.provide(overStdio("task-forever", undefined, 0, (line) => void lines.push(line)))
      ))
      const error = failureOf(exit)
      expect(error?._tag).toBe("TransportError")
      expect(error?.message).toBe("Task task-1 did not finish within 1000 ms (taskTimeout); it was cancelled")
      expect(Date.now() - started).toBeLessThan(3000)
      expect(lines).toContain("seen tasks/cancel")
    }), 30_000)

  it.live.each([
    ["deep", 100_000, "Parse error: nesting too deep"],
    ["duplicate-key", 0, "Parse error: duplicate object key"]
  ] as const)("C10: an answer the strict parser refuses (%s) ends its request at once, with the reason", ([scenario, count, reason]) =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const started = Date.now()
      const exit = yield* Effect.exit(client.callTool("refused"))
      const error = failureOf(exit)
      expect(error?._tag).toBe("TransportError")
      expect(error?.message).toContain(`The server's answer to tools/call was refused (${reason})`)
      expect(error?.message).toContain(`HostileStdioServer.mjs ${scenario}`)
      expect(Date.now() - started).toBeLessThan(2000)
      // the connection goes on
      yield* client.ping
    }).pipe(Effect.provide(overStdio(scenario, { requestTimeout: "30 seconds" }, count))), 30_000)
})
