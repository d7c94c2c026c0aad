/** The one bounded mailbox: each overflow policy, coalescing, the count and character bounds, drop counts, ending and shutting down, batches held until settled. */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber } from "effect"
import * as Mailbox from "../src/peer/Mailbox.ts"

const drain = <A>(mailbox: Mailbox.Mailbox<A>): Array<A> => {
  const items: Array<A> = []
  for (let item = mailbox.poll(); item !== undefined; item = mailbox.poll()) items.push(item)
  return items
}

describe("Mailbox", () => {
  it("drop-newest: refuses what does not fit and counts it", () => {
    const mailbox = Mailbox.makeUnsafe<string>({ capacity: 2, overflow: "drop-newest" })
    expect(["a", "b", "c", "d"].map((item) => mailbox.offer(item))).toEqual(["queued", "queued", "dropped", "dropped"])
    expect([mailbox.size(), mailbox.waiting(), mailbox.dropped()]).toEqual([2, 2, 2])
    expect(mailbox.poll()).toBe("a")
    expect(mailbox.offer("e")).toBe("queued")
    expect(drain(mailbox)).toEqual(["b", "e"])
    expect(mailbox.takeDropped()).toBe(2)
    expect(mailbox.takeDropped()).toBe(0)
    expect(mailbox.dropped()).toBe(2)
  })

  it("drop-oldest: makes room by dropping the oldest, counted until taken", () => {
    const mailbox = Mailbox.makeUnsafe<string>({ capacity: 3, overflow: "drop-oldest" })
    for (const item of ["1", "2", "3", "4", "5"]) expect(mailbox.offer(item)).toBe("queued")
    expect(mailbox.takeDropped()).toBe(2)
    expect(drain(mailbox)).toEqual(["3", "4", "5"])
    expect(mailbox.dropped()).toBe(2)
  })

  it("bounds characters as well as count; one item alone always fits", () => {
    const mailbox = Mailbox.makeUnsafe<string>({ capacity: 100, maxChars: 10, overflow: "drop-oldest" })
    mailbox.offer("aaaa")
    mailbox.offer("bbbb")
    expect(mailbox.chars()).toBe(8)
    expect(mailbox.offer("cccc")).toBe("queued") // 12 > 10: "aaaa" goes
    expect(mailbox.takeDropped()).toBe(1)
    expect(mailbox.offer("x".repeat(50))).toBe("queued") // longer than the bound: everything else goes, it stays
    expect(mailbox.takeDropped()).toBe(2)
    expect([mailbox.size(), mailbox.chars(), mailbox.isOver()]).toEqual([1, 50, true])
    const counted = Mailbox.makeUnsafe<{ readonly uri: string }>({ capacity: 10, maxChars: 5, charsOf: (item) => item.uri.length, overflow: "drop-newest" })
    expect([counted.offer({ uri: "abc" }), counted.offer({ uri: "def" }), counted.offer({ uri: "g" })]).toEqual(["queued", "dropped", "queued"])
    expect(counted.chars()).toBe(4)
  })

  it("coalesce: an item whose key already waits is not queued again; taken, its key is free", () => {
    const mailbox = Mailbox.makeUnsafe<string>({ capacity: 2, overflow: "drop-oldest", coalesce: (item) => item.startsWith("topic:") ? undefined : item })
    expect(["tools", "tools", "prompts", "tools"].map((item) => mailbox.offer(item))).toEqual(["queued", "coalesced", "queued", "coalesced"])
    expect(mailbox.dropped()).toBe(0)
    expect(mailbox.offer("topic:1")).toBe("queued") // no key: never coalesces; "tools" dropped for it
    expect(mailbox.offer("tools")).toBe("queued") // its key was dropped with it
    expect(mailbox.takeDropped()).toBe(2)
    expect(drain(mailbox)).toEqual(["topic:1", "tools"])
    expect(mailbox.offer("tools")).toBe("queued")
  })

  it("close: what does not fit shuts the mailbox, discarding what waits", () =>
    Effect.runPromise(Effect.gen(function*() {
      const mailbox = Mailbox.makeUnsafe<string>({ capacity: 2, overflow: "close", coalesce: (item) => item })
      expect(["a", "a", "b"].map((item) => mailbox.offer(item))).toEqual(["queued", "coalesced", "queued"])
      expect(mailbox.offer("c")).toBe("overflow")
      expect([mailbox.state(), mailbox.size(), mailbox.dropped()]).toEqual(["closed", 0, 0])
      expect(mailbox.offer("d")).toBe("closed")
      const exit = yield* Effect.exit(mailbox.take)
      expect(Exit.isFailure(exit) && Cause.isDone(Cause.squash(exit.cause))).toBe(true)
    })))

  it("take waits for an item; end lets what waits be taken, then take fails with Done", () =>
    Effect.runPromise(Effect.gen(function*() {
      const mailbox = Mailbox.makeUnsafe<number>({ capacity: 4, overflow: "drop-newest" })
      const waiting = yield* Effect.forkChild(mailbox.take, { startImmediately: true })
      expect(waiting.pollUnsafe()).toBeUndefined()
      mailbox.offer(1)
      expect(yield* Fiber.join(waiting)).toBe(1)
      mailbox.offer(2)
      mailbox.offer(3)
      mailbox.end()
      expect(mailbox.offer(4)).toBe("closed")
      expect(mailbox.state()).toBe("ending")
      expect(yield* mailbox.take).toBe(2)
      expect(yield* mailbox.take).toBe(3)
      expect(mailbox.state()).toBe("closed")
      const ended = yield* Effect.exit(mailbox.take)
      expect(Exit.isFailure(ended) && Cause.isDone(Cause.squash(ended.cause))).toBe(true)
      // A taker already waiting when the mailbox ends is woken too.
      const other = Mailbox.makeUnsafe<number>({ capacity: 1, overflow: "drop-newest" })
      const stuck = yield* Effect.forkChild(other.take, { startImmediately: true })
      other.end()
      expect(Exit.isFailure(yield* Fiber.await(stuck))).toBe(true)
    })))

  it("ready waits for an item without taking it, and completes once the mailbox ends", () =>
    Effect.runPromise(Effect.gen(function*() {
      const mailbox = Mailbox.makeUnsafe<number>({ capacity: 4, overflow: "drop-newest" })
      const waiting = yield* Effect.forkChild(mailbox.ready, { startImmediately: true })
      expect(waiting.pollUnsafe()).toBeUndefined()
      mailbox.offer(1)
      yield* Fiber.join(waiting)
      expect(mailbox.waiting()).toBe(1)
      yield* mailbox.ready // at once: an item waits
      expect(yield* mailbox.take).toBe(1)
      const other = Mailbox.makeUnsafe<number>({ capacity: 1, overflow: "drop-newest" })
      const stuck = yield* Effect.forkChild(other.ready, { startImmediately: true })
      other.end()
      yield* Fiber.join(stuck)
      expect(other.state()).toBe("closed")
    })))

  it("shutdown discards what waits and wakes takers", () =>
    Effect.runPromise(Effect.gen(function*() {
      const mailbox = Mailbox.makeUnsafe<string>({ capacity: 4, overflow: "drop-newest" })
      mailbox.offer("a")
      mailbox.shutdown()
      expect([mailbox.size(), mailbox.waiting(), mailbox.state(), mailbox.offer("b")]).toEqual([0, 0, "closed", "closed"])
      expect(Exit.isFailure(yield* Effect.exit(mailbox.take))).toBe(true)
    })))

  it("a batch keeps counting until settled; under drop-newest nothing fits meanwhile", () => {
    const mailbox = Mailbox.makeUnsafe<string>({ capacity: 2, overflow: "drop-newest", coalesce: (item) => item })
    mailbox.offer("a")
    mailbox.offer("b")
    const batch = mailbox.takeBatch()
    expect(batch).toEqual(["a", "b"])
    expect([mailbox.size(), mailbox.waiting(), mailbox.chars()]).toEqual([2, 0, 2])
    expect(mailbox.offer("a")).toBe("dropped") // taken items no longer coalesce, and still count
    mailbox.settle(batch)
    expect([mailbox.size(), mailbox.chars()]).toEqual([0, 0])
    expect(mailbox.offer("a")).toBe("queued")
    expect(mailbox.takeBatch()).toEqual(["a"])
    expect(mailbox.takeBatch()).toEqual([])
  })

  it("wait: accepts past the bounds, and room completes once batches settle under them", () =>
    Effect.runPromise(Effect.gen(function*() {
      const mailbox = Mailbox.makeUnsafe<string>({ capacity: 2, maxChars: 100, charsOf: (frame) => frame.length + 1, overflow: "wait" })
      for (const frame of ["1", "2", "3"]) expect(mailbox.offer(frame)).toBe("queued")
      expect(mailbox.isOver()).toBe(true)
      const first = mailbox.takeBatch()
      const room = yield* Effect.forkChild(mailbox.room, { startImmediately: true })
      expect(room.pollUnsafe()).toBeUndefined()
      mailbox.offer("4")
      const second = mailbox.takeBatch()
      yield* Effect.yieldNow
      expect(room.pollUnsafe()).toBeUndefined() // 4 held
      mailbox.settle(first)
      yield* Fiber.join(room)
      expect([mailbox.size(), mailbox.isOver()]).toEqual([1, false])
      mailbox.settle(second)
      mailbox.offer("x".repeat(200))
      expect(mailbox.isOver()).toBe(true) // by characters
      const byChars = yield* Effect.forkChild(mailbox.room, { startImmediately: true })
      mailbox.settle(mailbox.takeBatch())
      yield* Fiber.join(byChars)
      // Shutting down wakes a writer waiting for room.
      for (const frame of ["a", "b", "c"]) mailbox.offer(frame)
      const stuck = yield* Effect.forkChild(mailbox.room, { startImmediately: true })
      mailbox.shutdown()
      yield* Fiber.join(stuck)
    })))

  it("takes in order across many items (the queue compacts as it goes)", () => {
    const mailbox = Mailbox.makeUnsafe<number>({ capacity: 5000, overflow: "drop-newest" })
    const taken: Array<number> = []
    for (let i = 0; i < 3000; i++) {
      mailbox.offer(i)
      if (i % 3 === 0) taken.push(mailbox.poll()!)
    }
    taken.push(...drain(mailbox))
    expect(taken).toEqual(Array.from({ length: 3000 }, (_, i) => i))
    expect(mailbox.size()).toBe(0)
  })

  it("refuses a negative capacity", () => {
    expect(() => Mailbox.makeUnsafe({ capacity: -1, overflow: "drop-newest" })).toThrow(RangeError)
  })
})
