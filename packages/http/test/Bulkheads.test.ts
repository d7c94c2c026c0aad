/**
 * Bulkheads through the real HTTP listener: one tool's slow calls cannot starve another tool,
 * principals share a tool fairly, and a component's rate limit and queue bound are refusals that
 * say so (429 / 503 with `Retry-After`, a retryable -32603 naming the component).
 */
import { Effect, Layer, Schema } from "effect"
import * as Http from "node:http"
import * as Tool from "@snodo/core/Tool"
import * as Executor from "@snodo/core/Executor"
import { McpRequest } from "@snodo/core/McpRequest"
import * as McpServer from "@snodo/core/McpServer"
import { Principal } from "@snodo/core/Principal"
import type * as Authentication from "@snodo/http/Authentication"
import * as Replies from "@snodo/http/Replies"
import { describe, expect, it } from "vitest"
import { errorOf, eventually, expectValid, headersFor, post, request } from "./support/Raw.ts"
import { echo, slow, start, stats } from "./support/TestServer.ts"

/** Posts a body and keeps the request, so the test can abort it. */
const hold = (url: string, body: Record<string, unknown>) => {
  const target = new URL(url)
  const req = Http.request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers: headersFor(body), agent: false })
  req.on("error", () => undefined)
  req.end(JSON.stringify(body))
  return req
}

describe("bulkheads over HTTP", () => {
  it("64 running and queued sleep calls do not delay an echo", async () => {
    const definition = McpServer.make({ name: "bulkheads", version: "1.0.0" }).add(echo, slow)
    const server = await start({ deadline: "5 seconds", shutdownTimeout: "100 millis" }, definition.layer)
    const sleepers: Array<Http.ClientRequest> = []
    try {
      const before = { ...stats }
      for (let i = 0; i < 64; i++) sleepers.push(hold(server.url, request("tools/call", { name: "slow", arguments: { ms: 60_000 } })))
      // slow's bulkhead is full: 32 running, the other 32 waiting in it.
      await eventually(() => stats.started - before.started === 32, 10_000)
      const startedAt = Date.now()
      const answer = await post(server.url, request("tools/call", { name: "echo", arguments: { text: "through" } }))
      const elapsed = Date.now() - startedAt
      expect(answer.status).toBe(200)
      expect(answer.messages[0]!["result"]).toMatchObject({ content: [{ text: "through" }] })
      // Answered while every sleep still runs or waits (none finished, none more started): a
      // generous bound, where the shared executor made it wait for the deadline (29.5 s before).
      expect([stats.started - before.started, stats.completed - before.completed]).toEqual([32, 0])
      expect(elapsed).toBeLessThan(2000)
    } finally {
      for (const sleeper of sleepers) sleeper.destroy()
      await server.close()
    }
  })

  it("two principals on one tool: the second principal's request starts before the first's queued backlog", async () => {
    const order: Array<string> = []
    const gate = Tool.make("gate", { input: Schema.Struct({ n: Schema.Int }), concurrency: 1 }, ({ n }) =>
      Effect.gen(function*() {
        const current = yield* McpRequest
        order.push(`${current.principal.id}${n}`)
        yield* Effect.sleep("150 millis")
        return "passed"
      }))
    const executor = Executor.makeUnsafe()
    const definition = McpServer.make({ name: "fair", version: "1.0.0" }).add(gate)
    // A test authenticator: the principal is the `x-principal` header.
    const authenticate: Authentication.Authenticator = {
      authenticate: (headers) => {
        const id = headers["x-principal"]
        return typeof id === "string"
          ? Effect.succeed({ principal: Principal.of({ id, claims: {} }), grant: undefined })
          : Effect.fail(Replies.refuse(401, -32001, "Unauthorized"))
      }
    }
    const server = await start({ authenticate }, definition.layer.pipe(Layer.provide(Layer.succeed(Executor.Executor, executor))))
    try {
      const call = (principal: string, n: number) =>
        post(server.url, request("tools/call", { name: "gate", arguments: { n } }), { "x-principal": principal })
      const waiting = () => executor.bulkhead("tool:gate")?.waiting() ?? 0
      const calls = [call("a", 1)]
      await eventually(() => order.length === 1)
      calls.push(call("a", 2), call("a", 3), call("a", 4))
      await eventually(() => waiting() === 3)
      calls.push(call("b", 1))
      await eventually(() => waiting() === 4)
      const answers = await Promise.all(calls)
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200])
      expect(order).toEqual(["a1", "b1", "a2", "a3", "a4"])
    } finally {
      await server.close()
    }
  })

  it("a component's rate limit is 429 with Retry-After and a retryable -32603 naming the component", async () => {
    const limited = Tool.make("limited", { input: Schema.Struct({}), rateLimit: { limit: 2, window: "1 minute" } }, () => Effect.succeed("ok"))
    const server = await start({}, McpServer.make({ name: "limited", version: "1.0.0" }).add(limited).layer)
    try {
      const call = () => post(server.url, request("tools/call", { name: "limited", arguments: {} }))
      expect([(await call()).status, (await call()).status]).toEqual([200, 200])
      const refused = await call()
      expect(refused.status).toBe(429)
      expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1)
      expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(60)
      expect(errorOf(refused)).toMatchObject({ code: -32603, data: { retryable: true, limit: 2, windowMs: 60_000, component: "tool:limited" } })
      expectValid(refused, "tools/call")
    } finally {
      await server.close()
    }
  })

  it("a component's full queue is 503 with Retry-After naming the component; other tools still answer", async () => {
    const narrow = Tool.make("narrow", { input: Schema.Struct({ ms: Schema.Int }), concurrency: 1, queue: 1 }, ({ ms }) =>
      Effect.as(Effect.sleep(ms), "done"))
    const definition = McpServer.make({ name: "narrow", version: "1.0.0" }).add(narrow, echo)
    const executor = Executor.makeUnsafe()
    const server = await start({ shutdownTimeout: "100 millis" }, definition.layer.pipe(Layer.provide(Layer.succeed(Executor.Executor, executor))))
    const held: Array<Http.ClientRequest> = []
    try {
      held.push(hold(server.url, request("tools/call", { name: "narrow", arguments: { ms: 60_000 } })))
      await eventually(() => executor.bulkhead("tool:narrow")?.running() === 1)
      held.push(hold(server.url, request("tools/call", { name: "narrow", arguments: { ms: 60_000 } })))
      await eventually(() => executor.bulkhead("tool:narrow")?.waiting() === 1)
      const refused = await post(server.url, request("tools/call", { name: "narrow", arguments: { ms: 1 } }))
      expect(refused.status).toBe(503)
      expect(refused.headers["retry-after"]).toBe("1")
      expect(errorOf(refused)).toMatchObject({ code: -32603, data: { retryable: true, limit: 1, component: "tool:narrow" } })
      expect((await post(server.url, request("tools/call", { name: "echo", arguments: { text: "x" } }))).status).toBe(200)
    } finally {
      for (const pending of held) pending.destroy()
      await server.close()
    }
  })
})
