/**
 * The stdio transport on the raw wire, against the everything server as a child process.
 */
import { describe, expect, it } from "vitest"
import { validateServerMessage } from "../support/OfficialSchema.ts"
import { requestLine, spawnServer } from "../support/StdioProcess.ts"

const args = ["examples/everything/main.mjs", "--stdio"]

describe("stdio transport, raw wire", () => {
  it("answers refusals with the right codes and keeps serving", async () => {
    const server = spawnServer(args)
    server.write("{not json\n")
    server.write("[1,2]\n")
    server.write(`{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}\n`)
    server.write(requestLine(3, "initialize"))
    server.write(requestLine(4, "tools/list"))
    const answers = await server.read(5)
    expect(answers.map((answer) => ["id" in answer ? answer["id"] : "no id", (answer["error"] as { code?: number } | undefined)?.code])).toEqual([
      ["no id", -32700],
      ["no id", -32600],
      ["no id", -32700],
      [3, -32601],
      [4, undefined]
    ])
    // An error whose request id could not be read has no `id` (MCP's JSONRPCErrorResponse, where
    // base JSON-RPC 2.0 writes `"id": null`): every answer passes the official definitions.
    for (const [index, answer] of answers.entries()) {
      expect(validateServerMessage(answer, index === 4 ? { requestMethod: "tools/list" } : {})).toEqual([])
    }
    server.child.stdin.end()
    expect(await server.exited).toEqual({ code: 0, signal: null })
  })

  it("refuses a line over 2 MiB with -32700 and serves the next line", async () => {
    const server = spawnServer(args)
    const huge = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "x".repeat(2 * 1024 * 1024) } } })
    server.write(huge + "\n")
    server.write(requestLine(2, "tools/call", { name: "echo", arguments: { text: "after" } }))
    const [refusal, next] = await server.read(2)
    expect(refusal).toMatchObject({ error: { code: -32700 } })
    expect(refusal).not.toHaveProperty("id")
    expect(next).toMatchObject({ id: 2, result: { structuredContent: { text: "after" } } })
    server.child.stdin.end()
    expect((await server.exited).code).toBe(0)
  })

  it("writes every progress notification before the response, also for a burst", async () => {
    const server = spawnServer(args)
    server.write(JSON.stringify({
      jsonrpc: "2.0",
      id: "p",
      method: "tools/call",
      params: { name: "test_tool_with_progress", arguments: {}, _meta: { ...JSON.parse(requestLine(0, "x"))["params"]["_meta"], progressToken: "tok" } }
    }) + "\n")
    const frames = await server.read(4)
    expect(frames.slice(0, 3).map((frame) => (frame["params"] as { progress: number }).progress)).toEqual([0, 50, 100])
    expect(frames[3]).toMatchObject({ id: "p", result: { content: [{ type: "text", text: "tok" }] } })
    for (const frame of frames.slice(0, 3)) expect(validateServerMessage(frame, {})).toEqual([])
    server.child.stdin.end()
    await server.exited
  })

  it("on EOF finishes work in flight, then exits 0", async () => {
    const server = spawnServer(args)
    server.write(requestLine(1, "tools/call", { name: "sleep", arguments: { ms: 300 } }))
    server.child.stdin.end()
    const [answer] = await server.read(1)
    expect(answer).toMatchObject({ id: 1, result: { structuredContent: { slept: 300 } } })
    expect(await server.exited).toEqual({ code: 0, signal: null })
  })

  it("cancellation interrupts the handler: its finalizer runs and no response is written", async () => {
    const server = spawnServer(args)
    server.write(requestLine(1, "tools/call", { name: "sleep", arguments: { ms: 60_000 } }))
    await new Promise((resolve) => setTimeout(resolve, 300))
    server.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }) + "\n")
    server.write(requestLine(2, "tools/call", { name: "sleep_stats", arguments: {} }))
    const [stats] = await server.read(1)
    expect(stats).toMatchObject({ id: 2, result: { structuredContent: { started: 1, completed: 0, interrupted: 1 } } })
    server.child.stdin.end()
    expect((await server.exited).code).toBe(0)
    expect(server.lines().some((line) => line.includes('"id":1'))).toBe(false)
  })

  it("survives a discovery probe killed with SIGTERM right after answering", async () => {
    const server = spawnServer(args)
    server.write(requestLine("server-discover-probe-1", "server/discover"))
    const [answer] = await server.read(1)
    expect(answer).toMatchObject({ id: "server-discover-probe-1", result: { supportedVersions: ["2026-07-28", "2025-11-25"] } })
    server.child.kill("SIGTERM")
    const exit = await server.exited
    expect(exit.code === 0 || exit.code === 130 || exit.code === 143 || exit.signal === "SIGTERM").toBe(true)
    expect(server.stderr()).not.toMatch(/Error|EPIPE|Unhandled/)
  })

  it("keeps stdout to protocol only", async () => {
    const server = spawnServer(args)
    server.write(requestLine(1, "tools/call", { name: "test_error_handling", arguments: {} }))
    server.write(requestLine(2, "tools/call", { name: "add", arguments: { a: 1, b: 2 } }))
    await server.read(2)
    server.child.stdin.end()
    await server.exited
    for (const line of server.lines()) expect(JSON.parse(line)).toHaveProperty("jsonrpc", "2.0")
  })
})
