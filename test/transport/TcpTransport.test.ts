/**
 * The one-file TCP transport (TcpTransport.ts, written against exported modules only) driven end
 * to end over a real socket: requests, a duplicate id, cancellation by notification and by closing
 * the socket, the listen cap the connection brings, and the read backpressure it brings: past
 * `maxInFlight` input is held (and with `maxHeldChars: 1` the socket paused at once), and reading
 * resumes once requests are answered.
 */
import { McpServer, Tool } from "@snodo/core"
import { Deferred, Effect, Layer, ManagedRuntime, Schema } from "effect"
import * as net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as TcpTransport from "./TcpTransport.ts"

const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} }

const finalized: Array<string> = []
const started = new Map<string, Deferred.Deferred<void>>()

const add = Tool.make("add", {
  input: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
  output: Schema.Struct({ sum: Schema.Finite })
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

const wait = Tool.make("wait", { input: Schema.Struct({ tag: Schema.String }) }, ({ tag }) =>
  Effect.gen(function*() {
    const ready = started.get(tag)
    if (ready !== undefined) yield* Deferred.succeed(ready, undefined)
    return yield* Effect.never
  }).pipe(Effect.onInterrupt(() => Effect.sync(() => void finalized.push(tag)))))

/** Answers once the test releases its tag. */
const releases = new Map<string, Deferred.Deferred<void>>()
const hold = Tool.make("hold", { input: Schema.Struct({ tag: Schema.String }) }, ({ tag }) =>
  Effect.gen(function*() {
    const release = Deferred.makeUnsafe<void>()
    releases.set(tag, release)
    yield* Deferred.await(release)
    return tag
  }))

const Server = McpServer.make({ name: "tcp", version: "1.0.0" }).add(add, wait, hold)

let runtime: ManagedRuntime.ManagedRuntime<never, unknown>
let server: TcpTransport.TcpServer
/** The same server with at most 3 requests in flight per connection. */
let bounded: TcpTransport.TcpServer
beforeAll(async () => {
  let served: ReadonlyArray<TcpTransport.TcpServer> = []
  runtime = ManagedRuntime.make(
    Layer.effectDiscard(Effect.map(
      Effect.all([TcpTransport.serve(0), TcpTransport.serve(0, { maxInFlight: 3, maxHeldChars: 1 })]),
      (value) => void (served = value)
    )).pipe(Layer.provide(Server.layer))
  )
  await runtime.runPromise(Effect.void)
  server = served[0]!
  bounded = served[1]!
})
afterAll(() => runtime.dispose())

/** A client socket: send lines, read the next message. */
const connect = async (to: TcpTransport.TcpServer = server) => {
  const socket = net.connect(to.port, "127.0.0.1")
  await new Promise((resolve) => socket.once("connect", resolve))
  const messages: Array<Record<string, unknown>> = []
  const waiters: Array<() => void> = []
  let buffered = ""
  socket.on("data", (chunk) => {
    buffered += chunk.toString("utf8")
    let newline: number
    while ((newline = buffered.indexOf("\n")) !== -1) {
      messages.push(JSON.parse(buffered.slice(0, newline)))
      buffered = buffered.slice(newline + 1)
      waiters.splice(0).forEach((wake) => wake())
    }
  })
  const next = async (): Promise<Record<string, unknown>> => {
    while (messages.length === 0) await new Promise<void>((resolve) => waiters.push(resolve))
    return messages.shift()!
  }
  return { socket, next, send: (message: unknown) => socket.write(`${JSON.stringify(message)}\n`), pending: () => messages.length }
}

const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, _meta: meta }
})

const startWaiting = (tag: string) => {
  const ready = Deferred.makeUnsafe<void>()
  started.set(tag, ready)
  return Effect.runPromise(Deferred.await(ready))
}

describe("a transport written outside the core (TCP, one file)", () => {
  it("answers requests, refuses a duplicate id in flight and frames that are not JSON", async () => {
    const client = await connect()
    client.send({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } })
    expect(await client.next()).toMatchObject({ id: 1, result: { supportedVersions: ["2026-07-28"] } })
    client.send(call(2, "add", { a: 1, b: 2 }))
    expect(await client.next()).toMatchObject({ id: 2, result: { structuredContent: { sum: 3 } } })

    const waiting = startWaiting("duplicate")
    client.send(call(3, "wait", { tag: "duplicate" }))
    await waiting
    client.send(call(3, "add", { a: 1, b: 1 }))
    expect(await client.next()).toMatchObject({ id: 3, error: { code: -32600, message: "Invalid request: id is already in flight" } })
    client.socket.write("{not json\n")
    expect(await client.next()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } })
    client.socket.destroy()
  })

  it("notifications/cancelled interrupts the request it names (its finalizer runs, nothing is written)", async () => {
    const client = await connect()
    const waiting = startWaiting("cancelled")
    client.send(call(7, "wait", { tag: "cancelled" }))
    await waiting
    client.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } })
    client.send(call(8, "add", { a: 2, b: 2 }))
    expect(await client.next()).toMatchObject({ id: 8, result: { structuredContent: { sum: 4 } } })
    expect(finalized).toContain("cancelled")
    expect(client.pending()).toBe(0)
    client.socket.destroy()
  })

  it("closing the socket interrupts what its connection still runs", async () => {
    const client = await connect()
    const waiting = startWaiting("closed")
    client.send(call(9, "wait", { tag: "closed" }))
    await waiting
    expect(finalized).not.toContain("closed")
    client.socket.destroy()
    for (let i = 0; i < 200 && (!finalized.includes("closed") || server.open() > 0); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    expect(finalized).toContain("closed")
    expect(server.open()).toBe(0)
  })

  it("pauses reading past maxInFlight and resumes once requests are answered, losing nothing", async () => {
    const client = await connect(bounded)
    const before = bounded.pauses()
    const tags = ["h1", "h2", "h3", "h4", "h5", "h6"]
    // One write: the frames of one chunk, the last three past the bound.
    client.socket.write(tags.map((tag, i) => `${JSON.stringify(call(100 + i, "hold", { tag }))}\n`).join(""))
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    await until(() => ["h1", "h2", "h3"].every((tag) => releases.has(tag)))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(tags.filter((tag) => releases.has(tag))).toEqual(["h1", "h2", "h3"])
    expect(bounded.pauses().paused).toBe(before.paused + 1)
    expect(bounded.pauses().resumed).toBe(before.resumed)

    // One answer makes room for one held request: still paused.
    await Effect.runPromise(Deferred.succeed(releases.get("h1")!, undefined))
    expect(await client.next()).toMatchObject({ id: 100, result: { content: [{ type: "text", text: "h1" }] } })
    await until(() => releases.has("h4"))
    expect(releases.has("h5")).toBe(false)
    expect(bounded.pauses().resumed).toBe(before.resumed)

    // Room for the rest: the held frames are handled, reading resumes.
    for (const tag of ["h2", "h3", "h4"]) await Effect.runPromise(Deferred.succeed(releases.get(tag)!, undefined))
    await until(() => releases.has("h5") && releases.has("h6"))
    expect(bounded.pauses().resumed).toBe(before.resumed + 1)
    for (const tag of ["h5", "h6"]) await Effect.runPromise(Deferred.succeed(releases.get(tag)!, undefined))
    const ids: Array<unknown> = []
    for (let i = 0; i < 5; i++) ids.push((await client.next())["id"])
    expect(ids.toSorted()).toEqual([101, 102, 103, 104, 105])
    // Read again: a new request is answered at once.
    client.send(call(200, "add", { a: 2, b: 3 }))
    expect(await client.next()).toMatchObject({ id: 200, result: { structuredContent: { sum: 5 } } })
    client.socket.destroy()
  })
})
