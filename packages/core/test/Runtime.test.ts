import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Schema } from "effect"
import { McpServer, Progress, Tool } from "@snodo/core"
import { Pagination } from "@snodo/core/extension"
import * as Executor from "@snodo/core/Executor"
import { SinkClosed } from "@snodo/protocol/peer/RequestSink"
import * as LineFramer from "@snodo/protocol/peer/LineFramer"
import { McpTestClient } from "@snodo/testing"

const bytes = (text: string) => new TextEncoder().encode(text)

describe("LineFramer", () => {
  it("splits lines across chunks and drops CR", () => {
    const framer = LineFramer.make(100)
    expect(framer.push(bytes('{"a"'))).toEqual([])
    expect(framer.push(bytes(':1}\r\n{"b":2}\n\n{"c"'))).toEqual([
      { _tag: "Line", text: '{"a":1}' },
      { _tag: "Line", text: '{"b":2}' }
    ])
    expect(framer.end()).toEqual([{ _tag: "Line", text: '{"c"' }])
  })

  it("reports a line over the limit once and keeps the next one", () => {
    const framer = LineFramer.make(8)
    expect(framer.push(bytes("0123456"))).toEqual([])
    expect(framer.push(bytes("789abc"))).toEqual([{ _tag: "TooLong" }])
    expect(framer.push(bytes("def\nok\n"))).toEqual([{ _tag: "Line", text: "ok" }])
  })

  it("reports invalid UTF-8", () => {
    const framer = LineFramer.make(100)
    expect(framer.push(new Uint8Array([0xff, 0xfe, 0x0a]))).toEqual([{ _tag: "InvalidUtf8" }])
  })

  // A chunk over 1 KiB that is valid UTF-8 as a whole is sliced line by line (no decoder): its
  // frames must be those of the same bytes fed one at a time.
  const byteByByte = (limit: number, chunks: ReadonlyArray<Uint8Array>) => {
    const framer = LineFramer.make(limit)
    const frames: Array<LineFramer.Frame> = []
    for (const chunk of chunks) for (const byte of chunk) frames.push(...framer.push(new Uint8Array([byte])))
    return [...frames, ...framer.end()]
  }
  const whole = (limit: number, chunks: ReadonlyArray<Uint8Array>) => {
    const framer = LineFramer.make(limit)
    const frames: Array<LineFramer.Frame> = []
    for (const chunk of chunks) frames.push(...framer.push(chunk))
    return [...frames, ...framer.end()]
  }
  const lines = [
    '{"a":1}',
    '{"b":"\u00e9t\u00e9 é ü 中文 😀"}\r',
    "",
    "\r",
    "\uFEFF{\"bom\":true}",
    "\uFEFF",
    "x".repeat(300),
    "é".repeat(200),
    "y".repeat(90)
  ]
  const text = Array.from({ length: 8 }, () => lines.join("\n")).join("\n") + '\n{"tail"'

  it("frames a large valid chunk as it frames its bytes one by one", () => {
    const chunk = Buffer.from(text, "utf8")
    expect(chunk.length).toBeGreaterThan(1024)
    const expected = byteByByte(1000, [chunk])
    expect(expected.filter((frame) => frame._tag === "Line").length).toBeGreaterThan(40)
    expect(whole(1000, [chunk])).toEqual(expected)
    // A plain Uint8Array view (not a Buffer), at an offset in its memory.
    const padded = new Uint8Array(chunk.length + 7)
    padded.set(chunk, 7)
    expect(whole(1000, [padded.subarray(7)])).toEqual(expected)
    // A line limit under some of the lines: those are reported once each, the others kept.
    const limited = byteByByte(250, [chunk])
    expect(limited.some((frame) => frame._tag === "TooLong")).toBe(true)
    expect(whole(250, [chunk])).toEqual(limited)
  })

  it("frames large chunks split inside a character, and invalid bytes, as byte by byte", () => {
    const chunk = Buffer.from(text, "utf8")
    // Split inside the first "é" of the repeated line: each part is invalid UTF-8 as a whole.
    const cut = chunk.indexOf(Buffer.from("é")) + 1
    const parts = [chunk.subarray(0, cut), chunk.subarray(cut)]
    expect(whole(1000, parts)).toEqual(byteByByte(1000, parts))
    // An invalid byte in one line of a large chunk: that line alone is InvalidUtf8.
    const broken = Buffer.concat([chunk.subarray(0, 1200), Buffer.from([0xff, 0x0a]), chunk.subarray(1200)])
    const frames = whole(1000, [broken])
    expect(frames).toEqual(byteByByte(1000, [broken]))
    expect(frames.filter((frame) => frame._tag === "InvalidUtf8").length).toBe(1)
  })
})

describe("Executor", () => {
  it.effect("refuses past running + queued with a retryable -32603", () =>
    Effect.gen(function*() {
      const executor = Executor.makeUnsafe({ maxRunning: 1, maxQueued: 1 })
      const gate = yield* Deferred.make<void>()
      const first = yield* Effect.forkChild(executor.run(Deferred.await(gate)))
      const second = yield* Effect.forkChild(executor.run(Deferred.await(gate)))
      yield* Effect.yieldNow
      expect(executor.active()).toBe(2)
      const third = yield* Effect.flip(executor.run(Effect.void))
      expect(third.code).toBe(-32603)
      expect(third.data).toEqual({ retryable: true, limit: 1 })
      yield* Fiber.interrupt(second)
      expect(executor.active()).toBe(1)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      expect(executor.active()).toBe(0)
    }))
})

describe("Progress", () => {
  const sink = (written: Array<string>) => ({ write: (frame: string) => Effect.sync(() => void written.push(frame)) })

  it.effect("sends increasing reports and refuses the rest with typed reasons", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      const reporter = Progress.makeReporter("tok", sink(written), { ...Progress.defaultLimits, maxUpdates: 2, maxMessageBytes: 4 })
      yield* reporter.report(1, { total: 2 })
      expect((yield* Effect.flip(reporter.report(1))).reason).toBe("NotIncreasing")
      expect((yield* Effect.flip(reporter.report(2, { message: "toolong" }))).reason).toBe("MessageTooLong")
      yield* reporter.report(2)
      expect((yield* Effect.flip(reporter.report(3))).reason).toBe("LimitReached")
      yield* reporter.close
      expect((yield* Effect.flip(reporter.report(4))).reason).toBe("Closed")
      expect(written.map((frame) => JSON.parse(frame).params)).toEqual([
        { progressToken: "tok", progress: 1, total: 2 },
        { progressToken: "tok", progress: 2 }
      ])
    }))

  it.effect("is a no-op without a token", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      const reporter = Progress.makeReporter(undefined, sink(written))
      yield* reporter.report(1)
      expect(written).toEqual([])
      expect(reporter.enabled).toBe(false)
    }))

  it.live("a report not written in time is Timeout and keeps the gate closed", () =>
    Effect.gen(function*() {
      const reporter = Progress.makeReporter(1, { write: () => Effect.never }, { ...Progress.defaultLimits, ackTimeout: "10 millis" })
      expect((yield* Effect.flip(reporter.report(1))).reason).toBe("Timeout")
      expect((yield* Effect.flip(reporter.report(2))).reason).toBe("Busy")
    }))

  it.effect("a closed sink is Closed", () =>
    Effect.gen(function*() {
      const reporter = Progress.makeReporter(1, { write: () => Effect.fail(new SinkClosed({ message: "gone" })) })
      expect((yield* Effect.flip(reporter.report(1))).reason).toBe("Closed")
    }))
})

describe("Pagination", () => {
  it("pages, and refuses foreign or stale cursors", () => {
    const list = Pagination.makeList(["a", "b", "c", "d", "e"], 2)
    const first = Pagination.page(list, undefined)
    if (!("items" in first)) throw new Error("expected a page")
    expect(first.items).toEqual(["a", "b"])
    const second = Pagination.page(list, first.nextCursor)
    if (!("items" in second)) throw new Error("expected a page")
    expect(second.items).toEqual(["c", "d"])
    const changed = Pagination.makeList(["a", "b", "c", "d", "e", "f"], 2)
    const stale = Pagination.page(changed, first.nextCursor)
    expect("items" in stale).toBe(false)
    for (const bad of ["", "!!", "x".repeat(3000), Buffer.from(`${list.fingerprint}:1`).toString("base64url")]) {
      expect("items" in Pagination.page(list, bad)).toBe(false)
    }
  })
})

describe("catalog construction", () => {
  const noop = Tool.make("t", { input: Schema.Struct({}) }, () => Effect.succeed("ok"))

  it.effect("refuses duplicate tool names", () =>
    Effect.gen(function*() {
      const server = McpServer.make({ name: "x", version: "1" }).add(noop, noop)
      const error = yield* Effect.flip(Layer.build(server.layer))
      expect(error.message).toContain("Duplicate tool name \"t\"")
    }).pipe(Effect.scoped))

  it.effect("lists page through the client with cursors", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const all = yield* client.list("tools")
      expect(all.map((tool) => tool["name"])).toEqual(Array.from({ length: 5 }, (_, i) => `t${i}`))
      const first = yield* client.request("tools/list")
      expect(first["nextCursor"]).toBeTypeOf("string")
      const bad = yield* Effect.flip(client.request("tools/list", { cursor: "nope" }))
      expect(bad.code).toBe(-32602)
      expect(bad.message).toBe("Invalid or expired cursor")
    }).pipe(Effect.provide(McpTestClient.layer.pipe(Layer.provide(
      McpServer.make({ name: "x", version: "1", pageSize: 2 }).add(
        ...Array.from({ length: 5 }, (_, i) => Tool.make(`t${i}`, { input: Schema.Struct({}) }, () => Effect.succeed("ok")))
      ).layer
    )))))
})
