/**
 * The client over stdio: the everything server as a real child process, on each era; progress,
 * cancellation by interruption (the server's `sleep` sees its fiber interrupted), stderr and the
 * exit of the process as a typed failure.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { McpClient, StdioClientTransport } from "@snodo/client"
import { sourceCondition } from "../support/Sources.ts"
import { handlers, interruptionCancels, Sleep, textOf } from "./support/EverythingCalls.ts"

const everything = new URL("../../examples/everything/main.mjs", import.meta.url).pathname

const overStdio = (dialects: string) =>
  McpClient.layer().pipe(
    Layer.provide(StdioClientTransport.layerNode({ command: process.execPath, args: [sourceCondition, everything, "--stdio", "--dialects", dialects] })),
    Layer.provide(handlers)
  )

describe.each([
  ["2026-07-28", "modern"],
  ["2025-11-25", "legacy"]
])("the client over stdio, server speaking %s", (dialects, era) => {
  it.live("negotiates, calls tools, follows input rounds, reports progress", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      expect(client.server.era).toBe(era)
      expect(textOf(yield* client.callTool("test_simple_text"))).toBe("This is a simple text response for testing.")
      expect(textOf(yield* client.callTool("test_input_required_result_multiple_inputs"))).toBe("Name: Ada; Greeting: Bonjour; Roots: 1")
      const seen: Array<number> = []
      const slept = yield* client.call(Sleep, { ms: 250 }, { onProgress: (progress) => Effect.sync(() => void seen.push(progress.progress)) })
      expect(slept).toEqual({ slept: 250 })
      expect(seen).toEqual([100, 200, 250])
    }).pipe(Effect.provide(overStdio(dialects))), 30_000)

  it.live("interrupting a call cancels it on the server", () =>
    interruptionCancels.pipe(Effect.provide(overStdio(dialects))), 30_000)
})

describe("the stdio transport's failures", () => {
  it.live("a server that exits fails the connection with its exit code and stderr", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const layer = McpClient.layer({ protocolVersion: "2026-07-28" }).pipe(Layer.provide(StdioClientTransport.layerNode({
        command: process.execPath,
        args: ["-e", "process.stderr.write('no configuration found\\n'); process.exit(3)"],
        onStderr: (line) => void lines.push(line)
      })))
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(layer)))
      expect(Exit.isFailure(exit)).toBe(true)
      const text = JSON.stringify(exit)
      expect(text).toContain("\"reason\":\"Exited\"")
      expect(text).toContain("\"exitCode\":3")
      expect(text).toContain("no configuration found")
      expect(lines).toEqual(["no configuration found"])
    }), 30_000)

  it.live("a line longer than maxLineBytes ends the connection with a typed error, naming the bound", () =>
    Effect.gen(function*() {
      // The "server" answers the probe with a 4 KiB line that never ends, then waits.
      const layer = McpClient.layer({ protocolVersion: "2026-07-28" }).pipe(Layer.provide(StdioClientTransport.layerNode({
        command: process.execPath,
        args: ["-e", "process.stdin.once('data', () => process.stdout.write('x'.repeat(4096))); setTimeout(() => {}, 30000)"],
        maxLineBytes: 1024
      })))
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(layer)))
      expect(Exit.isFailure(exit)).toBe(true)
      const text = JSON.stringify(exit)
      expect(text).toContain("\"reason\":\"Closed\"")
      expect(text).toContain("longer than 1024 bytes (maxLineBytes)")
    }), 30_000)
})
