/**
 * A server that answers the wrong shape: the client checks every result against its method's
 * entry in the method table, and the call fails with a typed `InvalidResult` naming the method and
 * the path, over a real stdio boundary (a child process written for the test).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { McpClient, StdioClientTransport } from "@snodo/client"

/** Answers discover as a 2026-07-28 server, then gives `tools/list` a `tools` that is not a list. */
const server = `
const readline = require("node:readline")
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line)
  if (message.id === undefined) return
  const result = message.method === "server/discover"
    ? { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, ttlMs: 0, cacheScope: "public" }
    : message.method === "tools/list"
    ? { resultType: "complete", tools: "none", ttlMs: 0, cacheScope: "public" }
    : { resultType: "complete", content: [{ type: "text", text: 42 }] }
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }) + "\\n")
})
`

const client = McpClient.layer().pipe(
  Layer.provide(StdioClientTransport.layerNode({ command: process.execPath, args: ["-e", server] }))
)

describe("a result of the wrong shape", () => {
  it.live("fails the call with InvalidResult, naming the method and the path", () =>
    Effect.gen(function*() {
      const mcp = yield* McpClient
      const listed = yield* Effect.flip(mcp.listTools)
      expect(listed).toMatchObject({ _tag: "InvalidResult", method: "tools/list", path: "tools" })
      expect(listed.message).toContain("tools/list")
      const called = yield* Effect.flip(mcp.callTool("echo"))
      expect(called).toMatchObject({ _tag: "InvalidResult", method: "tools/call", path: "content[0].text" })
    }).pipe(Effect.provide(client)), 30_000)
})
