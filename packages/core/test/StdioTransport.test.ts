/**
 * The stdio transport in process, on streams the test controls: Node streams (`runStreams`, what
 * `run` uses on Node) and a `Stdio` service (`runStdio`); and its `FrameWriter` alone. Framing
 * limits, coalescing, ordering, duplicate ids, cancellation, the EOF drain, and a stalled stdout.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Schema, Sink, Stdio, Stream } from "effect"
import { PassThrough, Writable } from "node:stream"
import { Content, McpServer, Progress, Tool, ToolResult } from "@snodo/core"
import * as FrameWriter from "@snodo/protocol/peer/FrameWriter"
import * as StdioTransport from "@snodo/core/StdioTransport"

const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} }
const line = (id: number | string, method: string, params: Record<string, unknown> = {}, extraMeta: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: { ...meta, ...extraMeta } } }) + "\n"
const call = (id: number | string, name: string, args: Record<string, unknown> = {}, extraMeta?: Record<string, unknown>) =>
  line(id, "tools/call", { name, arguments: args }, extraMeta)
const cancel = (id: number | string) => JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } }) + "\n"

type Frame = Record<string, unknown> & { readonly error?: { readonly code: number }; readonly params?: Record<string, unknown> }

const counters = { started: 0, interrupted: 0 }
const echo = Tool.make("echo", { input: Schema.Struct({ text: Schema.String }) }, ({ text }) => Effect.succeed(ToolResult.content([Content.text(text)])))
const hold = Tool.make("hold", { input: Schema.Struct({}) }, () =>
  Effect.sync(() => void counters.started++).pipe(
    Effect.andThen(Effect.never),
    Effect.onInterrupt(() => Effect.sync(() => void counters.interrupted++)),
    Effect.as(ToolResult.content([]))
  ))
const slow = Tool.make("slow", { input: Schema.Struct({}) }, () => Effect.sleep(50).pipe(Effect.as(ToolResult.content([Content.text("slept")]))))
const steps = Tool.make("steps", { input: Schema.Struct({}) }, () =>
  Effect.gen(function*() {
    for (let step = 1; step <= 3; step++) yield* Progress.report(step, { total: 3 })
    return ToolResult.content([Content.text("done")])
  }))
const server = McpServer.make({ name: "stdio-test", version: "1.0.0" }).add(echo, hold, slow, steps)

/** A stdout that records each write; `stall` makes it stop accepting (it never calls back). */
const recorder = () => {
  const writes: Array<string> = []
  let stalled = false
  const stdout = new Writable({
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      writes.push(chunk)
      if (!stalled) done()
    }
  })
  const frames = () => writes.join("").split("\n").filter((text) => text !== "").map((text) => JSON.parse(text) as Frame)
  return { stdout, writes, frames, stall: () => void (stalled = true) }
}

const serve = (stdin: PassThrough, stdout: Writable, options?: StdioTransport.Options) =>
  StdioTransport.runStreams({ stdin, stdout }, options).pipe(Effect.provide(server.layer))

/** Lets the transport's callbacks, microtasks and timers run. */
const tick = (ms = 10) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

describe("StdioTransport on Node streams", () => {
  it.live("answers the requests of one chunk in order: the first at once, the rest in one write; returns at EOF", () =>
    Effect.gen(function*() {
      const stdin = new PassThrough()
      const out = recorder()
      const ids = Array.from({ length: 10 }, (_, i) => i + 1)
      stdin.end(ids.map((id) => call(id, "echo", { text: `t${id}` })).join(""))
      yield* serve(stdin, out.stdout)
      expect(out.frames().map((frame) => frame["id"])).toEqual(ids)
      expect(out.writes.map((write) => write.split("\n").length - 1)).toEqual([1, 9])
    }))

  it.live("answers an oversize line and invalid UTF-8 with -32700 each, losing nothing else", () =>
    Effect.gen(function*() {
      const stdin = new PassThrough()
      const out = recorder()
      const fiber = yield* Effect.forkChild(serve(stdin, out.stdout, { maxLineBytes: 512 }))
      stdin.write(call(1, "echo", { text: "x".repeat(300) }).slice(0, 200))
      stdin.write("y".repeat(400) + "\n") // the same line, now over the limit
      stdin.write(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]))
      stdin.end(call(2, "echo", { text: "after" }))
      yield* Fiber.join(fiber)
      expect(out.frames()).toEqual([
        { jsonrpc: "2.0", error: { code: -32700, message: "Parse error: line exceeds the size limit" } },
        { jsonrpc: "2.0", error: { code: -32700, message: "Parse error: invalid UTF-8" } },
        expect.objectContaining({ id: 2, result: expect.objectContaining({ content: [{ type: "text", text: "after" }] }) })
      ])
    }))

  it.live("writes a request's progress before its response", () =>
    Effect.gen(function*() {
      const stdin = new PassThrough()
      const out = recorder()
      stdin.end(call("s", "steps", {}, { progressToken: "tok" }))
      yield* serve(stdin, out.stdout)
      const frames = out.frames()
      expect(frames.map((frame) => frame.params?.["progress"] ?? frame["id"])).toEqual([1, 2, 3, "s"])
    }))

  it.live("refuses an id already in flight, and cancellation interrupts the request's fiber", () =>
    Effect.gen(function*() {
      counters.started = 0
      counters.interrupted = 0
      const stdin = new PassThrough()
      const out = recorder()
      const fiber = yield* Effect.forkChild(serve(stdin, out.stdout))
      stdin.write(call(7, "hold") + call(7, "echo", { text: "dup" }))
      yield* tick()
      expect(out.frames()).toEqual([expect.objectContaining({ id: 7, error: expect.objectContaining({ code: -32600 }) })])
      expect(counters.started).toBe(1)
      stdin.write(cancel(7) + cancel("unknown"))
      yield* tick()
      expect(counters.interrupted).toBe(1)
      stdin.end(call(8, "echo", { text: "next" }))
      yield* Fiber.join(fiber)
      expect(out.frames().map((frame) => frame["id"])).toEqual([7, 8])
    }))

  it.live("at EOF drains the requests in flight and flushes before returning", () =>
    Effect.gen(function*() {
      const stdin = new PassThrough()
      const out = recorder()
      stdin.end(call(1, "slow") + call(2, "echo", { text: "quick" }))
      yield* serve(stdin, out.stdout)
      expect(out.frames().map((frame) => frame["id"])).toEqual([2, 1])
    }))

  it.live("a stdout that accepts nothing for the write timeout ends the transport and interrupts the work", () =>
    Effect.gen(function*() {
      counters.started = 0
      counters.interrupted = 0
      const stdin = new PassThrough()
      const out = recorder()
      out.stall()
      const fiber = yield* Effect.forkChild(serve(stdin, out.stdout, { writeTimeout: 100 }))
      stdin.write(call(1, "hold") + call(2, "echo", { text: "never read" }))
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit) && Cause.squash(exit.cause)).toBeInstanceOf(StdioTransport.StdoutStalled)
      expect(counters).toEqual({ started: 1, interrupted: 1 })
      stdin.destroy()
    }))
})

describe("StdioTransport on the Stdio service", () => {
  it.live("serves a Stdio of our own until its stdin ends", () =>
    Effect.gen(function*() {
      const written: Array<string> = []
      const stdio = Stdio.make({
        args: Effect.succeed([]),
        stdin: Stream.make(new TextEncoder().encode(call(1, "echo", { text: "a" }) + call(2, "slow"))),
        stdout: () => Sink.forEach((chunk: string | Uint8Array) => Effect.sync(() => void written.push(String(chunk)))),
        stderr: () => Sink.drain
      })
      yield* StdioTransport.runStdio().pipe(Effect.provide(server.layer), Effect.provideService(Stdio.Stdio, stdio))
      const frames = written.join("").split("\n").filter((text) => text !== "").map((text) => JSON.parse(text) as Frame)
      expect(frames.map((frame) => frame["id"])).toEqual([1, 2])
    }))
})

describe("read backpressure on the Stdio service", () => {
  it.live("stops pulling stdin while the bound of requests in flight is reached, and resumes once they are answered", () =>
    Effect.gen(function*() {
      let pulled = 0
      const lines = Array.from({ length: 50 }, (_, i) => new TextEncoder().encode(call(i + 1, "echo", { text: "x" })))
      const gate = yield* Deferred.make<void>()
      const written: Array<string> = []
      const stdio = Stdio.make({
        args: Effect.succeed([]),
        // One chunk per line, counted as it is pulled.
        stdin: Stream.fromIterable(lines).pipe(Stream.tap(() => Effect.sync(() => void pulled++))),
        // stdout takes nothing until the gate opens.
        stdout: () => Sink.forEach((chunk: string | Uint8Array) => Effect.andThen(Deferred.await(gate), Effect.sync(() => void written.push(String(chunk))))),
        stderr: () => Sink.drain
      })
      const fiber = yield* StdioTransport.runStdio({ maxInFlight: 4, maxHeldChars: 1, writeQueue: 1 }).pipe(
        Effect.provide(server.layer),
        Effect.provideService(Stdio.Stdio, stdio),
        Effect.forkChild
      )
      yield* Effect.sleep("200 millis")
      // The writer holds two frames, the requests whose writes wait are in flight: pulling stopped.
      expect(pulled).toBeLessThan(12)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(fiber)
      expect(pulled).toBe(50)
      const ids = written.join("").split("\n").filter((text) => text !== "").map((text) => (JSON.parse(text) as Frame)["id"])
      expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    }))
})

describe("FrameWriter", () => {
  const output = () => {
    const writes: Array<{ readonly text: string; readonly done: (error?: unknown) => void }> = []
    return { writes, output: { write: (text: string, done: (error?: unknown) => void) => void writes.push({ text, done }) } }
  }

  it.live("writes a frame at once when nothing is in flight, and coalesces those accepted meanwhile", () =>
    Effect.gen(function*() {
      const { output: sink, writes } = output()
      const writer = FrameWriter.make(sink, { queue: 10, queueChars: 1000, stallMillis: 1000, onFail: () => {} })
      yield* writer.write("a")
      writer.offer("b")
      yield* writer.write("c")
      expect(writes.map((write) => write.text)).toEqual(["a\n"])
      yield* Effect.promise(() => Promise.resolve())
      expect(writes.map((write) => write.text)).toEqual(["a\n", "b\nc\n"])
      const flushed = yield* Effect.forkChild(writer.flushed, { startImmediately: true })
      writes[0]!.done()
      expect(flushed.pollUnsafe()).toBeUndefined()
      writes[1]!.done()
      yield* Fiber.join(flushed)
      writer.close()
    }))

  it.live("makes writers wait while more than `queue` frames wait, then lets them go", () =>
    Effect.gen(function*() {
      const { output: sink, writes } = output()
      const writer = FrameWriter.make(sink, { queue: 2, queueChars: 1000, stallMillis: 1000, onFail: () => {} })
      yield* writer.write("1")
      yield* writer.write("2")
      const third = yield* Effect.forkChild(writer.write("3"), { startImmediately: true })
      yield* Effect.promise(() => Promise.resolve())
      expect(third.pollUnsafe()).toBeUndefined()
      expect(writes.map((write) => write.text)).toEqual(["1\n", "2\n3\n"])
      writes[0]!.done()
      yield* Fiber.join(third)
      writer.close()
    }))

  it.live("offer takes a frame at once; past the bounds its `written` waits as a writer would, and a failed writer takes nothing", () =>
    Effect.gen(function*() {
      const { output: sink, writes } = output()
      const failed = yield* Deferred.make<string>()
      const writer = FrameWriter.make(sink, { queue: 2, queueChars: 1000, stallMillis: 50, onFail: (message) => Deferred.doneUnsafe(failed, Exit.succeed(message)) })
      const taken: Array<string> = []
      expect(writer.offer("1", () => void taken.push("1"))).toBe(true)
      expect(writer.offer("2", () => void taken.push("2"))).toBe(true)
      expect(writer.offer("3", () => void taken.push("3"))).toBe(true)
      expect(taken).toEqual(["1", "2"])
      yield* Effect.promise(() => Promise.resolve())
      expect(writes.map((write) => write.text)).toEqual(["1\n", "2\n3\n"])
      writes[0]!.done()
      expect(taken).toEqual(["1", "2", "3"])
      expect(writer.offer("4", () => void taken.push("4"))).toBe(true)
      expect(writer.offer("5", () => void taken.push("5"))).toBe(true)
      expect(taken).toEqual(["1", "2", "3"])
      // The output accepts nothing more: the writer fails, and what waited is let go.
      expect(yield* Deferred.await(failed)).toBe("the output did not accept a write in time")
      expect(taken).toEqual(["1", "2", "3", "4", "5"])
      expect(writer.offer("late", () => void taken.push("late"))).toBe(false)
      expect(taken.length).toBe(5)
    }))

  it.live("fails waiting and later writes when the output accepts nothing in time", () =>
    Effect.gen(function*() {
      const { output: sink } = output()
      const failures: Array<string> = []
      const writer = FrameWriter.make(sink, { queue: 0, queueChars: 1000, stallMillis: 50, onFail: (message) => void failures.push(message) })
      const waiting = yield* Effect.forkChild(writer.write("stuck"), { startImmediately: true })
      const exit = yield* Fiber.await(waiting)
      expect(Exit.isFailure(exit)).toBe(true)
      expect(failures).toEqual(["the output did not accept a write in time"])
      expect(Exit.isFailure(yield* Effect.exit(writer.write("later")))).toBe(true)
      yield* writer.flushed // returns at once once failed
    }))
})
