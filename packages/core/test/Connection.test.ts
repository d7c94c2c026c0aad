/**
 * `Connection`'s read backpressure on a sink the test controls: frames past `maxInFlight` (or past
 * `maxPendingChars` with the output's characters) are held in order with refusals, `pause` and
 * `resume` are called once each (once `maxHeldChars` is reached), `ready` waits while reading is
 * stopped, `end` handles what is held, and a cancellation goes past the held requests.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Schema } from "effect"
import { McpError, McpServer, Tool } from "@snodo/core"
import * as Connection from "@snodo/core/transport/Connection"

const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} }
const call = (id: number, name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: meta } })

const cancel = (requestId: number) =>
  JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "the client gave up" } })

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
      const t = yield* harness({ maxInFlight: 2, maxHeldChars: 1 })
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
      const t = yield* harness({ maxPendingChars: 1000, maxHeldChars: 1, pendingOutput: () => output })
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

  it.effect("keeps reading below maxHeldChars; reading stops once the held input reaches it", () =>
    Effect.gen(function*() {
      const frame = call(2, "hold", { tag: "d2" })
      const t = yield* harness({ maxInFlight: 1, maxHeldChars: frame.length * 2 })
      t.connection.receiveUnsafe(call(1, "hold", { tag: "d1" }))
      t.connection.receiveUnsafe(frame)
      yield* settle
      const ready = yield* Effect.forkChild(t.connection.ready, { startImmediately: true })
      expect([t.connection.pausedUnsafe(), t.calls, ready.pollUnsafe() !== undefined]).toEqual([true, [], true])
      t.connection.receiveUnsafe(call(3, "hold", { tag: "d3" }))
      const waiting = yield* Effect.forkChild(t.connection.ready, { startImmediately: true })
      expect([t.calls, waiting.pollUnsafe()]).toEqual([["pause"], undefined])
      yield* t.release("d1")
      yield* t.release("d2")
      yield* Fiber.join(waiting)
      expect([releases.has("d3"), t.calls]).toEqual([true, ["pause", "resume"]])
      yield* t.release("d3")
      expect(t.frames.map((answer) => answer["id"])).toEqual([1, 2, 3])
    }).pipe(Effect.scoped))

  it.effect("a cancellation goes past the held requests: one in flight is interrupted, one held never starts", () =>
    Effect.gen(function*() {
      const t = yield* harness({ maxInFlight: 2 })
      t.connection.receiveUnsafe(call(1, "hold", { tag: "e1" }))
      t.connection.receiveUnsafe(call(2, "hold", { tag: "e2" }))
      t.connection.receiveUnsafe(call(3, "hold", { tag: "e3" }))
      t.connection.receiveUnsafe(call(4, "hold", { tag: "e4" }))
      yield* settle
      expect([releases.has("e3"), t.connection.pausedUnsafe()]).toEqual([false, true])
      t.connection.receiveUnsafe(cancel(4))
      t.connection.receiveUnsafe(cancel(1))
      yield* settle
      // e1 interrupted: e3 takes its place; e4 was dropped before it started.
      expect([releases.has("e3"), releases.has("e4"), t.connection.pausedUnsafe(), t.calls]).toEqual([true, false, false, []])
      yield* t.release("e2")
      yield* t.release("e3")
      expect(t.frames.map((answer) => answer["id"])).toEqual([2, 3])
      expect(releases.has("e4")).toBe(false)
    }).pipe(Effect.scoped))
})
