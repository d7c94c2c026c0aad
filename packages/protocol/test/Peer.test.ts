/** The peer layer: the in-flight map, the bounded outbox, and a peer over a channel. */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Queue } from "effect"
import { vi } from "vitest"
import * as InFlight from "../src/peer/InFlight.ts"
import * as Outbox from "../src/peer/Outbox.ts"
import * as OutgoingRequests from "../src/peer/OutgoingRequests.ts"
import * as Peer from "../src/peer/Peer.ts"
import * as Encoder from "../src/jsonrpc/Encoder.ts"

describe("InFlight", () => {
  it.effect("cancels by scope and id (a string id is not a number id), ignores what names nothing, holds one request per key", () =>
    Effect.gen(function*() {
      const inFlight = yield* InFlight.make
      const cancelled: Array<string> = []
      const start = (label: string) =>
        Effect.runFork(Effect.onInterrupt(Effect.never, () => Effect.sync(() => void cancelled.push(label))))
      const a = start("alice 1")
      expect(inFlight.add("alice", 1, a)).toBe(true)
      expect(inFlight.add("alice", 1, start("alice 1 again"))).toBe(false)
      expect(inFlight.add("bob", 1, start("bob 1"))).toBe(true)
      expect(inFlight.add("alice", "1", start("alice '1'"))).toBe(true)
      expect(inFlight.size()).toBe(3)
      expect(inFlight.has("alice", 1)).toBe(true)
      expect(inFlight.cancel("alice", 1.5)).toBe(false)
      expect(inFlight.cancel("alice", { id: 1 })).toBe(false)
      expect(inFlight.cancel("carol", 1)).toBe(false)
      expect(inFlight.cancel("alice", 1)).toBe(true)
      yield* Fiber.await(a)
      expect(cancelled).toEqual(["alice 1"])
      expect(inFlight.size()).toBe(2)
      expect(inFlight.has("alice", 1)).toBe(false)
    }).pipe(Effect.scoped))

  it.effect("waits until empty; closing its scope interrupts what is left", () =>
    Effect.gen(function*() {
      const done = yield* Deferred.make<void>()
      const left = Effect.runFork(Effect.never)
      yield* Effect.gen(function*() {
        const inFlight = yield* InFlight.make
        const fiber = Effect.runFork(Deferred.await(done))
        inFlight.add("", 1, fiber)
        inFlight.add("", 2, left)
        inFlight.cancel("", 2)
        yield* Deferred.succeed(done, undefined)
        yield* inFlight.awaitEmpty
        expect(inFlight.size()).toBe(0)
        inFlight.add("", 3, Effect.runFork(Effect.never))
      }).pipe(Effect.scoped)
      expect((yield* Fiber.await(left))._tag).toBe("Failure")
    }))
})

describe("Outbox", () => {
  it("drops beyond its bound until frames are written, and everything once closed", () => {
    const pending: Array<() => void> = []
    const wrote: Array<string> = []
    const outbox = Outbox.makeUnsafe({ max: 2, write: (frames, written) => void (wrote.push(...frames), pending.push(written)) })
    expect([outbox.offer("a"), outbox.offer("b"), outbox.offer("c")]).toEqual([true, true, false])
    expect([outbox.waiting(), outbox.dropped()]).toEqual([2, 1])
    pending.shift()!()
    expect(outbox.offer("d")).toBe(true)
    expect(wrote).toEqual(["a", "b", "d"])
    outbox.close()
    expect(outbox.offer("e")).toBe(false)
    expect(Outbox.defaultMax).toBe(64)
  })

  it("paced: an idle outbox writes at once; while it rests, frames wait for the end of the interval and leave together, a frame already waiting not queued twice", () => {
    vi.useFakeTimers()
    try {
      const writes: Array<ReadonlyArray<string>> = []
      const outbox = Outbox.makeUnsafe({ paceMillis: 60_000, write: (frames, written) => void (writes.push(frames), written()) })
      for (const frame of ["changed", "changed", "updated", "changed"]) outbox.offer(frame)
      // Nothing written within the interval: the first frame leaves at once, the rest wait.
      expect(writes).toEqual([["changed"]])
      expect(outbox.waiting()).toBe(2)
      vi.advanceTimersByTime(59_999)
      expect(writes.length).toBe(1)
      vi.advanceTimersByTime(1)
      expect(writes).toEqual([["changed"], ["changed", "updated"]])
      // Offered within the interval of that write: it waits for its end.
      outbox.offer("changed")
      expect(writes.length).toBe(2)
      vi.advanceTimersByTime(60_000)
      expect(writes).toEqual([["changed"], ["changed", "updated"], ["changed"]])
      // A whole interval with nothing written: at once again.
      vi.advanceTimersByTime(60_000)
      outbox.offer("updated")
      expect(writes.at(-1)).toEqual(["updated"])
      // Nothing held after close.
      outbox.offer("late")
      outbox.close()
      vi.advanceTimersByTime(120_000)
      expect(writes.length).toBe(4)
      expect(outbox.waiting()).toBe(0)
    } finally {
      vi.useRealTimers()
    }
  })
})

describe("Peer", () => {
  const answering = (id: unknown) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{}}`

  it.effect("answers requests, refuses a duplicate id in flight, cancels by notification, routes responses and other notifications", () =>
    Effect.gen(function*() {
      const written = yield* Queue.unbounded<string>()
      const release = yield* Deferred.make<void>()
      const interrupted: Array<unknown> = []
      const notified: Array<string> = []
      const outgoing = OutgoingRequests.make()
      const sink = { write: (frame: string) => Queue.offer(written, frame).pipe(Effect.asVoid) }
      const peer = yield* Peer.make({
        sink,
        onRequest: (request) =>
          request.method === "wait"
            ? Effect.onInterrupt(Effect.as(Deferred.await(release), answering(request.id)), () =>
              Effect.sync(() => void interrupted.push(request.id)))
            : Effect.succeed([answering(request.id), "after"]),
        reject: (id, error) => Encoder.error(id, { code: error.code, message: error.message }),
        onNotification: (notification) => void notified.push(notification.method),
        outgoing
      })
      peer.receiveUnsafe(`{"jsonrpc":"2.0","id":1,"method":"now"}`)
      expect(yield* Queue.take(written)).toBe(answering(1))
      expect(yield* Queue.take(written)).toBe("after")

      peer.receiveUnsafe(`{"jsonrpc":"2.0","id":2,"method":"wait"}`)
      peer.receiveUnsafe(`{"jsonrpc":"2.0","id":3,"method":"wait"}`)
      expect(peer.inFlightUnsafe()).toBe(2)
      peer.receiveUnsafe(`{"jsonrpc":"2.0","id":2,"method":"wait"}`)
      expect(JSON.parse(yield* Queue.take(written))).toMatchObject({ id: 2, error: { code: -32600 } })

      peer.receiveUnsafe(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`)
      peer.receiveUnsafe(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
      const asked = yield* Effect.forkChild(outgoing.send(sink, "roots/list", {}, "5 seconds"))
      const request = JSON.parse(yield* Queue.take(written))
      peer.receiveUnsafe(`{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":{"roots":[]}}`)
      expect(yield* Fiber.join(asked)).toEqual({ roots: [] })

      yield* Deferred.succeed(release, undefined)
      yield* peer.drain
      expect(interrupted).toEqual([3])
      expect(notified).toEqual(["notifications/initialized"])
      expect(yield* Queue.take(written)).toBe(answering(2))
      expect(peer.inFlightUnsafe()).toBe(0)

      expect(peer.offer("a change")).toBe(true)
      expect(yield* Queue.take(written)).toBe("a change")
    }).pipe(Effect.scoped))

  it.effect("a sink that takes frames synchronously: an answer that completed is written with no fiber, one past the sink's bounds stays in flight until taken", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      const held: Array<() => void> = []
      let full = false
      let settled = 0
      const peer = yield* Peer.make({
        sink: {
          write: () => Effect.die("not called: the sink offers"),
          offer: (frame, taken) => {
            written.push(frame)
            if (taken === undefined) return true
            if (full) held.push(taken)
            else taken()
            return true
          }
        },
        onRequest: (request) => Effect.succeed(answering(request.id)),
        reject: (id, error) => Encoder.error(id, { code: error.code, message: error.message }),
        onSettled: () => void settled++
      })
      peer.receiveUnsafe(`{"jsonrpc":"2.0","id":1,"method":"now"}`)
      expect(written).toEqual([answering(1)])
      expect(peer.inFlightUnsafe()).toBe(0)
      full = true
      peer.receiveUnsafe(`{"jsonrpc":"2.0","id":2,"method":"now"}`)
      expect(written).toEqual([answering(1), answering(2)])
      expect(peer.inFlightUnsafe()).toBe(1)
      peer.receiveUnsafe(`{"jsonrpc":"2.0","id":2,"method":"now"}`)
      expect(JSON.parse(written[2]!)).toMatchObject({ id: 2, error: { code: -32600 } })
      held.shift()!()
      yield* peer.drain
      expect([peer.inFlightUnsafe(), settled]).toEqual([0, 1])
    }).pipe(Effect.scoped))
})

describe("Peer.serve", () => {
  const channelOf = () => {
    const events: Array<string> = []
    const channel: Peer.Channel<string> = {
      complete: (answer) => void events.push(`complete ${answer}`),
      ended: (exit) => void events.push(`ended ${Exit.isSuccess(exit) ? "success" : "failure"}`),
      cancel: () => void events.push("cancel")
    }
    return { events, channel }
  }

  it.effect("completes an answer given at once with no fiber; forks one that suspends, registers it with the channel's cancel, and reports its end", () =>
    Effect.gen(function*() {
      const inFlight = yield* InFlight.make
      const services = yield* Effect.context<never>()
      const requests: Peer.Requests = { inFlight, duplicates: "run" }
      const now = channelOf()
      expect(Peer.serve(requests, "alice", 1, () => Effect.succeed("one"), now.channel, services)).toBe("answered")
      expect(now.events).toEqual(["complete one"])
      expect(inFlight.size()).toBe(0)

      const failed = channelOf()
      expect(Peer.serve(requests, "alice", 1, () => Effect.die("boom"), failed.channel, services)).toBe("answered")
      expect(failed.events).toEqual(["ended failure"])

      const release = yield* Deferred.make<string>()
      const later = channelOf()
      const served = Peer.serve(requests, "alice", 2, () => Deferred.await(release), later.channel, services)
      expect(typeof served).toBe("object")
      expect(inFlight.has("alice", 2)).toBe(true)
      yield* Deferred.succeed(release, "two")
      if (typeof served === "string") return
      yield* Fiber.await(served)
      expect(later.events).toEqual(["complete two", "ended success"])
      expect(inFlight.size()).toBe(0)

      const cancelled = channelOf()
      const running = Peer.serve(requests, "alice", 3, () => Effect.never, cancelled.channel, services)
      expect(inFlight.cancel("alice", 3)).toBe(true)
      expect(cancelled.events).toEqual(["cancel"])
      if (typeof running !== "string") yield* Fiber.interrupt(running)
    }).pipe(Effect.scoped))

  it.effect("a duplicate id is refused (a stream) or runs unregistered (HTTP); a request with no scope is never registered", () =>
    Effect.gen(function*() {
      const inFlight = yield* InFlight.make
      const services = yield* Effect.context<never>()
      const first = Peer.serve({ inFlight, duplicates: "refuse" }, "", 1, () => Effect.never, channelOf().channel, services)
      let built = 0
      const again = () => {
        built++
        return Effect.never
      }
      expect(Peer.serve({ inFlight, duplicates: "refuse" }, "", 1, again, channelOf().channel, services)).toBe("refused")
      expect(built).toBe(0)
      const second = Peer.serve({ inFlight, duplicates: "run" }, "", 1, again, channelOf().channel, services)
      expect([built, inFlight.size(), typeof second]).toEqual([1, 1, "object"])
      const anonymous = Peer.serve({ inFlight, duplicates: "run" }, undefined, 2, () => Effect.never, channelOf().channel, services)
      expect([typeof anonymous, inFlight.size(), inFlight.cancel("", 2)]).toEqual(["object", 1, false])
      for (const fiber of [first, second, anonymous]) if (typeof fiber !== "string") yield* Fiber.interrupt(fiber)
    }).pipe(Effect.scoped))
})
