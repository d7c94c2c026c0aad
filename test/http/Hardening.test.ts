/**
 * Issue 29, the HTTP half, on real listeners (port 0, loopback): a dual-era endpoint answers a
 * modern GET/DELETE as 2026-07-28 does; two `Authorization` headers are refused like two `Host`s;
 * session GET streams are capped (in total and per principal) and bounded in life; one principal
 * cannot lock others out of sessions, sessions that never sent `notifications/initialized` go
 * quickly, and the refusal says when to retry; a call waiting for the client is released when its
 * session is deleted, and the client is told `notifications/cancelled` at the request's deadline.
 */
import { Input, McpServer, SubscriptionHub, Tool } from "@snodo/core"
import * as NodeServe from "@snodo/http/NodeServe"
import { Effect, Schema } from "effect"
import * as Http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { base, initializeBody, legacy, postLegacy, type Served, serveEra, sessionHeaders } from "../../packages/http/test/support/EraServer.ts"
import { errorOf, eventually, post, request, send, sleep } from "../../packages/http/test/support/Raw.ts"

const NameForm = Input.form({
  message: "Name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
})

const stats = { askStarted: 0, askEnded: 0 }

const ask = Tool.make("ask", { input: Schema.Struct({}) }, () =>
  Effect.map(Input.elicit("name", NameForm), (answer) => answer.action === "accept" ? `Hi ${answer.content.name}` : answer.action).pipe(
    Effect.ensuring(Effect.sync(() => stats.askEnded++))
  ))
const echo = Tool.make("echo", { input: Schema.Struct({ text: Schema.String }) }, ({ text }) => Effect.succeed(text))

/** Callers name themselves in `x-user` (anonymous without it). */

const serve = (options: NodeServe.ServeOptions) =>
  serveEra(McpServer.make({ name: "hardening", version: "1.0.0", dialects: ["2026-07-28", "2025-11-25"] }).add(ask, echo), options)

/** `initialize`, then (unless `initialized: false`) `notifications/initialized`: the session id. */
const initialize = async (url: string, headers: Record<string, string> = {}, initialized = true) => {
  const response = await postLegacy(url, initializeBody(), headers)
  const session = response.headers["mcp-session-id"]
  if (typeof session === "string" && initialized) {
    await postLegacy(url, { jsonrpc: "2.0", method: "notifications/initialized" }, sessionHeaders(session, headers))
  }
  return { response, session: typeof session === "string" ? session : undefined }
}

/** A GET stream of a session: its status, its events so far, whether it ended, and how to close it. */
const openStream = (url: string, headers: Record<string, string>) =>
  new Promise<{ readonly status: number; readonly headers: Http.IncomingHttpHeaders; readonly ended: () => boolean; readonly close: () => void }>(
    (resolve, reject) => {
      const target = new URL(url)
      let ended = false
      const req = Http.request({ host: target.hostname, port: target.port, path: target.pathname, method: "GET", headers, agent: false }, (res) => {
        res.on("data", () => {})
        res.on("end", () => void (ended = true))
        res.on("close", () => void (ended = true))
        resolve({ status: res.statusCode ?? 0, headers: res.headers, ended: () => ended, close: () => req.destroy() })
      })
      req.on("error", (error) => (error as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(error))
      req.end()
    }
  )

describe("a dual-era endpoint (defect 10)", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({ sessions: true })
  })
  afterAll(() => served.runtime.dispose())

  it("a GET or DELETE naming 2026-07-28 without a session is 405 (POST only), not the session's 400", async () => {
    const modern = { "mcp-protocol-version": "2026-07-28" }
    const get = await send(served.url, undefined, { method: "GET", headers: { ...modern, accept: "text/event-stream" } })
    expect([get.status, get.headers["allow"]]).toEqual([405, "POST"])
    const del = await send(served.url, undefined, { method: "DELETE", headers: modern })
    expect([del.status, del.headers["allow"]]).toEqual([405, "POST"])
    // The initialize era's own GET still needs its session.
    const legacyGet = await send(served.url, undefined, { method: "GET", headers: { "mcp-protocol-version": "2025-11-25", accept: "text/event-stream" } })
    expect(legacyGet.status).toBe(400)
  })
})

describe("two Authorization headers (defect 11)", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({ sessions: true })
  })
  afterAll(() => served.runtime.dispose())

  it("are 400 and the connection closed, as two Host headers are; one is served", async () => {
    const body = request("tools/call", { name: "echo", arguments: { text: "hi" } })
    const headers = [
      ["Content-Type", "application/json"],
      ["Accept", "application/json, text/event-stream"],
      ["MCP-Protocol-Version", "2026-07-28"],
      ["Mcp-Method", "tools/call"],
      ["Mcp-Name", "echo"]
    ] as const
    const twice = await send(served.url, body, { rawHeaders: [...headers, ["Authorization", "Bearer a"], ["Authorization", "Bearer b"]] })
    expect([twice.status, twice.headers["connection"], errorOf(twice).message]).toEqual([400, "close", "Bad Request: more than one Authorization header"])
    const once = await send(served.url, body, { rawHeaders: [...headers, ["Authorization", "Bearer a"]] })
    expect(once.status).toBe(200)
    const session = await send(served.url, undefined, {
      method: "GET",
      rawHeaders: [["Accept", "text/event-stream"], ["Mcp-Session-Id", "x"], ["Authorization", "Bearer a"], ["Authorization", "Bearer b"]]
    })
    expect(session.status).toBe(400)
  })
})

describe("session GET streams (defect 2)", () => {
  it("are capped per principal (and in total, below maxConcurrent): 64 of one principal leave POSTs served", async () => {
    const served = await serve({ maxConcurrent: 64, sessions: { maxStreamsPerPrincipal: 4 } })
    const streams: Array<{ readonly status: number; readonly headers: Http.IncomingHttpHeaders; readonly close: () => void }> = []
    try {
      const mallory = { "x-user": "mallory" }
      const sessions = await Promise.all(Array.from({ length: 64 }, () => initialize(served.url, mallory)))
      for (const { session } of sessions) {
        streams.push(await openStream(served.url, { ...sessionHeaders(session!, mallory), accept: "text/event-stream" }))
      }
      const statuses = streams.map((stream) => stream.status)
      const refused = streams.find((stream) => stream.status === 503)
      console.info(`64 GET streams of one principal: ${statuses.filter((status) => status === 200).length} open, ${statuses.filter((status) => status === 503).length} refused 503 (Retry-After ${refused?.headers["retry-after"]})`)
      expect(statuses.filter((status) => status === 200).length).toBe(4)
      expect(Number(refused?.headers["retry-after"])).toBeGreaterThanOrEqual(1)
      // Another principal still opens its stream, and anyone's POST is served.
      const bob = { "x-user": "bob" }
      const { session } = await initialize(served.url, bob)
      const bobs = await openStream(served.url, { ...sessionHeaders(session!, bob), accept: "text/event-stream" })
      streams.push(bobs)
      expect(bobs.status).toBe(200)
      const echoed = await post(served.url, request("tools/call", { name: "echo", arguments: { text: "still served" } }))
      expect(echoed.status).toBe(200)
      // In total at most a quarter of maxConcurrent (16 here).
      const others = await Promise.all(Array.from({ length: 20 }, async (_, index) => {
        const user = { "x-user": `user-${index}` }
        const created = await initialize(served.url, user)
        return openStream(served.url, { ...sessionHeaders(created.session!, user), accept: "text/event-stream" })
      }))
      streams.push(...others)
      expect(others.filter((stream) => stream.status === 200).length).toBe(16 - 5)
    } finally {
      for (const stream of streams) stream.close()
      await served.runtime.dispose()
    }
  }, 30_000)

  it("end at their deadline, and do not keep an idle session alive", async () => {
    const served = await serve({ sessions: { streamTimeout: "300 millis", idleTimeout: "5 seconds" } })
    const idle = await serve({ sessions: { idleTimeout: "300 millis" } })
    try {
      const { session } = await initialize(served.url)
      const stream = await openStream(served.url, { ...sessionHeaders(session!), accept: "text/event-stream" })
      expect(stream.status).toBe(200)
      await sleep(600)
      expect(stream.ended()).toBe(true)
      // Opened again, it is a request of the session, which lives on.
      const again = await openStream(served.url, { ...sessionHeaders(session!), accept: "text/event-stream" })
      expect(again.status).toBe(200)
      again.close()

      const idleSession = (await initialize(idle.url)).session!
      const held = await openStream(idle.url, { ...sessionHeaders(idleSession), accept: "text/event-stream" })
      expect(held.status).toBe(200)
      await sleep(500)
      const ping = await postLegacy(idle.url, legacy("ping"), sessionHeaders(idleSession))
      expect(ping.status).toBe(404)
      await sleep(50)
      expect(held.ended()).toBe(true)
    } finally {
      await served.runtime.dispose()
      await idle.runtime.dispose()
    }
  })
})

describe("session quotas (defect 3)", () => {
  it("one principal cannot fill the table; uninitialized sessions go quickly; refusals say when to retry", async () => {
    const served = await serve({ sessions: { max: 32, maxPerPrincipal: 8, initializeTimeout: "400 millis" } })
    try {
      const mallory = { "x-user": "mallory" }
      const flood = await Promise.all(Array.from({ length: 40 }, () => initialize(served.url, mallory)))
      const created = flood.filter(({ session }) => session !== undefined).length
      const refused = flood.find(({ response }) => response.status === 503)!.response
      console.info(`40 initialize of one principal: ${created} sessions, ${40 - created} refused 503 (Retry-After ${refused.headers["retry-after"]})`)
      expect(created).toBe(8)
      expect(refused.headers["retry-after"]).toBeDefined()
      expect(errorOf(refused)).toMatchObject({ code: -32603, data: { retryable: true, limit: 8 } })
      // Everyone else still gets a session.
      expect((await initialize(served.url, { "x-user": "alice" })).session).toBeDefined()

      // Anonymous callers that never send notifications/initialized: refused with a short Retry-After, then served.
      const anonymous = await Promise.all(Array.from({ length: 12 }, () => initialize(served.url, {}, false)))
      const anonymousRefused = anonymous.find(({ response }) => response.status === 503)!.response
      expect(anonymousRefused.headers["retry-after"]).toBe("1")
      await sleep(500)
      const later = await initialize(served.url)
      expect(later.session).toBeDefined()
      // The first of them was ended: it never said initialized.
      const first = anonymous.find(({ session }) => session !== undefined)!.session!
      expect((await postLegacy(served.url, legacy("ping"), sessionHeaders(first))).status).toBe(404)
    } finally {
      await served.runtime.dispose()
    }
  })
})

/** POSTs an initialize-era call and reads its stream to the end; `onMessage` sees each message as it comes. */
const streamCall = (url: string, body: Record<string, unknown>, headers: Record<string, string>, onMessage: (message: Record<string, unknown>) => void) =>
  new Promise<{ readonly status: number; readonly messages: Array<Record<string, unknown>>; readonly millis: number }>((resolve, reject) => {
    const target = new URL(url)
    const started = Date.now()
    const messages: Array<Record<string, unknown>> = []
    const req = Http.request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers: { ...base, ...headers }, agent: false }, (res) => {
      let buffer = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        buffer += chunk
        let end = buffer.indexOf("\n\n")
        while (end >= 0) {
          const data = buffer.slice(0, end).split("\n").find((line) => line.startsWith("data: "))
          buffer = buffer.slice(end + 2)
          end = buffer.indexOf("\n\n")
          if (data === undefined) continue
          const message = JSON.parse(data.slice(6)) as Record<string, unknown>
          messages.push(message)
          onMessage(message)
        }
      })
      res.on("end", () => resolve({ status: res.statusCode ?? 0, messages, millis: Date.now() - started }))
    })
    req.on("error", reject)
    req.end(JSON.stringify(body))
  })

describe("waits for the client (defect 7)", () => {
  it("a call waiting for an elicitation answer is released when its session is deleted", async () => {
    const served = await serve({ sessions: true, deadline: "5 seconds" })
    try {
      const { session } = await initialize(served.url)
      const ended = stats.askEnded
      const result = await streamCall(served.url, legacy("tools/call", { name: "ask", arguments: {} }), sessionHeaders(session!), (message) => {
        if (message["method"] === "elicitation/create") void send(served.url, undefined, { method: "DELETE", headers: sessionHeaders(session!) })
      })
      console.info(`session deleted while its call waits for the client: the call's stream ended after ${result.millis} ms`)
      expect(result.messages.map((message) => message["method"])).toEqual(["elicitation/create"])
      expect(result.millis).toBeLessThan(2000)
      expect(stats.askEnded).toBe(ended + 1)
    } finally {
      await served.runtime.dispose()
    }
  })

  it("at the request's deadline the client is sent notifications/cancelled for the request it did not answer", async () => {
    const served = await serve({ sessions: true, deadline: "1 second" })
    try {
      const { session } = await initialize(served.url)
      const call = legacy("tools/call", { name: "ask", arguments: {} })
      const result = await streamCall(served.url, call, sessionHeaders(session!), () => {})
      const asked = result.messages[0]!
      expect(asked["method"]).toBe("elicitation/create")
      expect(result.messages.slice(1)).toEqual([
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: asked["id"], reason: expect.any(String) } },
        { jsonrpc: "2.0", id: call.id, error: { code: -32603, message: "Request deadline exceeded" } }
      ])
    } finally {
      await served.runtime.dispose()
    }
  })
})

describe("publishing to listen streams (defect 7)", () => {
  /** Opens a 2026-07-28 listen stream for tool list changes; counts its list_changed frames and when the last came. */
  const listen = (url: string) =>
    new Promise<{ readonly frames: () => number; readonly lastAt: () => number; readonly close: () => void }>((resolve, reject) => {
      const target = new URL(url)
      const body = request("subscriptions/listen", { notifications: { toolsListChanged: true } })
      let frames = 0
      let lastAt = 0
      const req = Http.request({
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        agent: false,
        headers: { ...base, "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" }
      }, (res) => {
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => {
          const seen = chunk.split("notifications/tools/list_changed").length - 1
          if (seen > 0) {
            frames += seen
            lastAt = Date.now()
          }
          if (chunk.includes("acknowledged")) resolve({ frames: () => frames, lastAt: () => lastAt, close: () => req.destroy() })
        })
      })
      req.on("error", (error) => (error as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(error))
      req.end(JSON.stringify(body))
    })

  /**
   * Publishes `count` tool list changes, one every 5 ms; resolves with when the last was published
   * (read before publishing it: an idle stream writes it at once, from the publish itself).
   */
  const publishEvery5ms = async (served: Served, count: number) => {
    let last = 0
    for (let index = 0; index < count; index++) {
      last = Date.now()
      await Effect.runPromise(served.hub.publish(SubscriptionHub.toolsListChanged))
      await sleep(5)
    }
    return last
  }

  /** A session's GET stream, once open: its list_changed frames so far. */
  const sessionStream = async (url: string) => {
    const { session } = await initialize(url)
    const target = new URL(url)
    return new Promise<{ readonly frames: () => number; readonly close: () => void }>((resolve, reject) => {
      let frames = 0
      const req = Http.request({
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "GET",
        agent: false,
        headers: { ...sessionHeaders(session!), accept: "text/event-stream" }
      }, (res) => {
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => {
          frames += chunk.split("notifications/tools/list_changed").length - 1
          if (chunk.includes("stream open")) resolve({ frames: () => frames, close: () => req.destroy() })
        })
      })
      req.on("error", (error) => (error as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(error))
      req.end()
    })
  }

  it("an idle stream writes a change at once, even at a 60 s interval; one within the interval waits (listen and session GET streams)", async () => {
    const served = await serve({ sessions: true, subscriptionInterval: "60 seconds" })
    const publish = () => Effect.runPromise(served.hub.publish(SubscriptionHub.toolsListChanged))
    try {
      const [listening, getting] = [await listen(served.url), await sessionStream(served.url)]
      // Idle: the change comes at once (at the end of the interval it would come 60 s later, long
      // past this wait).
      await publish()
      await eventually(() => listening.frames() === 1 && getting.frames() === 1)
      // Streams opened now are idle; the first ones wrote within the interval: the next change
      // reaches the new ones at once, and waits in the first ones.
      const [fresh, freshGet] = [await listen(served.url), await sessionStream(served.url)]
      await publish()
      await eventually(() => fresh.frames() === 1 && freshGet.frames() === 1)
      // One more exchange with the server after the fresh streams had their change.
      expect((await post(served.url, request("tools/call", { name: "echo", arguments: { text: "x" } }))).status).toBe(200)
      expect([listening.frames(), getting.frames()]).toEqual([1, 1])
      for (const stream of [listening, getting, fresh, freshGet]) stream.close()
    } finally {
      await served.runtime.dispose()
    }
  })

  it("an initialize-era session's GET stream is paced the same way", async () => {
    const served = await serve({ sessions: true })
    const target = new URL(served.url)
    try {
      const { session } = await initialize(served.url)
      let frames = 0
      let lastAt = 0
      const req = Http.request({
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "GET",
        agent: false,
        headers: { ...sessionHeaders(session!), accept: "text/event-stream" }
      }, (res) => {
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => {
          const seen = chunk.split("notifications/tools/list_changed").length - 1
          frames += seen
          if (seen > 0) lastAt = Date.now()
        })
      })
      req.on("error", () => undefined)
      req.end()
      await sleep(200)
      const lastPublished = await publishEvery5ms(served, 100)
      await sleep(300)
      console.info(`100 changes, one every 5 ms, to a session's GET stream: ${frames} frames written`)
      expect(frames).toBeGreaterThanOrEqual(2)
      expect(frames).toBeLessThanOrEqual(20)
      expect(lastAt).toBeGreaterThanOrEqual(lastPublished)
      req.destroy()
    } finally {
      await served.runtime.dispose()
    }
  })

  it("a stream writes at most once per subscriptionInterval: a publisher's changes coalesce, the last one still arrives", async () => {
    const paced = await serve({})
    const unpaced = await serve({ subscriptionInterval: 0 })
    try {
      const [stream, control] = [await listen(paced.url), await listen(unpaced.url)]
      const [lastPublished] = await Promise.all([publishEvery5ms(paced, 100), publishEvery5ms(unpaced, 100)])
      await sleep(300)
      console.info(`100 changes, one every 5 ms: ${stream.frames()} frames written at the default interval (100 ms), ${control.frames()} without one`)
      expect(stream.frames()).toBeGreaterThanOrEqual(2)
      expect(stream.frames()).toBeLessThanOrEqual(20)
      expect(stream.lastAt()).toBeGreaterThanOrEqual(lastPublished)
      expect(control.frames()).toBeGreaterThan(50)
      stream.close()
      control.close()
    } finally {
      await paced.runtime.dispose()
      await unpaced.runtime.dispose()
    }
  })
})
