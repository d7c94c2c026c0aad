/**
 * Request lifetimes over Streamable HTTP on a real listener (port 0): listen streams (filters,
 * cap, no deadline, closed by a posted cancel, by disconnect and by shutdown), backpressure from a
 * client that stops reading (both overflow policies), an unpaced progress burst, and the official
 * client's `onprogress` and `listen`. Every message is checked against the official schema.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import type { Overflow } from "@snodo/core/extension/Listen"
import * as NodeServe from "@snodo/http/NodeServe"
import { type Duration, Effect, Layer, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import * as Http from "node:http"
import { afterEach, describe, expect, it } from "vitest"
import { listenServer } from "../support/ListenServer.ts"
import { meta } from "../support/StdioProcess.ts"
import { validateServerMessage } from "../support/OfficialSchema.ts"

const subscriptionId = "io.modelcontextprotocol/subscriptionId"

type Frame = Record<string, unknown> & {
  readonly params?: Record<string, unknown> & { readonly _meta?: Record<string, unknown> }
  readonly error?: { readonly code: number; readonly data?: Record<string, unknown> }
}

const running: Array<{ dispose: () => Promise<void> }> = []
afterEach(async () => {
  for (const server of running.splice(0)) await server.dispose()
})

const start = async (options: { maxSubscriptions?: number; queue?: number; overflow?: Overflow; deadline?: string } = {}) => {
  const server = listenServer({
    ...(options.queue === undefined ? {} : { queue: options.queue }),
    ...(options.overflow === undefined ? {} : { overflow: options.overflow })
  })
  const serve: NodeServe.ServeOptions = {
    port: 0,
    ...(options.maxSubscriptions === undefined ? {} : { maxSubscriptions: options.maxSubscriptions }),
    ...(options.deadline === undefined ? {} : { deadline: options.deadline as Duration.Input })
  }
  const runtime = ManagedRuntime.make(NodeServe.layer(serve).pipe(Layer.provide(server.layer)))
  const http = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  if (http.address._tag === "UnixPathAddress") throw new Error("expected TCP")
  let disposed = false
  const handle = {
    ...server,
    url: `http://127.0.0.1:${http.address.port}/mcp`,
    dispose: async () => {
      if (disposed) return
      disposed = true
      await runtime.dispose()
    }
  }
  running.push(handle)
  return handle
}

const headersOf = (body: { method?: string; params?: Record<string, unknown> }) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  ...(body.method === undefined ? {} : { "mcp-method": body.method }),
  ...(body.method === "tools/call" ? { "mcp-name": String(body.params?.["name"]) } : {})
})

const rpc = (id: number | string, method: string, params: Record<string, unknown> = {}, extraMeta: Record<string, unknown> = {}) =>
  ({ jsonrpc: "2.0", id, method, params: { ...params, _meta: { ...meta, ...extraMeta } } })

const post = (url: string, body: Record<string, unknown>, signal?: AbortSignal) =>
  fetch(url, { method: "POST", headers: headersOf(body), body: JSON.stringify(body), ...(signal === undefined ? {} : { signal }) })

const invalid: Array<string> = []
const check = (frame: Frame, requestMethod: string) => {
  const errors = validateServerMessage(frame, "method" in frame ? {} : { requestMethod })
  if (errors.length > 0) invalid.push(`${JSON.stringify(frame).slice(0, 160)}: ${errors.join("; ")}`)
  return frame
}

/** An SSE response read event by event. */
const events = (response: Response, requestMethod: string) => {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ""
  const frames: Array<Frame> = []
  let ended = false
  const next = async (timeoutMs = 5000): Promise<Frame | undefined> => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const boundary = buffer.indexOf("\n\n")
      if (boundary >= 0) {
        const event = buffer.slice(0, boundary)
        buffer = buffer.slice(boundary + 2)
        const data = event.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)).join("\n")
        if (data === "") continue
        const frame = check(JSON.parse(data) as Frame, requestMethod)
        frames.push(frame)
        return frame
      }
      if (ended) return undefined
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no event in time")), Math.max(1, deadline - Date.now())))
      ])
      if (chunk.done) ended = true
      else buffer += chunk.value
    }
  }
  return { next, frames, cancel: () => reader.cancel() }
}

const listen = async (url: string, id: number | string, notifications: Record<string, unknown>, signal?: AbortSignal) => {
  const response = await post(url, rpc(id, "subscriptions/listen", { notifications }), signal)
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
  const stream = events(response, "subscriptions/listen")
  const ack = await stream.next()
  expect(ack).toMatchObject({ method: "notifications/subscriptions/acknowledged", params: { _meta: { [subscriptionId]: id } } })
  return { ...stream, ack: ack! }
}

const call = async (url: string, id: number | string, name: string, args: Record<string, unknown> = {}) => {
  const response = await post(url, rpc(id, "tools/call", { name, arguments: args }))
  return check(await response.json() as Frame, "tools/call")
}

const eventually = async (condition: () => boolean, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time")
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe("subscriptions/listen over HTTP", () => {
  it("delivers to each stream only what its filter asked for, every event tagged", async () => {
    const server = await start()
    const tools = await listen(server.url, "tools", { toolsListChanged: true })
    const prompts = await listen(server.url, "prompts", { promptsListChanged: true })
    const resources = await listen(server.url, "resources", { resourcesListChanged: true })
    const uris = await listen(server.url, "uris", { resourceSubscriptions: ["file:///config.json"] })
    expect(uris.ack.params?.["notifications"]).toEqual({ resourceSubscriptions: ["file:///config.json"] })
    await call(server.url, 1, "publish", { kind: "updated", uris: ["file:///elsewhere", "file:///config.json"] })
    await call(server.url, 2, "publish", { kind: "resources" })
    await call(server.url, 3, "publish", { kind: "prompts" })
    await call(server.url, 4, "publish", { kind: "tools" })
    expect(await tools.next()).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [subscriptionId]: "tools" } } })
    expect((await prompts.next())?.["method"]).toBe("notifications/prompts/list_changed")
    expect((await resources.next())?.["method"]).toBe("notifications/resources/list_changed")
    expect(await uris.next()).toMatchObject({ method: "notifications/resources/updated", params: { uri: "file:///config.json", _meta: { [subscriptionId]: "uris" } } })
    // Nothing else arrives on any of them.
    await call(server.url, 5, "publish", { kind: "tools" })
    expect((await tools.next())?.["method"]).toBe("notifications/tools/list_changed")
    for (const other of [prompts, resources, uris]) await expect(other.next(300)).rejects.toThrow("no event in time")
    expect(invalid).toEqual([])
  })

  it("caps open streams: beyond maxSubscriptions the POST is answered 503 with a retryable -32603", async () => {
    const server = await start({ maxSubscriptions: 2 })
    const first = await listen(server.url, 1, { toolsListChanged: true })
    await listen(server.url, 2, { toolsListChanged: true })
    const refused = await post(server.url, rpc(3, "subscriptions/listen", { notifications: { toolsListChanged: true } }))
    expect(refused.status).toBe(503)
    expect(refused.headers.get("retry-after")).toBe("1")
    expect(check(await refused.json() as Frame, "subscriptions/listen")).toEqual({
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32603, message: "Server busy: too many open subscriptions", data: { retryable: true, limit: 2 } }
    })
    await first.cancel()
    await eventually(() => server.hub.size() === 1)
    await listen(server.url, 4, { toolsListChanged: true })
  })

  it("has no deadline: a stream outlives the request deadline and still delivers", async () => {
    const server = await start({ deadline: "300 millis" })
    const stream = await listen(server.url, 1, { toolsListChanged: true })
    await new Promise((resolve) => setTimeout(resolve, 700))
    await call(server.url, 2, "publish", { kind: "tools" })
    expect((await stream.next())?.["method"]).toBe("notifications/tools/list_changed")
    expect(server.hub.size()).toBe(1)
  })

  it("an anonymous caller's posted notifications/cancelled does not close it (closing the response does)", async () => {
    const server = await start()
    const stream = await listen(server.url, "sub", { toolsListChanged: true })
    const cancelled = await post(server.url, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "sub", reason: "done" } })
    expect(cancelled.status).toBe(202)
    await call(server.url, 2, "publish", { kind: "tools" })
    expect((await stream.next())?.["method"]).toBe("notifications/tools/list_changed")
    expect(server.hub.size()).toBe(1)
    await stream.cancel()
    await eventually(() => server.hub.size() === 0)
  })

  it("a disconnect closes it", async () => {
    const server = await start()
    const abort = new AbortController()
    await listen(server.url, 1, { toolsListChanged: true }, abort.signal)
    expect(server.hub.size()).toBe(1)
    abort.abort()
    await eventually(() => server.hub.size() === 0)
  })

  it("a shutdown ends each stream gracefully with the SubscriptionsListenResult", async () => {
    const server = await start()
    const stream = await listen(server.url, 9, { toolsListChanged: true })
    const disposed = server.dispose()
    const last = await stream.next()
    expect(last).toMatchObject({ jsonrpc: "2.0", id: 9, result: { resultType: "complete", _meta: { [subscriptionId]: 9 } } })
    expect(await stream.next()).toBeUndefined()
    await disposed
    expect(invalid).toEqual([])
  })
})

/** A listen stream read by a client that can stop reading (node:http, paused). */
const pausedListen = (url: string, id: number, notifications: Record<string, unknown>) =>
  new Promise<{ response: Http.IncomingMessage; request: Http.ClientRequest }>((resolve, reject) => {
    const body = JSON.stringify(rpc(id, "subscriptions/listen", { notifications }))
    const request = Http.request(url, { method: "POST", headers: { ...headersOf({ method: "subscriptions/listen" }), "content-length": Buffer.byteLength(body) } }, (response) => {
      response.once("data", () => {
        response.pause()
        resolve({ response, request })
      })
    })
    request.on("error", reject)
    request.end(body)
  })

describe("backpressure over HTTP", () => {
  const uris = Array.from({ length: 50 }, (_, i) => `file:///${String(i).padStart(2, "0")}/${"x".repeat(4000)}`)

  it("close policy: a client that stops reading has its stream closed, the server stays responsive", async () => {
    const server = await start({ queue: 8, overflow: "close" })
    const { request } = await pausedListen(server.url, 1, { resourceSubscriptions: uris })
    expect(server.hub.size()).toBe(1)
    for (let round = 0; round < 400 && server.hub.size() > 0; round++) {
      await call(server.url, `p${round}`, "publish", { kind: "updated", uris })
    }
    expect(server.hub.size()).toBe(0)
    expect((await call(server.url, "after", "stats"))["result"]).toMatchObject({ structuredContent: { subscribers: 0 } })
    request.destroy()
  })

  it("drop-oldest: the stream survives, and once the client reads again the dropped changes are counted", async () => {
    const server = await start({ queue: 8 })
    const { request, response } = await pausedListen(server.url, 1, { resourceSubscriptions: uris })
    for (let round = 0; round < 200; round++) await call(server.url, `p${round}`, "publish", { kind: "updated", uris })
    expect(server.hub.size()).toBe(1)
    let text = ""
    response.setEncoding("utf8")
    response.on("data", (chunk: string) => {
      text += chunk
    })
    response.resume()
    await eventually(() => text.includes('"dev.snodo/dropped":'), 10_000)
    const dropped = [...text.matchAll(/"dev\.snodo\/dropped":(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0)
    expect(dropped).toBeGreaterThan(0)
    request.destroy()
    await eventually(() => server.hub.size() === 0)
  })
})

describe("progress over HTTP", () => {
  it("an unpaced burst of 100 reports arrives in order, all before the result", async () => {
    const server = await start()
    const response = await post(server.url, rpc("b", "tools/call", { name: "burst", arguments: { count: 100 } }, { progressToken: "tok" }))
    const stream = events(response, "tools/call")
    const frames: Array<Frame> = []
    for (let frame = await stream.next(); frame !== undefined; frame = await stream.next()) frames.push(frame)
    expect(frames).toHaveLength(101)
    expect(frames.slice(0, 100).map((frame) => frame.params?.["progress"])).toEqual(Array.from({ length: 100 }, (_, i) => i + 1))
    expect(frames[100]).toMatchObject({ id: "b", result: { content: [{ text: "reported 100" }] } })
    expect(invalid).toEqual([])
  })
})

describe("the official client over HTTP", () => {
  const connect = async (url: string) => {
    const client = new Client({ name: "snodo-lifetimes", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
    await client.connect(new StreamableHTTPClientTransport(new URL(url)))
    return client
  }

  it("onprogress receives every report of a burst, in order", async () => {
    const server = await start()
    const client = await connect(server.url)
    const progress: Array<number> = []
    await client.callTool({ name: "burst", arguments: { count: 100 } }, { onprogress: (update) => progress.push(update.progress) })
    expect(progress).toEqual(Array.from({ length: 100 }, (_, i) => i + 1))
    await client.close()
  })

  it("an AbortSignal closes the stream: the held handler is interrupted", async () => {
    const server = await start()
    const client = await connect(server.url)
    const abort = new AbortController()
    const held = client.callTool({ name: "hold", arguments: {} }, { signal: abort.signal })
    await eventually(() => server.counters.holdStarted === 1)
    abort.abort(new Error("stop"))
    await expect(held).rejects.toThrow()
    await eventually(() => server.counters.holdInterrupted === 1)
    await client.close()
  })

  it("listen: honoured filter, changes delivered to the handler, close releases the stream", async () => {
    const server = await start()
    const client = await connect(server.url)
    const changed: Array<string> = []
    client.setNotificationHandler("notifications/tools/list_changed", () => void changed.push("tools"))
    const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ["file:///config.json"] })
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: ["file:///config.json"] })
    expect(server.hub.size()).toBe(1)
    await client.callTool({ name: "publish", arguments: { kind: "tools" } })
    await eventually(() => changed.length === 1)
    await subscription.close()
    await eventually(() => server.hub.size() === 0)
    await client.close()
  })
})
