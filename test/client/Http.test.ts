/**
 * The client over Streamable HTTP against the everything server on a real listener (port 0), on
 * each era: the same application, input rounds (2026-07-28) and the server's own requests on the
 * POST's SSE stream (2025-11-25), progress, listen, and cancellation by interruption.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Stream } from "effect"
import { FetchHttpClient, HttpServer } from "effect/http"
import * as NodeServe from "@snodo/http/NodeServe"
import { McpClient, StreamableHttpClientTransport } from "@snodo/client"
import { serverLayerFor } from "../../examples/everything/server.ts"
import { handlers, interruptionCancels, Sleep, textOf } from "./support/EverythingCalls.ts"

/** A server on port 0 and a client connected to it over HTTP. */
const overHttp = (dialects: ReadonlyArray<"2026-07-28" | "2025-11-25">, sessions = dialects.includes("2025-11-25")) =>
  Layer.unwrap(Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    if (server.address._tag === "UnixPathAddress") return yield* Effect.die("expected TCP")
    const url = `http://127.0.0.1:${server.address.port}/mcp`
    return McpClient.layer().pipe(
      Layer.provide(StreamableHttpClientTransport.layer({ url })),
      Layer.provide(FetchHttpClient.layer),
      Layer.provide(handlers)
    )
  })).pipe(Layer.provide(NodeServe.layer({ port: 0, sessions }).pipe(Layer.provide(serverLayerFor(dialects)))))

describe.each([
  ["2026-07-28", ["2026-07-28", "2025-11-25"] as const, "modern"],
  ["2025-11-25", ["2025-11-25"] as const, "legacy"]
])("the client over HTTP, server speaking %s", (_name, dialects, era) => {
  it.live("negotiates, lists, calls, follows input, reports progress", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      expect(client.server.era).toBe(era)
      expect((yield* client.listTools)[0]?.name).toBe("test_simple_text")
      expect(textOf(yield* client.callTool("test_simple_text"))).toBe("This is a simple text response for testing.")
      expect(textOf(yield* client.callTool("test_input_required_result_multiple_inputs"))).toBe("Name: Ada; Greeting: Bonjour; Roots: 1")
      expect((yield* client.readResource("test://static-text")).contents[0]).toMatchObject({ text: "This is the content of the static text resource." })
      const seen: Array<number> = []
      expect(yield* client.call(Sleep, { ms: 250 }, { onProgress: (p) => Effect.sync(() => void seen.push(p.progress)) })).toEqual({ slept: 250 })
      expect(seen).toEqual([100, 200, 250])
    }).pipe(Effect.provide(overHttp(dialects))), 30_000)

  it.live("interrupting a call cancels it on the server", () =>
    interruptionCancels.pipe(Effect.provide(overHttp(dialects))), 30_000)
})

describe("routing headers over HTTP (2026-07-28)", () => {
  // The transport takes Mcp-Name and Mcp-Param-* from what the client says it sent, not from a
  // re-parse of the frame; a value that is not a string is taken as the body carries it (its JSON).
  it.live("Mcp-Name and Mcp-Param-* match the body the server reads, whatever the values were given as", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      yield* client.listTools // the tools' x-mcp-header declarations
      expect(textOf(yield* client.callTool("test_x_mcp_header", { region: "eu-west" }))).toBe("Region: eu-west")
      const region = { toJSON: () => "us-east" }
      expect(textOf(yield* client.callTool("test_x_mcp_header", { region }))).toBe("Region: us-east")
      const read = yield* client.request("resources/read", { uri: new URL("test://static-text") })
      expect(read["contents"]).toMatchObject([{ text: "This is the content of the static text resource." }])
    }).pipe(Effect.provide(overHttp(["2026-07-28"]))), 30_000)
})

describe("listen over HTTP (2026-07-28)", () => {
  it.live("a scoped stream of the changes asked for; closing the scope ends it", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const changes = yield* client.listen({ toolsListChanged: true })
      const first = yield* Effect.forkChild(Stream.runHead(changes))
      yield* client.callTool("test_trigger_prompt_change")
      yield* client.callTool("test_trigger_tool_change")
      const change = yield* Fiber.join(first)
      expect(change._tag === "Some" && change.value.method).toBe("notifications/tools/list_changed")
    }).pipe(Effect.scoped, Effect.provide(overHttp(["2026-07-28"]))), 30_000)
})
