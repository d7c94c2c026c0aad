/**
 * `subscriptions/listen` and the `SubscriptionHub` through a real `Connection` (the code stdio
 * runs), with a sink the test controls: acknowledgement, tagging, filters, caps, cancellation,
 * graceful end, overflow under both policies, coalescing.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Latch, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import type { RequestId } from "@snodo/protocol/jsonrpc/Envelope"
import type { RequestSink } from "@snodo/protocol/peer/RequestSink"
import { Content, McpServer, Prompt, Resource, SubscriptionHub, Tool } from "@snodo/core"
import { Listen } from "@snodo/core/extension"
import type { Overflow } from "@snodo/core/extension/Listen"
import * as Connection from "@snodo/core/transport/Connection"
import { anonymous } from "@snodo/core/Principal"

const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} }
const subscriptionId = "io.modelcontextprotocol/subscriptionId"

type Frame = Record<string, unknown> & { readonly params?: Record<string, unknown> & { readonly _meta?: Record<string, unknown> } }

const noop = Tool.make("noop", { description: "does nothing", input: Schema.Struct({}) }, () => Effect.succeed("ok"))
const readme = Resource.make({ uri: "file:///readme", name: "readme" }, () => Effect.succeed(Content.textContents("file:///readme", "hi")))
const greet = Prompt.make("greet", { description: "greets" }, () => Effect.succeed([]))

const settle = Effect.forEach(Array.from({ length: 50 }), () => Effect.yieldNow, { discard: true })

interface Options {
  readonly withPrompts?: boolean
  readonly hub?: boolean
  readonly maxSubscriptions?: number
  readonly queue?: number
  readonly queueBytes?: number
  readonly overflow?: Overflow
}

/** A connection to a server with a memory hub; `gate` closed makes every write wait. */
const harness = (options: Options = {}) =>
  Effect.gen(function*() {
    const hub = SubscriptionHub.makeMemory()
    const server = McpServer.make({
      name: "listen-test",
      version: "1.0.0",
      subscriptions: {
        queue: options.queue ?? 4,
        overflow: options.overflow ?? "drop-oldest",
        ...(options.queueBytes === undefined ? {} : { queueBytes: options.queueBytes })
      }
    }).add(noop, readme, ...(options.withPrompts === false ? [] : [greet]))
    const frames: Array<Frame> = []
    const gate = yield* Latch.make(true)
    const layer = options.hub === false ? server.layer : server.layer.pipe(Layer.provide(Layer.succeed(SubscriptionHub.SubscriptionHub, hub)))
    const connection = yield* Connection.make({
      transport: "memory",
      sink: { write: (frame) => gate.whenOpen(Effect.sync(() => void frames.push(JSON.parse(frame) as Frame))) },
      ...(options.maxSubscriptions === undefined ? {} : { maxSubscriptions: options.maxSubscriptions })
    }).pipe(Effect.provide(layer))
    const send = (id: number | string, method: string, params: Record<string, unknown> = {}) =>
      connection.receive(JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } })).pipe(Effect.andThen(settle))
    const listen = (id: number | string, notifications: unknown) => send(id, "subscriptions/listen", { notifications })
    const cancel = (id: number | string) =>
      connection.receive(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } })).pipe(Effect.andThen(settle))
    const publish = (change: SubscriptionHub.Change) => hub.publish(change).pipe(Effect.andThen(settle))
    const of = (id: number | string) =>
      frames.filter((frame) => frame.params?._meta?.[subscriptionId] === id || frame["id"] === id)
    return { hub, frames, gate, connection, send, listen, cancel, publish, of }
  })

describe("SubscriptionHub and capabilities", () => {
  it.effect("without a hub: no listChanged, and listen is -32601", () =>
    Effect.gen(function*() {
      const t = yield* harness({ hub: false })
      yield* t.send(1, "server/discover")
      expect(t.frames[0]).toMatchObject({ result: { capabilities: { tools: {}, resources: {}, prompts: {} } } })
      expect(JSON.stringify(t.frames[0])).not.toMatch(/listChanged|subscribe/)
      yield* t.listen(2, { toolsListChanged: true })
      expect(t.frames[1]).toMatchObject({ id: 2, error: { code: -32601 } })
    }))

  it.effect("with a hub: listChanged for every served kind, and resources.subscribe", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.send(1, "server/discover")
      expect(t.frames[0]).toMatchObject({
        result: { capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true } } }
      })
    }))

  it("matches changes against filters", () => {
    const filter: SubscriptionHub.Filter = {
      toolsListChanged: true,
      promptsListChanged: false,
      resourcesListChanged: false,
      resourceSubscriptions: new Set(["a"]),
      topics: new Set(["task:1"])
    }
    expect(SubscriptionHub.matches(filter, SubscriptionHub.toolsListChanged)).toBe(true)
    const topic = (name: string, principal: string | undefined) =>
      SubscriptionHub.topic({ topic: name, method: "notifications/tasks", params: {}, principal })
    expect(SubscriptionHub.matches(filter, topic("task:1", undefined))).toBe(true)
    expect(SubscriptionHub.matches(filter, topic("task:2", undefined))).toBe(false)
    const alice = { filter, principal: { id: "alice", claims: {} }, deliver: () => {} }
    expect(SubscriptionHub.accepts(alice, topic("task:1", "alice"))).toBe(true)
    expect(SubscriptionHub.accepts(alice, topic("task:1", "bob"))).toBe(false)
    expect(SubscriptionHub.matches(filter, SubscriptionHub.promptsListChanged)).toBe(false)
    expect(SubscriptionHub.matches(filter, SubscriptionHub.resourceUpdated("a"))).toBe(true)
    expect(SubscriptionHub.matches(filter, SubscriptionHub.resourceUpdated("b"))).toBe(false)
  })

  it.effect("the visible seam can hide changes from a principal", () =>
    Effect.gen(function*() {
      const hub = SubscriptionHub.makeMemory({ visible: (principal) => principal.id !== "mallory" })
      const seen: Array<string> = []
      const filter = { toolsListChanged: true, promptsListChanged: false, resourcesListChanged: false, resourceSubscriptions: new Set<string>(), topics: new Set<string>() }
      yield* hub.subscribe({ filter, principal: { id: "alice", claims: {} }, deliver: () => void seen.push("alice") })
      yield* hub.subscribe({ filter, principal: { id: "mallory", claims: {} }, deliver: () => void seen.push("mallory") })
      yield* hub.publish(SubscriptionHub.toolsListChanged)
      expect(seen).toEqual(["alice"])
      expect(hub.size()).toBe(2)
    }))
})

describe("subscriptions/listen", () => {
  it.effect("acknowledges first with the honoured subset, tagged with the listen id", () =>
    Effect.gen(function*() {
      const t = yield* harness({ withPrompts: false })
      yield* t.listen(7, { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: false, resourceSubscriptions: ["a", "a", "b"], future: 1 })
      expect(t.frames).toEqual([{
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: { [subscriptionId]: 7 }, notifications: { toolsListChanged: true, resourceSubscriptions: ["a", "b"] } }
      }])
      expect(t.hub.size()).toBe(1)
    }))

  it.effect("delivers to each stream only what its filter asked for", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.listen("tools", { toolsListChanged: true })
      yield* t.listen("prompts", { promptsListChanged: true })
      yield* t.listen("resources", { resourcesListChanged: true })
      yield* t.listen("uris", { resourceSubscriptions: ["file:///a"] })
      yield* t.listen("none", {})
      yield* t.publish(SubscriptionHub.toolsListChanged)
      yield* t.publish(SubscriptionHub.promptsListChanged)
      yield* t.publish(SubscriptionHub.resourcesListChanged)
      yield* t.publish(SubscriptionHub.resourceUpdated("file:///b"))
      yield* t.publish(SubscriptionHub.resourceUpdated("file:///a"))
      const methods = (id: string) => t.of(id).map((frame) => frame["method"])
      expect(methods("tools")).toEqual(["notifications/subscriptions/acknowledged", "notifications/tools/list_changed"])
      expect(methods("prompts")).toEqual(["notifications/subscriptions/acknowledged", "notifications/prompts/list_changed"])
      expect(methods("resources")).toEqual(["notifications/subscriptions/acknowledged", "notifications/resources/list_changed"])
      expect(methods("uris")).toEqual(["notifications/subscriptions/acknowledged", "notifications/resources/updated"])
      expect(t.of("uris")[1]?.params).toEqual({ _meta: { [subscriptionId]: "uris" }, uri: "file:///a" })
      expect(methods("none")).toEqual(["notifications/subscriptions/acknowledged"])
      expect(t.frames.every((frame) => frame.params?._meta?.[subscriptionId] !== undefined)).toBe(true)
    }))

  it.effect("refuses a malformed filter with -32602", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.send(1, "subscriptions/listen", {})
      yield* t.listen(2, { toolsListChanged: "yes" })
      yield* t.listen(3, { resourceSubscriptions: "file:///a" })
      yield* t.listen(4, { resourceSubscriptions: Array.from({ length: 1001 }, (_, i) => `u${i}`) })
      expect(t.frames.map((frame) => [frame["id"], (frame["error"] as { code: number }).code])).toEqual([[1, -32602], [2, -32602], [3, -32602], [4, -32602]])
      expect(t.hub.size()).toBe(0)
    }))

  it.effect("caps open streams per connection with a retryable -32603", () =>
    Effect.gen(function*() {
      const t = yield* harness({ maxSubscriptions: 2 })
      yield* t.listen(1, { toolsListChanged: true })
      yield* t.listen(2, { toolsListChanged: true })
      yield* t.listen(3, { toolsListChanged: true })
      expect(t.of(3)).toEqual([{ jsonrpc: "2.0", id: 3, error: { code: -32603, message: "Server busy: too many open subscriptions", data: { retryable: true, limit: 2 } } }])
      yield* t.cancel(1)
      yield* t.listen(4, { toolsListChanged: true })
      expect(t.of(4).map((frame) => frame["method"])).toEqual(["notifications/subscriptions/acknowledged"])
    }))

  it.effect("a client cancel closes the stream: unregistered, no response, nothing after", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.listen(1, { toolsListChanged: true })
      yield* t.listen(2, { toolsListChanged: true })
      yield* t.cancel(1)
      yield* t.cancel(99) // unknown: ignored
      expect(t.hub.size()).toBe(1)
      yield* t.publish(SubscriptionHub.toolsListChanged)
      expect(t.of(1).map((frame) => frame["method"])).toEqual(["notifications/subscriptions/acknowledged"])
      expect(t.of(2)).toHaveLength(2)
      expect(yield* t.connection.inFlight).toBe(1)
    }))

  it.effect("ending the connection answers each stream, then ends it with notifications/cancelled", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.listen(1, { toolsListChanged: true })
      yield* t.connection.end
      const [ack, result, cancelled] = t.of(1)
      expect(ack?.["method"]).toBe("notifications/subscriptions/acknowledged")
      expect(result).toMatchObject({ id: 1, result: { resultType: "complete", _meta: { [subscriptionId]: 1 } } })
      expect(cancelled).toMatchObject({ method: "notifications/cancelled", params: { requestId: 1, _meta: { [subscriptionId]: 1 } } })
      expect(t.hub.size()).toBe(0)
      yield* t.listen(2, { toolsListChanged: true })
      expect(t.of(2)).toMatchObject([{ id: 2, error: { code: -32603, message: "Server shutting down" } }])
    }))

  it.effect("drop-oldest: keeps the newest changes and counts the dropped ones in the next frame", () =>
    Effect.gen(function*() {
      const t = yield* harness({ queue: 4 })
      const uris = Array.from({ length: 10 }, (_, i) => `file:///${i}`)
      yield* t.listen(1, { resourceSubscriptions: uris })
      yield* t.gate.close
      yield* t.publish(SubscriptionHub.resourceUpdated(uris[0]!)) // taken, its write waits
      for (const uri of uris.slice(1)) yield* t.hub.publish(SubscriptionHub.resourceUpdated(uri))
      yield* t.gate.open
      yield* settle
      const updates = t.of(1).slice(1)
      expect(updates.map((frame) => frame.params?.["uri"])).toEqual(["file:///0", "file:///6", "file:///7", "file:///8", "file:///9"])
      expect(updates.map((frame) => frame.params?._meta?.[Listen.DroppedKey])).toEqual([undefined, 5, undefined, undefined, undefined])
      expect(t.hub.size()).toBe(1)
    }))

  it.effect("drop-oldest by bytes: long URIs past queueBytes drop the oldest before the count is reached", () =>
    Effect.gen(function*() {
      // Each update of a 1,000-character URI counts 1,064: three fit in 3,500, the count (64) never binds.
      const t = yield* harness({ queue: 64, queueBytes: 3500 })
      const uris = Array.from({ length: 10 }, (_, i) => `file:///${i}/${"u".repeat(990)}`)
      yield* t.listen(1, { resourceSubscriptions: uris })
      yield* t.gate.close
      yield* t.publish(SubscriptionHub.resourceUpdated(uris[0]!)) // taken, its write waits
      for (const uri of uris.slice(1)) yield* t.hub.publish(SubscriptionHub.resourceUpdated(uri))
      yield* t.gate.open
      yield* settle
      const updates = t.of(1).slice(1)
      expect(updates.map((frame) => String(frame.params?.["uri"]).slice(0, 10))).toEqual(["file:///0/", "file:///7/", "file:///8/", "file:///9/"])
      expect(updates.map((frame) => frame.params?._meta?.[Listen.DroppedKey])).toEqual([undefined, 6, undefined, undefined])
    }))

  it.effect("a change already queued is not queued twice", () =>
    Effect.gen(function*() {
      const t = yield* harness({ queue: 2 })
      yield* t.listen(1, { toolsListChanged: true, promptsListChanged: true })
      yield* t.gate.close
      yield* t.publish(SubscriptionHub.promptsListChanged)
      for (let i = 0; i < 20; i++) yield* t.hub.publish(SubscriptionHub.toolsListChanged)
      yield* t.gate.open
      yield* settle
      expect(t.of(1).slice(1).map((frame) => [frame["method"], frame.params?._meta?.[Listen.DroppedKey]])).toEqual([
        ["notifications/prompts/list_changed", undefined],
        ["notifications/tools/list_changed", undefined]
      ])
    }))

  it.effect("close policy: an overflow ends the stream with -32603, then notifications/cancelled", () =>
    Effect.gen(function*() {
      const t = yield* harness({ queue: 2, overflow: "close" })
      const uris = ["a", "b", "c", "d", "e"]
      yield* t.listen(1, { resourceSubscriptions: uris })
      yield* t.gate.close
      yield* t.publish(SubscriptionHub.resourceUpdated("a"))
      for (const uri of uris.slice(1)) yield* t.hub.publish(SubscriptionHub.resourceUpdated(uri))
      yield* t.gate.open
      yield* settle
      const frames = t.of(1)
      // The write of "a" was stuck behind the gate: the overflow ended the stream without waiting for it.
      expect(frames.map((frame) => frame["method"] ?? "response")).toEqual([
        "notifications/subscriptions/acknowledged",
        "response",
        "notifications/cancelled"
      ])
      expect(frames[1]).toMatchObject({ id: 1, error: { code: -32603, data: { reason: "overflow", queue: 2 } } })
      expect(t.hub.size()).toBe(0)
      expect(yield* t.connection.inFlight).toBe(0)
    }))

  it.effect("keeps every digit of an int64 listen id", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      const frames: Array<string> = []
      const connection = yield* Connection.make({ transport: "memory", sink: { write: (frame) => Effect.sync(() => void frames.push(frame)) } }).pipe(
        Effect.provide(McpServer.make({ name: "n", version: "1" }).add(noop).layer.pipe(Layer.provide(Layer.succeed(SubscriptionHub.SubscriptionHub, t.hub))))
      )
      yield* connection.receive(`{"jsonrpc":"2.0","id":9007199254740993,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":${JSON.stringify(meta)}}}`)
      yield* settle
      yield* connection.end
      expect(frames[0]).toContain(`"${subscriptionId}":9007199254740993}`)
      expect(frames[1]).toContain(`"id":9007199254740993,"result":{"_meta":{"${subscriptionId}":9007199254740993,`)
      expect(frames[2]).toContain(`"requestId":9007199254740993,`)
    }))
})

describe("pacing", () => {
  const support = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: true }
  const filter = { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ["file:///x"] }

  /**
   * One stream run directly, paced at 60 s (the test clock only moves when told): `offer` gives its
   * sink the synchronous write an HTTP response has, without it every change goes through the
   * stream's fiber (stdio's sink).
   */
  const paced = (options: { readonly offer: boolean | "throws"; readonly id?: RequestId; readonly hub?: SubscriptionHub.MemoryHub }) =>
    Effect.gen(function*() {
      const hub = options.hub ?? SubscriptionHub.makeMemory()
      const frames: Array<string> = []
      const via = { write: 0, offer: 0 }
      const offer = options.offer === "throws"
        ? () => {
          via.offer++
          throw new Error("the transport broke")
        }
        : (frame: string, written?: () => void) => (via.offer++, frames.push(frame), written?.(), true)
      const sink: RequestSink = {
        write: (frame) => Effect.sync(() => void (via.write++, frames.push(frame))),
        ...(options.offer === false ? {} : { offer })
      }
      const streams = Listen.makeStreams(4, undefined, 60_000)
      const fiber = yield* Effect.forkChild(Listen.run({
        id: options.id ?? 1,
        requested: filter,
        decoded: filter,
        hub,
        support,
        limits: Listen.defaultLimits,
        filters: [],
        negotiated: () => false,
        sink,
        streams,
        principal: anonymous
      }))
      yield* settle
      const publish = (...changes: ReadonlyArray<SubscriptionHub.Change>) =>
        Effect.forEach(changes, (change) => hub.publish(change), { discard: true }).pipe(Effect.andThen(settle))
      const methods = () => frames.map((frame) => (JSON.parse(frame) as { method: string }).method.replace("notifications/", ""))
      return { hub, frames, via, fiber, streams, publish, methods }
    })

  for (const offer of [false, true]) {
    it.effect(`an idle stream writes a change at once; while it rests, changes wait for the end of the interval and coalesce (${offer ? "synchronous sink" : "through the fiber"})`, () =>
      Effect.gen(function*() {
        const t = yield* paced({ offer })
        expect(t.methods()).toEqual(["subscriptions/acknowledged"])
        // Idle: written at once, though the interval is 60 s and the clock has not moved.
        yield* t.publish(SubscriptionHub.toolsListChanged)
        expect(t.methods()).toEqual(["subscriptions/acknowledged", "tools/list_changed"])
        // Within the interval of that write: they wait, a repeated change queued once.
        yield* t.publish(SubscriptionHub.promptsListChanged, SubscriptionHub.toolsListChanged, SubscriptionHub.promptsListChanged)
        expect(t.frames.length).toBe(2)
        yield* TestClock.adjust("59999 millis")
        expect(t.frames.length).toBe(2)
        // The end of the interval: what waited leaves together.
        yield* TestClock.adjust("1 millis")
        expect(t.methods().slice(2)).toEqual(["prompts/list_changed", "tools/list_changed"])
        // Still within the interval of that batch.
        yield* t.publish(SubscriptionHub.toolsListChanged)
        expect(t.frames.length).toBe(4)
        yield* TestClock.adjust("60 seconds")
        expect(t.methods().slice(4)).toEqual(["tools/list_changed"])
        // A whole interval with nothing written: idle again, at once.
        yield* TestClock.adjust("60 seconds")
        yield* t.publish(SubscriptionHub.promptsListChanged)
        expect(t.methods().slice(5)).toEqual(["prompts/list_changed"])
        // The fast path writes an idle stream's change from the publisher, the fiber the rest.
        expect(t.via).toEqual(offer ? { write: 4, offer: 2 } : { write: 6, offer: 0 })
        // Ending every stream while one rests: what waits is written at the end of its rest, then it ends.
        yield* t.publish(SubscriptionHub.toolsListChanged)
        t.streams.closeAll()
        yield* TestClock.adjust("60 seconds")
        expect(yield* Fiber.join(t.fiber)).toEqual({ _tag: "Graceful" })
        expect(t.methods().slice(6)).toEqual(["tools/list_changed"])
        expect(t.hub.size()).toBe(0)
      }))
  }

  it.effect("a sink whose synchronous write throws does not stop the publisher: the change takes the fiber's way", () =>
    Effect.gen(function*() {
      const hub = SubscriptionHub.makeMemory()
      const broken = yield* paced({ offer: "throws", hub })
      const other = yield* paced({ offer: true, hub })
      yield* broken.publish(SubscriptionHub.toolsListChanged)
      expect(broken.methods()).toEqual(["subscriptions/acknowledged", "tools/list_changed"])
      expect(other.methods()).toEqual(["subscriptions/acknowledged", "tools/list_changed"])
      expect(broken.via).toEqual({ write: 2, offer: 1 })
    }))

  it.effect("a change is encoded once for every stream and tagged with each stream's id, an int64 id with every digit", () =>
    Effect.gen(function*() {
      const a = yield* paced({ offer: true, id: 9007199254740993n })
      const b = yield* paced({ offer: false, id: "b" })
      const change = SubscriptionHub.resourceUpdated("file:///x")
      yield* Effect.all([a.hub.publish(change), b.hub.publish(change)])
      yield* settle
      expect(a.frames[1]).toBe(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"${subscriptionId}":9007199254740993},"uri":"file:///x"}}`)
      expect(JSON.parse(b.frames[1]!)).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { _meta: { [subscriptionId]: "b" }, uri: "file:///x" } })
    }))
})
