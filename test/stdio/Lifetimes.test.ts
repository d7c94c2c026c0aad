/**
 * Request lifetimes over stdio, on the raw wire of a real child process: progress order, listen
 * streams (filters, caps, cancel, EOF, overflow), backpressure against a client that stops
 * reading, and cancellation while the executor is saturated. Every message is checked against the
 * official schema.
 */
import { describe, expect, it } from "vitest"
import { validateServerMessage } from "../support/OfficialSchema.ts"
import { meta, requestLine, spawnServer, type StdioProcess } from "../support/StdioProcess.ts"

const listenArgs = (...extra: Array<string>) => ["test/support/ListenServerMain.ts", ...extra]
const everything = ["examples/everything/main.mjs", "--stdio"]
const subscriptionId = "io.modelcontextprotocol/subscriptionId"

type Frame = Record<string, unknown> & {
  readonly params?: Record<string, unknown> & { readonly _meta?: Record<string, unknown> }
  readonly error?: { readonly code: number; readonly message: string; readonly data?: Record<string, unknown> }
}

/** A client on the raw wire that remembers what each id asked for, to validate its answers. */
const wire = (server: StdioProcess) => {
  const methods = new Map<string, string>()
  const seen: Array<Frame> = []
  /** Sends a request; `extraMeta` joins the standard `_meta` (a progress token). */
  const send = (id: number | string, method: string, params: Record<string, unknown> = {}, extraMeta?: Record<string, unknown>) => {
    methods.set(JSON.stringify(id), method)
    server.write(
      extraMeta === undefined
        ? requestLine(id, method, params)
        : JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: { ...meta, ...extraMeta } } }) + "\n"
    )
  }
  const call = (id: number | string, name: string, args: Record<string, unknown> = {}) => send(id, "tools/call", { name, arguments: args })
  const listen = (id: number | string, notifications: Record<string, unknown>) => send(id, "subscriptions/listen", { notifications })
  const cancel = (id: number | string) =>
    server.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "test" } }) + "\n")
  /** Reads until `done` holds for a frame; returns every frame read. */
  const until = async (done: (frame: Frame) => boolean, timeoutMs = 15_000): Promise<Array<Frame>> => {
    const frames: Array<Frame> = []
    for (;;) {
      const [frame] = (await server.read(1, timeoutMs)) as Array<Frame>
      if (frame === undefined) continue
      frames.push(frame)
      seen.push(frame)
      if (done(frame)) return frames
    }
  }
  const answer = async (id: number | string) => (await until((frame) => frame["id"] === id && !("method" in frame))).at(-1)!
  const violations = () =>
    seen.flatMap((frame) => {
      const id = frame["id"]
      const method = id === undefined ? undefined : methods.get(JSON.stringify(id))
      return validateServerMessage(frame, method === undefined ? {} : { requestMethod: method }).map((error) => `${JSON.stringify(frame).slice(0, 160)}: ${error}`)
    })
  return { send, call, listen, cancel, until, answer, violations, seen }
}

const tagOf = (frame: Frame) => frame.params?._meta?.[subscriptionId]
const isAck = (id: unknown) => (frame: Frame) => frame["method"] === "notifications/subscriptions/acknowledged" && tagOf(frame) === id
const stats = async (client: ReturnType<typeof wire>, id: number | string) =>
  (await client.answer(id))["result"] as { structuredContent: { subscribers: number; holdStarted: number; holdInterrupted: number } }

/**
 * Publishes `uris` while the server's writes wait: the client stops reading and a 450 KB echo
 * fills stdout past the writer's queue (256 Ki characters), so the stream cannot keep up; then
 * reads again. (The echo and its answer stay under the 1 Mi characters pending at which the
 * server stops reading: the publish is still read.)
 */
const publishWhileBackedUp = async (server: StdioProcess, client: ReturnType<typeof wire>, uris: ReadonlyArray<string>) => {
  server.child.stdout.pause()
  client.call("fill", "echo", { text: "x".repeat(450 * 1024) })
  client.call(1, "publish", { kind: "updated", uris })
  await new Promise((resolve) => setTimeout(resolve, 500))
  server.child.stdout.resume()
}

describe("progress over stdio", () => {
  it("writes an unpaced burst of 100 reports in order, all before the response", async () => {
    const server = spawnServer(listenArgs())
    const client = wire(server)
    client.send("b", "tools/call", { name: "burst", arguments: { count: 100 } }, { progressToken: "tok" })
    const frames = await client.until((frame) => frame["id"] === "b")
    expect(frames).toHaveLength(101)
    expect(frames.slice(0, 100).map((frame) => frame.params?.["progress"])).toEqual(Array.from({ length: 100 }, (_, i) => i + 1))
    expect(frames.slice(0, 100).every((frame) => frame.params?.["progressToken"] === "tok" && frame.params["total"] === 100)).toBe(true)
    expect(frames[100]).toMatchObject({ id: "b", result: { content: [{ type: "text", text: "reported 100" }] } })
    expect(client.violations()).toEqual([])
    server.child.stdin.end()
    expect((await server.exited).code).toBe(0)
  })
})

describe("subscriptions/listen over stdio", () => {
  it("delivers to each stream only what its filter asked for, every frame tagged", async () => {
    const server = spawnServer(listenArgs())
    const client = wire(server)
    const filters: Record<string, Record<string, unknown>> = {
      tools: { toolsListChanged: true },
      prompts: { promptsListChanged: true },
      resources: { resourcesListChanged: true },
      uris: { resourceSubscriptions: ["file:///config.json"] }
    }
    for (const [id, filter] of Object.entries(filters)) {
      client.listen(id, filter)
      const [ack] = await client.until(isAck(id))
      expect(ack?.params?.["notifications"]).toEqual(filter)
    }
    client.call(1, "publish", { kind: "tools" })
    client.call(2, "publish", { kind: "prompts" })
    client.call(3, "publish", { kind: "resources" })
    client.call(4, "publish", { kind: "updated", uris: ["file:///other", "file:///config.json"] })
    const frames: Array<Frame> = []
    while (frames.filter((frame) => "method" in frame).length < 4 || frames.filter((frame) => frame["id"] !== undefined).length < 4) {
      frames.push(...await client.until(() => true))
    }
    const received = (id: string) => frames.filter((frame) => tagOf(frame) === id).map((frame) => frame["method"])
    expect(received("tools")).toEqual(["notifications/tools/list_changed"])
    expect(received("prompts")).toEqual(["notifications/prompts/list_changed"])
    expect(received("resources")).toEqual(["notifications/resources/list_changed"])
    expect(received("uris")).toEqual(["notifications/resources/updated"])
    expect(frames.find((frame) => tagOf(frame) === "uris")?.params?.["uri"]).toBe("file:///config.json")
    expect(frames.filter((frame) => "method" in frame).every((frame) => tagOf(frame) !== undefined)).toBe(true)
    expect(client.violations()).toEqual([])
    server.child.stdin.end()
    await server.exited
  })

  it("refuses the 33rd open stream with -32603 by default; --max-subscriptions sets the cap", async () => {
    const server = spawnServer(listenArgs())
    const client = wire(server)
    for (let id = 1; id <= 33; id++) client.listen(id, { toolsListChanged: true })
    const refusal = await client.answer(33)
    expect(refusal.error).toEqual({ code: -32603, message: "Server busy: too many open subscriptions", data: { retryable: true, limit: 32 } })
    expect(client.seen.filter((frame) => frame["method"] === "notifications/subscriptions/acknowledged")).toHaveLength(32)
    server.child.stdin.end()
    await server.exited

    const small = spawnServer(listenArgs("--max-subscriptions", "2"))
    const other = wire(small)
    for (let id = 1; id <= 3; id++) other.listen(id, { toolsListChanged: true })
    expect((await other.answer(3)).error?.data).toEqual({ retryable: true, limit: 2 })
    other.cancel(1)
    other.listen(4, { toolsListChanged: true })
    await other.until(isAck(4))
    expect(other.violations()).toEqual([])
    small.child.stdin.end()
    await small.exited
  })

  it("a client notifications/cancelled closes the stream: no response, nothing more, unknown ids ignored", async () => {
    const server = spawnServer(listenArgs())
    const client = wire(server)
    client.listen("a", { toolsListChanged: true })
    client.listen("b", { toolsListChanged: true })
    await client.until(isAck("b"))
    const before = client.seen.length
    client.cancel("a")
    client.cancel("never-sent")
    client.call(1, "stats")
    expect((await stats(client, 1)).structuredContent.subscribers).toBe(1)
    client.call(2, "publish", { kind: "tools" })
    await client.until((frame) => frame["method"] === "notifications/tools/list_changed" && tagOf(frame) === "b")
    await client.answer(2)
    expect(client.seen.slice(before).filter((frame) => tagOf(frame) === "a" || frame["id"] === "a")).toEqual([])
    server.child.stdin.end()
    await server.exited
    expect(server.lines().some((line) => line.includes('"id":"a"'))).toBe(false)
    expect(server.stderr()).toContain("subscribers at exit: 0")
  })

  it("on EOF answers each stream, then ends it with notifications/cancelled, and exits 0", async () => {
    const server = spawnServer(listenArgs())
    const client = wire(server)
    client.listen(1, { toolsListChanged: true })
    client.listen("two", { promptsListChanged: true })
    await client.until(isAck("two"))
    server.child.stdin.end()
    expect(await server.exited).toEqual({ code: 0, signal: null })
    const rest = server.lines().slice(2).map((line) => JSON.parse(line) as Frame)
    for (const id of [1, "two"]) {
      const mine = rest.filter((frame) => frame["id"] === id || tagOf(frame) === id)
      expect(mine).toEqual([
        expect.objectContaining({ id, result: expect.objectContaining({ resultType: "complete", _meta: expect.objectContaining({ [subscriptionId]: id }) }) }),
        expect.objectContaining({ method: "notifications/cancelled", params: expect.objectContaining({ requestId: id }) })
      ])
      for (const frame of mine) {
        expect(validateServerMessage(frame, "id" in frame ? { requestMethod: "subscriptions/listen" } : {})).toEqual([])
      }
    }
    expect(server.stderr()).toContain("subscribers at exit: 0")
  })

  it("drop-oldest: a burst beyond the queue keeps the newest changes and counts the dropped ones", async () => {
    const server = spawnServer(listenArgs("--queue", "4"))
    const client = wire(server)
    const uris = Array.from({ length: 100 }, (_, i) => `file:///doc/${i}`)
    client.listen("s", { resourceSubscriptions: uris })
    await client.until(isAck("s"))
    await publishWhileBackedUp(server, client, uris)
    const frames = await client.until((frame) => frame.params?.["uri"] === "file:///doc/99")
    const updates = frames.filter((frame) => tagOf(frame) === "s")
    const dropped = updates.reduce((sum, frame) => sum + ((frame.params?._meta?.["dev.snodo/dropped"] as number | undefined) ?? 0), 0)
    expect(dropped).toBeGreaterThan(0)
    expect(updates.length + dropped).toBe(100)
    expect(updates.length).toBeLessThanOrEqual(5)
    client.call(2, "stats")
    expect((await stats(client, 2)).structuredContent.subscribers).toBe(1)
    expect(client.violations()).toEqual([])
    server.child.stdin.end()
    await server.exited
  })

  it("close policy: an overflow ends the stream with -32603, then notifications/cancelled", async () => {
    const server = spawnServer(listenArgs("--queue", "4", "--overflow", "close"))
    const client = wire(server)
    const uris = Array.from({ length: 100 }, (_, i) => `file:///doc/${i}`)
    client.listen("s", { resourceSubscriptions: uris })
    await client.until(isAck("s"))
    await publishWhileBackedUp(server, client, uris)
    const frames = await client.until((frame) => frame["method"] === "notifications/cancelled")
    const answer = frames.find((frame) => frame["id"] === "s")
    expect(answer?.error).toMatchObject({ code: -32603, data: { reason: "overflow", queue: 4 } })
    expect(frames.at(-1)?.params).toMatchObject({ requestId: "s", _meta: { [subscriptionId]: "s" } })
    client.call(2, "stats")
    expect((await stats(client, 2)).structuredContent.subscribers).toBe(0)
    expect(client.violations()).toEqual([])
    server.child.stdin.end()
    await server.exited
  })
})

describe("backpressure over stdio", () => {
  it("a client that stops reading: the write timeout ends the transport, work is cleaned up, the process exits", async () => {
    const server = spawnServer(listenArgs("--write-timeout", "1000"))
    const client = wire(server)
    client.call(1, "hold")
    client.listen(2, { toolsListChanged: true })
    await client.until(isAck(2))
    server.child.stdout.pause()
    const big = "x".repeat(256 * 1024)
    for (let id = 10; id < 60; id++) client.call(id, "echo", { text: big })
    const started = Date.now()
    const exit = await server.exited
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(exit.code).not.toBe(0)
    expect(server.stderr()).toContain("hold interrupted")
    expect(server.stderr()).toContain("subscribers at exit: 0")
  })
})

describe("cancellation over stdio", () => {
  it("works while the executor is saturated; unknown and finished ids are ignored", async () => {
    const server = spawnServer(everything)
    const client = wire(server)
    // 32 run (each reports progress every 100 ms), 8 wait in the executor's queue.
    for (let id = 1; id <= 40; id++) client.send(id, "tools/call", { name: "sleep", arguments: { ms: 60_000 } }, { progressToken: id })
    const running = new Set<unknown>()
    await client.until((frame) => {
      running.add(frame.params?.["progressToken"])
      return running.size === 32
    })
    expect([...running].toSorted((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 32 }, (_, i) => i + 1))
    client.cancel(1) // a running one: its place goes to the first waiting request
    await client.until((frame) => frame.params?.["progressToken"] === 33)
    // Waiting ones first (they never start), then the running ones.
    for (let id = 40; id >= 2; id--) client.cancel(id)
    client.cancel(12345)
    client.call("stats", "sleep_stats")
    expect((await client.answer("stats"))["result"]).toMatchObject({ structuredContent: { started: 33, completed: 0, interrupted: 33 } })
    client.cancel("stats") // finished: ignored
    client.call("again", "sleep_stats")
    expect((await client.answer("again"))["result"]).toMatchObject({ structuredContent: { started: 33, interrupted: 33 } })
    server.child.stdin.end()
    expect((await server.exited).code).toBe(0)
    const answered = server.lines().map((line) => JSON.parse(line) as Frame).filter((frame) => typeof frame["id"] === "number" && !("method" in frame))
    expect(answered).toEqual([])
    expect(client.violations()).toEqual([])
  })
})
