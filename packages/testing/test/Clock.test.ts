/**
 * A handler that sleeps between progress reports, tested the two ways docs/testing.md shows: under
 * `it.effect` the server's fibers run on the `TestClock` (time moves only with
 * `TestClock.adjust`), under `it.live` on the real clock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Queue, Schema } from "effect"
import { TestClock } from "effect/testing"
import { McpServer, Progress, Tool } from "@snodo/core"
import { type Client, McpTestClient } from "@snodo/testing"

const slow = Tool.make("slow", { description: "Three steps, 100 ms apart", input: Schema.Struct({}) }, () =>
  Effect.gen(function*() {
    for (let step = 1; step <= 3; step++) {
      yield* Progress.report(step, { total: 3 })
      yield* Effect.sleep("100 millis")
    }
    return "done"
  }))

const TestClient = McpTestClient.layer.pipe(Layer.provide(McpServer.make({ name: "clock", version: "1.0.0" }).add(slow).layer))

/** The progress values the server reported so far, in order. */
const reported = (client: Client) =>
  Effect.map(Queue.takeAll(client.notifications), (notifications) =>
    notifications.filter((notification) => notification.method === "notifications/progress").map((notification) => notification.params["progress"]))

describe("a handler that sleeps", () => {
  it.effect("runs on the TestClock under it.effect: fork the call, adjust the clock, join", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const call = yield* Effect.forkChild(client.callTool("slow", {}, { progressToken: "p" }))
      yield* TestClock.adjust("300 millis")
      const result = yield* Fiber.join(call)
      expect(result.content).toEqual([{ type: "text", text: "done" }])
      expect(yield* reported(client)).toEqual([1, 2, 3])
    }).pipe(Effect.provide(TestClient)))

  it.live("runs on the real clock under it.live", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const result = yield* client.callTool("slow", {}, { progressToken: "p" })
      expect(result.content).toEqual([{ type: "text", text: "done" }])
      expect(yield* reported(client)).toEqual([1, 2, 3])
    }).pipe(Effect.provide(TestClient)))
})
