/**
 * `Connection`'s read backpressure on a sink the test controls: frames past `maxInFlight` (or past
 * `maxPendingChars` with the output's characters) are held in order with refusals, `pause` and
 * `resume` are called once each, `ready` waits while input is held, and `end` handles what is held.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Schema } from "effect"
import { McpError, McpServer, Tool } from "@snodo/core"
import * as Connection from "@snodo/core/transport/Connection"

const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} }
const call = (id: number, name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: meta } })

const releases = new Map<string, Deferred.Deferred<void>>()
const hold = Tool.make("hold", { input: Schema.Struct({ tag: Schema.String }) }, ({ tag }) =>
  Effect.gen(function*() {
    const release = Deferred.makeUnsafe<void>()
    releases.set(tag, release)
    yield* Deferred.await(release)
    return tag
  }))
const server = McpServer.make({ name: "connection-test", version: "1.0.0" }).add(hold)

const settle = Effect.forEach(Array.from({ length: 20 }), () => Effect.yieldNow, { discard: true })

const harness = (backpressure: Connection.Backpressure) =>
  Effect.gen(function*() {
    const frames: Array<Record<string, unknown>> = []
    const calls: Array<string> = []
    const connection = yield* Connection.make({
      transport: "memory",
      sink: { write: (frame) => Effect.sync(() => void frames.push(JSON.parse(frame) as Record<string, unknown>)) },
      backpressure: { ...backpressure, pause: () => void calls.push("pause"), resume: () => void calls.push("resume") }
    }).pipe(Effect.provide(server.layer))
    const release = (tag: string) => Deferred.succeed(releases.get(tag)!, undefined).pipe(Effect.andThen(settle))
    return { frames, calls, connection, release }
  })

describe("Connection read backpressure", () => {
  it.effect("holds input past maxInFlight in order (refusals too), pauses once, resumes once it is handled", () =>
    Effect.gen(function*() {
      const t = yield* harness({ maxInFlight: 2 })
      t.connection.receiveUnsafe(call(1, "hold", { tag: "a1" }))
      t.connection.receiveUnsafe(call(2, "hold", { tag: "a2" }))
      t.connection.receiveUnsafe(call(3, "hold", { tag: "a3" }))
      t.connection.rejectUnsafe(new McpError.ParseError({ message: "Parse error: line exceeds the size limit" }))
      t.connection.receiveUnsafe(call(4, "hold", { tag: "a4" }))
      yield* settle
      expect([releases.has("a3"), t.connection.pausedUnsafe(), t.calls]).toEqual([false, true, ["pause"]])
      expect(t.frames).toEqual([])
      const ready = yield* Effect.forkChild(t.connection.ready, { startImmediately: true })
      yield* t.release("a1")
      // a3 takes a1's place; the refusal and a4 still wait behind it.
      expect(releases.has("a3")).toBe(true)
      expect(t.frames.map((frame) => frame["id"])).toEqual([1])
      expect(ready.pollUnsafe()).toBeUndefined()
      yield* t.release("a2")
      expect(t.frames.map((frame) => frame["id"] ?? "refusal")).toEqual([1, 2, "refusal"])
      expect(releases.has("a4")).toBe(true)
      expect(t.calls).toEqual(["pause", "resume"])
      yield* Fiber.join(ready)
      expect(t.connection.pausedUnsafe()).toBe(false)
      yield* t.release("a3")
      yield* t.release("a4")
    }).pipe(Effect.scoped))

  it.effect("counts the output's pending characters with the requests' own; writtenUnsafe looks again", () =>
    Effect.gen(function*() {
      let output = 0
      const t = yield* harness({ maxPendingChars: 1000, pendingOutput: () => output })
      output = 1000
      t.connection.receiveUnsafe(call(1, "hold", { tag: "b1" }))
      yield* settle
      expect([releases.has("b1"), t.calls]).toEqual([false, ["pause"]])
      output = 0
      t.connection.writtenUnsafe()
      yield* settle
      expect([releases.has("b1"), t.calls]).toEqual([true, ["pause", "resume"]])
      yield* t.release("b1")
    }).pipe(Effect.scoped))

  it.effect("end handles what is held at once (the input ended), then drains", () =>
    Effect.gen(function*() {
      const t = yield* harness({ maxInFlight: 1 })
      t.connection.receiveUnsafe(call(1, "hold", { tag: "c1" }))
      t.connection.receiveUnsafe(call(2, "hold", { tag: "c2" }))
      yield* settle
      expect(releases.has("c2")).toBe(false)
      const ending = yield* Effect.forkChild(t.connection.end, { startImmediately: true })
      yield* settle
      expect(releases.has("c2")).toBe(true)
      yield* t.release("c1")
      yield* t.release("c2")
      yield* Fiber.join(ending)
      expect(t.frames.map((frame) => frame["id"])).toEqual([1, 2])
    }).pipe(Effect.scoped))
})
