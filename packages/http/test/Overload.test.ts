/**
 * Overload and abuse over a real listener: refusals by a bound say so (503 or 429 with
 * `Retry-After`, a retryable -32603), and one caller cannot starve the others.
 */
import * as McpServer from "@snodo/core/runtime/McpServer"
import { describe, expect, it } from "vitest"
import { errorOf, eventually, expectValid, post, request } from "./support/Raw.ts"
import { echo, slow, start, stats } from "./support/TestServer.ts"

describe("a busy executor", () => {
  it("is answered 503 with Retry-After and a retryable -32603, not 500", async () => {
    const definition = McpServer.make({ name: "busy", version: "1.0.0", executor: { maxRunning: 1, maxQueued: 0 } }).add(echo, slow)
    const server = await start({}, definition.layer)
    try {
      const before = stats.started
      const running = post(server.url, request("tools/call", { name: "slow", arguments: { ms: 300 } }))
      await eventually(() => stats.started > before)
      const refused = await post(server.url, request("tools/call", { name: "echo", arguments: { text: "hi" } }))
      expect(refused.status).toBe(503)
      expect(refused.headers["retry-after"]).toBe("1")
      expect(errorOf(refused)).toMatchObject({ code: -32603, data: { retryable: true, limit: 0 } })
      expectValid(refused, "tools/call")
      expect((await running).status).toBe(200)
      expect((await post(server.url, request("tools/call", { name: "echo", arguments: { text: "hi" } }))).status).toBe(200)
    } finally {
      await server.close()
    }
  })
})
