/**
 * OutgoingRequests: how a request ends. Its deadline is an entry on the registry's one timer on
 * the live clock and a forked sleep on any other (TestClock), so both are driven here: an answer in time, no answer
 * (Timeout, withdrawn with "timed out"), the asker interrupted (withdrawn as cancelled), a write
 * the channel refused (Closed, nothing withdrawn), a write that never completes (the deadline
 * still holds), and the bound on requests waiting at once.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Queue } from "effect"
import { TestClock } from "effect/testing"
import * as OutgoingRequests from "../src/peer/OutgoingRequests.ts"
import { SinkClosed } from "../src/peer/RequestSink.ts"

const recording = Effect.gen(function*() {
  const written = yield* Queue.unbounded<Record<string, unknown>>()
  const sink = { write: (frame: string) => Queue.offer(written, JSON.parse(frame) as Record<string, unknown>).pipe(Effect.asVoid) }
  return { written, sink }
})

const errorOf = <A, E>(effect: Effect.Effect<A, E>) => Effect.flip(effect)

describe("OutgoingRequests", () => {
  it.live("an answer in time is the result; a late one changes nothing; no timer is left", () =>
    Effect.gen(function*() {
      const { written, sink } = yield* recording
      const requests = OutgoingRequests.make()
      const asked = yield* Effect.forkChild(requests.send(sink, "roots/list", {}, "1 second"))
      const request = yield* Queue.take(written)
      expect(request).toMatchObject({ jsonrpc: "2.0", method: "roots/list", params: {} })
      expect(requests.pending()).toBe(1)
      expect(requests.receive({ _tag: "Response", id: request["id"] as string, result: { roots: [] }, error: undefined })).toBe(true)
      expect(yield* Fiber.join(asked)).toEqual({ roots: [] })
      expect(requests.pending()).toBe(0)
      expect(requests.receive({ _tag: "Response", id: request["id"] as string, result: {}, error: undefined })).toBe(false)
      yield* Effect.sleep("50 millis")
      expect(yield* Queue.size(written)).toBe(0)
    }))

  it.live("no answer in time (live clock): Timeout, and the request is withdrawn as timed out", () =>
    Effect.gen(function*() {
      const { written, sink } = yield* recording
      const requests = OutgoingRequests.make()
      const error = yield* errorOf(requests.send(sink, "elicitation/create", {}, 50))
      expect(error.reason).toBe("Timeout")
      expect(error.message).toBe("The client did not answer elicitation/create within 50 ms")
      const request = yield* Queue.take(written)
      expect(yield* Queue.take(written)).toEqual({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: request["id"], reason: "timed out" }
      })
      expect(requests.pending()).toBe(0)
    }))

  it.live("the deadlines of one registry share a timer: an earlier one re-arms it, a later one outlives a stale firing", () =>
    Effect.gen(function*() {
      const { written, sink } = yield* recording
      const requests = OutgoingRequests.make()
      const answer = (request: Record<string, unknown>) =>
        requests.receive({ _tag: "Response", id: request["id"] as string, result: {}, error: undefined })
      // armed for 150 ms, then answered: the timer stays armed for a deadline nobody waits for
      const first = yield* Effect.forkChild(requests.send(sink, "roots/list", {}, 150))
      expect(answer(yield* Queue.take(written))).toBe(true)
      yield* Fiber.join(first)
      // later than the armed time: waits through the stale firing, expires at its own deadline
      const started = performance.now()
      const late = yield* Effect.forkChild(Effect.flip(requests.send(sink, "roots/list", {}, 400)))
      // earlier than anything armed: re-arms the timer
      const early = yield* Effect.flip(requests.send(sink, "roots/list", {}, 50))
      const earlyAt = performance.now() - started
      expect(early.reason).toBe("Timeout")
      expect(earlyAt).toBeGreaterThanOrEqual(45)
      expect(earlyAt).toBeLessThan(380)
      expect((yield* Fiber.join(late)).reason).toBe("Timeout")
      expect(performance.now() - started).toBeGreaterThanOrEqual(395)
      expect(requests.pending()).toBe(0)
    }))

  it.effect("no answer in time (TestClock): Timeout exactly at the deadline, withdrawn as timed out", () =>
    Effect.gen(function*() {
      const { written, sink } = yield* recording
      const requests = OutgoingRequests.make()
      const asked = yield* Effect.forkChild(requests.send(sink, "sampling/createMessage", {}, "1 second"))
      const request = yield* Queue.take(written)
      yield* TestClock.adjust("999 millis")
      expect(asked.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      const error = yield* errorOf(Fiber.join(asked))
      expect(error.reason).toBe("Timeout")
      expect(yield* Queue.take(written)).toMatchObject({ method: "notifications/cancelled", params: { requestId: request["id"], reason: "timed out" } })
    }))

  it.live("interrupting the asker withdraws the request as cancelled", () =>
    Effect.gen(function*() {
      const { written, sink } = yield* recording
      const requests = OutgoingRequests.make()
      const asked = yield* Effect.forkChild(requests.send(sink, "roots/list", {}, "1 minute"))
      const request = yield* Queue.take(written)
      yield* Fiber.interrupt(asked)
      expect(yield* Queue.take(written)).toEqual({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: request["id"], reason: "The request that asked was cancelled" }
      })
      expect(requests.pending()).toBe(0)
    }))

  it.live("a write the channel refuses is Closed at once, and nothing is withdrawn", () =>
    Effect.gen(function*() {
      let writes = 0
      const sink = { write: () => Effect.suspend(() => (writes++, Effect.fail(new SinkClosed({ message: "gone" })))) }
      const requests = OutgoingRequests.make()
      const error = yield* errorOf(requests.send(sink, "roots/list", {}, "1 minute"))
      expect(error.reason).toBe("Closed")
      expect(writes).toBe(1)
      expect(requests.pending()).toBe(0)
    }))

  it.live("the deadline covers a write that never completes", () =>
    Effect.gen(function*() {
      const requests = OutgoingRequests.make()
      const sink = { write: (frame: string) => frame.includes("notifications/cancelled") ? Effect.void : Effect.never }
      const error = yield* errorOf(requests.send(sink, "roots/list", {}, 50))
      expect(error.reason).toBe("Timeout")
      expect(requests.pending()).toBe(0)
    }))

  it.live("at most maxPending wait at once (Busy beyond); closing fails those waiting", () =>
    Effect.gen(function*() {
      const { sink } = yield* recording
      const requests = OutgoingRequests.make({ maxPending: 1 })
      const first = yield* Effect.forkChild(requests.send(sink, "roots/list", {}, "1 minute"))
      yield* Effect.yieldNow
      expect((yield* errorOf(requests.send(sink, "roots/list", {}, "1 minute"))).reason).toBe("Busy")
      requests.close()
      expect((yield* errorOf(Fiber.join(first))).reason).toBe("Closed")
      expect((yield* errorOf(requests.send(sink, "roots/list", {}, "1 minute"))).reason).toBe("Closed")
    }))
})
