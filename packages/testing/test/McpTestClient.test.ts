/** The in-memory client itself: typed results checked against the wire schemas, the notifications queue. */
import * as Methods from "@snodo/protocol/methods/Methods"
import { describe, expect, it } from "@effect/vitest"
import { Content, McpServer, Progress, Tool, ToolResult } from "@snodo/core"
import { Dialect2026_07_28, DialectRegistry } from "@snodo/core/dialect"
import { Route } from "@snodo/core/extension"
import { McpTestClient } from "@snodo/testing"
import { Cause, Effect, Exit, Layer, Queue, Schema } from "effect"

const steps = Tool.make("steps", { input: Schema.Struct({ count: Schema.Int }) }, ({ count }) =>
  Effect.gen(function*() {
    for (let step = 1; step <= count; step++) yield* Progress.report(step, { total: count, message: `step ${step}` })
    return ToolResult.content([Content.text(`did ${count}`)])
  }))

const named = (name: string) => Tool.make(name, { input: Schema.Struct({}) }, () => Effect.succeed(name))

const server = McpServer.make({ name: "client-test", version: "1", pageSize: 2 }).add(steps, named("a"), named("b"), named("c"))
const withClient = Effect.provide(McpTestClient.layer.pipe(Layer.provide(server.layer)))

describe("McpTestClient", () => {
  it.effect("progress arrives on the notifications queue, in order, before the result", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const result = yield* client.callTool("steps", { count: 3 }, { progressToken: "p1" })
      expect(result.content).toEqual([{ type: "text", text: "did 3" }])
      const received = yield* Queue.takeAll(client.notifications)
      expect(received.map((notification) => notification.method)).toEqual([
        "notifications/progress",
        "notifications/progress",
        "notifications/progress"
      ])
      expect(received.map((notification) => notification.params["progress"])).toEqual([1, 2, 3])
      expect(received[0]!.params).toMatchObject({ progressToken: "p1", total: 3, message: "step 1" })
    }).pipe(withClient))

  it.effect("list follows cursors and returns typed entries", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const tools = yield* client.list("tools")
      expect(tools.map((tool) => tool.name)).toEqual(["steps", "a", "b", "c"])
      expect(tools[0]!.inputSchema.type).toBe("object")
    }).pipe(withClient))

  it.effect("a result that does not match its method's schema fails the test, naming the method", () => {
    // A dialect whose tools/call answers something that is not a CallToolResult.
    const broken = Route.make({
      method: Methods.ToolsCall,
      params: Schema.Struct({ name: Schema.String }),
      run: () => Effect.succeed(Route.result({ content: "not a list" }))
    })
    const routes = Dialect2026_07_28.routes.map((route) => route.method === "tools/call" ? broken : route)
    const registry = DialectRegistry.layer([{ ...Dialect2026_07_28, routes }])
    return Effect.gen(function*() {
      const client = yield* McpTestClient
      const exit = yield* Effect.exit(client.callTool("a"))
      expect(Exit.isFailure(exit) && Cause.hasDies(exit.cause)).toBe(true)
      if (Exit.isFailure(exit)) expect(String(Cause.squash(exit.cause))).toContain("tools/call")
      // the unchecked request still hands back what was written
      expect((yield* client.request("tools/call", { name: "a" }))["content"]).toBe("not a list")
    }).pipe(Effect.provide(McpTestClient.layer.pipe(Layer.provide(server.layer), Layer.provide(registry))))
  })
})
