/**
 * Spans, metrics and events of real requests, through the stdio transport (on streams the test
 * holds) and a real HTTP listener: a recording tracer stands in for an exporter, a metric registry
 * of the test's own is read back as Prometheus text, and the event hub is subscribed to.
 */
import * as McpEvents from "@snodo/core/McpEvents"
import type { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import * as StdioTransport from "@snodo/core/StdioTransport"
import * as NodeServe from "@snodo/http/NodeServe"
import { Context, Effect, Exit, Layer, ManagedRuntime, Metric, Option, Tracer } from "effect"
import { HttpServer } from "effect/http"
import { PrometheusMetrics } from "effect/observability"
import { PassThrough, Writable } from "node:stream"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { observedServer, recording, type Recorded } from "../support/ObservedServer.ts"

type Frame = Record<string, unknown> & {
  readonly result?: Record<string, unknown>
  readonly error?: { readonly code: number; readonly message: string }
}

const caller = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" }
const traceparent = `00-${caller.traceId}-${caller.spanId}-01`

const metaOf = (extra: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  ...extra
})

let nextId = 1
const rpc = (method: string, params: Record<string, unknown>, meta: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0" as const,
  id: nextId++,
  method,
  params: { ...params, _meta: metaOf(meta) }
})
type Message = ReturnType<typeof rpc>

interface Peer {
  readonly transport: "pipe" | "tcp"
  readonly request: (message: Message, headers?: Record<string, string>) => Promise<Frame>
  /** Opens a listen stream, reads its acknowledgement, then ends it the transport's way (stdio EOF, HTTP abort). */
  readonly listenOnce: (message: Message) => Promise<Frame>
  /** How a stream ended by `listenOnce` closes: the server drains it at EOF; an HTTP client goes away. */
  readonly listenEnd: "server" | "client"
  readonly recorded: Recorded
  readonly registry: Metric.MetricRegistry
  readonly events: Array<McpEvents.McpEvent>
  readonly dispose: () => Promise<void>
}

/** The server's runtime, its recorder, registry and the events it published. */
const observed = async <A>(extra: (server: ReturnType<typeof observedServer>) => Layer.Layer<A, unknown>) => {
  const recorded = recording()
  const registry: Metric.MetricRegistry = new Map()
  const events: Array<McpEvents.McpEvent> = []
  const hub = await Effect.runPromise(McpEvents.make())
  const server = observedServer(recorded, registry, { ...hub, publish: (event) => events.push(event) })
  const runtime = ManagedRuntime.make(extra(server))
  await runtime.runPromise(Effect.void)
  return { recorded, registry, events, runtime }
}

const stdioPeer = async (): Promise<Peer> => {
  const { events, recorded, registry, runtime } = await observed((server) => server)
  return {
    transport: "pipe",
    recorded,
    registry,
    events,
    listenEnd: "server",
    listenOnce: async (message) => {
      const frames = await exchange(runtime, message)
      const first = frames.find((frame) => frame["method"] === "notifications/subscriptions/acknowledged")
      if (first === undefined) throw new Error(`no acknowledgement: ${JSON.stringify(frames).slice(0, 300)}`)
      return first
    },
    request: async (message) => answerOf(await exchange(runtime, message), message),
    dispose: () => runtime.dispose()
  }
}

/** Serves one message over an in-process stdio transport until EOF; every frame written. */
const exchange = async (runtime: ManagedRuntime.ManagedRuntime<ServerRuntime, unknown>, message: Message): Promise<Array<Frame>> => {
  const stdin = new PassThrough()
  const writes: Array<string> = []
  const stdout = new Writable({
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      writes.push(chunk)
      done()
    }
  })
  stdin.end(`${JSON.stringify(message)}\n`)
  await runtime.runPromise(StdioTransport.runStreams({ stdin, stdout }))
  return writes.join("").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Frame)
}

/** The response among the frames a request got (notifications may come first). */
const answerOf = (frames: ReadonlyArray<Frame>, message: Message): Frame => {
  const found = frames.find((frame) => frame["id"] === message.id && !("method" in frame))
  if (found === undefined) throw new Error(`no answer to ${message.id}: ${JSON.stringify(frames).slice(0, 300)}`)
  return found
}

const nameHeader = (message: Message): Record<string, string> => {
  const params = message.params as Record<string, unknown>
  if (message.method === "resources/read") return { "mcp-name": String(params["uri"]) }
  if (message.method === "tools/call" || message.method === "prompts/get") return { "mcp-name": String(params["name"]) }
  if (message.method.startsWith("tasks/")) return { "mcp-name": String(params["taskId"]) }
  return {}
}

const httpPeer = async (): Promise<Peer> => {
  const { events, recorded, registry, runtime } = await observed((server) => NodeServe.layer({ port: 0 }).pipe(Layer.provide(server)))
  const address = (await runtime.runPromise(Effect.service(HttpServer.HttpServer))).address
  if (address._tag === "UnixPathAddress") throw new Error("expected TCP")
  const url = `http://127.0.0.1:${address.port}/mcp`
  return {
    transport: "tcp",
    listenEnd: "client",
    listenOnce: async (message) => {
      const aborted = new AbortController()
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": message.method },
        body: JSON.stringify(message),
        signal: aborted.signal
      })
      const reader = response.body!.getReader()
      let text = ""
      while (!text.includes("\n\n")) {
        const chunk = await reader.read()
        if (chunk.done) break
        text += new TextDecoder().decode(chunk.value)
      }
      aborted.abort()
      const data = text.split("\n").find((line) => line.startsWith("data: "))
      return JSON.parse(data!.slice(6)) as Frame
    },
    recorded,
    registry,
    events,
    request: async (message, headers = {}) => {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": message.method,
          ...nameHeader(message),
          ...headers
        },
        body: JSON.stringify(message)
      })
      if (response.headers.get("content-type")?.startsWith("text/event-stream") !== true) return await response.json() as Frame
      const frames = (await response.text()).split("\n").filter((line) => line.startsWith("data: ")).map((line) =>
        JSON.parse(line.slice(6)) as Frame
      )
      return answerOf(frames, message)
    },
    dispose: () => runtime.dispose()
  }
}

/** The request span of `id` (its `jsonrpc.request.id`). */
const spanOf = (peer: Peer, id: number): Tracer.NativeSpan => {
  const found = peer.recorded.spans.find((span) => span.attributes.get("jsonrpc.request.id") === String(id))
  if (found === undefined) throw new Error(`no span for request ${id}: ${peer.recorded.spans.map((span) => span.name).join(", ")}`)
  return found
}

const exitOf = (span: Tracer.NativeSpan): Exit.Exit<unknown, unknown> => {
  if (span.status._tag !== "Ended") throw new Error(`span ${span.name} has not ended`)
  return span.status.exit
}

const parentOf = (span: Tracer.NativeSpan) => Option.getOrUndefined(span.parent)

const prometheus = (peer: Peer) => PrometheusMetrics.formatUnsafe(Context.make(Metric.MetricRegistry, peer.registry))

const behaves = (name: string, make: () => Promise<Peer>) =>
  describe(name, () => {
    let peer: Peer
    beforeAll(async () => {
      peer = await make()
    })
    afterAll(() => peer.dispose())

    it("a tools/call span is the child of the caller's _meta traceparent, named and attributed per the conventions", async () => {
      const message = rpc("tools/call", { name: "echo", arguments: { text: "hi" } }, { traceparent })
      const frame = await peer.request(message)
      expect(frame.result?.["content"]).toEqual([{ type: "text", text: "hi" }])
      const span = spanOf(peer, message.id)
      expect(span.name).toBe("tools/call echo")
      expect(span.kind).toBe("server")
      expect(span.traceId).toBe(caller.traceId)
      expect(parentOf(span)).toMatchObject({ _tag: "ExternalSpan", spanId: caller.spanId, traceId: caller.traceId })
      expect(Object.fromEntries(span.attributes)).toMatchObject({
        "mcp.method.name": "tools/call",
        "mcp.protocol.version": "2026-07-28",
        "jsonrpc.request.id": String(message.id),
        "gen_ai.tool.name": "echo",
        "gen_ai.operation.name": "execute_tool",
        "network.transport": peer.transport,
        "mcp.mrtr.round": 1
      })
      expect(Exit.isSuccess(exitOf(span))).toBe(true)
      // the handler's own span nests under the request's
      const handler = peer.recorded.spans.find((candidate) => candidate.name === "echo.handler" && parentOf(candidate) === span)
      expect(handler?.traceId).toBe(caller.traceId)
    })

    it("an invalid traceparent is ignored: the request still answers, its span starts a trace of its own", async () => {
      for (const invalid of [`ff-${caller.traceId}-${caller.spanId}-01`, `00-${"0".repeat(32)}-${caller.spanId}-01`, "garbage"]) {
        const message = rpc("tools/call", { name: "echo", arguments: { text: "x" } }, { traceparent: invalid })
        const frame = await peer.request(message)
        expect(frame.error).toBeUndefined()
        const span = spanOf(peer, message.id)
        expect(span.traceId).not.toBe(caller.traceId)
        expect(parentOf(span)?._tag).not.toBe("ExternalSpan")
      }
    })

    it("resources/read carries the URI, prompts/get the prompt's name", async () => {
      const read = rpc("resources/read", { uri: "demo://readme" })
      await peer.request(read)
      expect(spanOf(peer, read.id).name).toBe("resources/read")
      expect(spanOf(peer, read.id).attributes.get("mcp.resource.uri")).toBe("demo://readme")
      const prompt = rpc("prompts/get", { name: "summary" })
      await peer.request(prompt)
      expect(spanOf(peer, prompt.id).name).toBe("prompts/get summary")
      expect(spanOf(peer, prompt.id).attributes.get("gen_ai.prompt.name")).toBe("summary")
    })

    it("an error answer ends its span in error with the JSON-RPC code; a defect is a RequestException", async () => {
      const failing = rpc("tools/call", { name: "quota", arguments: {} })
      expect((await peer.request(failing)).error?.code).toBe(-32001)
      const span = spanOf(peer, failing.id)
      expect(span.attributes.get("error.type")).toBe("-32001")
      expect(span.attributes.get("rpc.response.status_code")).toBe("-32001")
      const exit = exitOf(span)
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("Quota exceeded")

      const crashing = rpc("tools/call", { name: "crash", arguments: {} })
      expect((await peer.request(crashing)).error?.code).toBe(-32603)
      expect(spanOf(peer, crashing.id).attributes.get("error.type")).toBe("-32603")
      expect(peer.events.filter((event) => "id" in event && event.id === crashing.id).map((event) => event._tag)).toEqual([
        "RequestStart",
        "RequestException"
      ])
    })

    it("each MRTR round is a span of its own with its round number", async () => {
      const first = rpc("tools/call", { name: "greet", arguments: {} })
      const asked = await peer.request(first)
      expect(asked.result?.["resultType"]).toBe("input_required")
      const second = rpc("tools/call", {
        name: "greet",
        arguments: {},
        inputResponses: { first: { action: "accept", content: { name: "Ada" } } },
        requestState: asked.result?.["requestState"]
      })
      const askedAgain = await peer.request(second)
      expect(askedAgain.result?.["resultType"]).toBe("input_required")
      const third = rpc("tools/call", {
        name: "greet",
        arguments: {},
        inputResponses: { last: { action: "accept", content: { name: "Lovelace" } } },
        requestState: askedAgain.result?.["requestState"]
      })
      expect((await peer.request(third)).result?.["content"]).toEqual([{ type: "text", text: "Hello, Ada Lovelace" }])
      expect([first, second, third].map((message) => spanOf(peer, message.id).attributes.get("mcp.mrtr.round"))).toEqual([1, 2, 3])
    })

    it("events: start and stop per request; an invocation the policy refuses is a Refusal", async () => {
      const echo = rpc("tools/call", { name: "echo", arguments: { text: "e" } })
      await peer.request(echo)
      const echoEvents = peer.events.filter((event) => "id" in event && event.id === echo.id)
      expect(echoEvents.map((event) => event._tag)).toEqual(["RequestStart", "RequestStop"])
      expect(echoEvents[1]).toMatchObject({ outcome: "result", method: "tools/call", target: "echo", principal: "anonymous" })

      const refused = rpc("tools/call", { name: "secret", arguments: {} })
      expect((await peer.request(refused)).error?.code).toBe(-32001)
      const refusedEvents = peer.events.filter((event) => "id" in event && event.id === refused.id)
      expect(refusedEvents.map((event) => event._tag)).toEqual(["RequestStart", "Refusal", "RequestStop"])
      expect(refusedEvents[1]).toMatchObject({ reason: "forbidden", code: -32001, target: "secret" })
    })

    it("metrics read back as Prometheus text: durations and counts by method and outcome, refusals by reason", async () => {
      await peer.request(rpc("tools/call", { name: "echo", arguments: { text: "m" } }))
      await peer.request(rpc("tools/call", { name: "secret", arguments: {} }))
      const unserved = rpc("no/such-method", { name: "client-chosen" })
      await peer.request(unserved)
      // what a client names in an unserved method is no target: not in the span, not in the events
      expect(spanOf(peer, unserved.id).name).toBe("unknown")
      expect(spanOf(peer, unserved.id).attributes.has("mcp.resource.uri")).toBe(false)
      expect(peer.events.find((event) => event._tag === "RequestStop" && event.id === unserved.id)).toMatchObject({ method: "unknown", target: undefined, code: -32601 })
      const text = prometheus(peer)
      expect(text).toMatch(new RegExp(`mcp_server_operation_duration_count\\{[^}]*mcp_method_name="tools/call"[^}]*network_transport="${peer.transport}"[^}]*\\} [1-9]`))
      expect(text).toMatch(/mcp_server_requests\{[^}]*mcp_method_name="tools\/call"[^}]*outcome="result"[^}]*\} [1-9]/)
      expect(text).toMatch(/mcp_server_refusals\{[^}]*reason="forbidden"[^}]*\} [1-9]/)
      // a method nobody serves is counted under "unknown", never under the name a client made up
      expect(text).toMatch(/mcp_method_name="unknown"/)
      expect(text).not.toContain("no/such-method")
      expect(text).toMatch(/mcp_server_requests_active(\{[^}]*\})? 0/)
    })

    it("a task's run is a span of its own, linked to the request that created it; tasks are counted by state", async () => {
      const capabilities = { "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } }
      const create = rpc("tools/call", { name: "job", arguments: {} }, capabilities)
      const created = await peer.request(create)
      expect(created.result?.["resultType"]).toBe("task")
      const taskId = String(created.result?.["taskId"])
      const deadline = Date.now() + 10_000
      for (;;) {
        const got = await peer.request(rpc("tasks/get", { taskId }, capabilities))
        if (got.result?.["status"] === "completed") break
        if (Date.now() > deadline) throw new Error(`task not completed: ${JSON.stringify(got)}`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      const request = spanOf(peer, create.id)
      const run = peer.recorded.spans.find((span) => span.name === "tasks/run job" && span.attributes.get("mcp.task.id") === taskId)
      expect(run?.links.map((link) => link.span.spanId)).toEqual([request.spanId])
      expect(run?.traceId).not.toBe(request.traceId)
      expect(Exit.isSuccess(exitOf(run!))).toBe(true)
      const text = prometheus(peer)
      expect(text).toMatch(/mcp_server_tasks\{mcp_task_status="working"\} [1-9]/)
      expect(text).toMatch(/mcp_server_tasks\{mcp_task_status="completed"\} [1-9]/)
    })

    it("listen streams: open and close events, the open-streams gauge back to 0", async () => {
      const listen = rpc("subscriptions/listen", { notifications: { toolsListChanged: true } })
      const first = await peer.listenOnce(listen)
      expect(first["method"]).toBe("notifications/subscriptions/acknowledged")
      const deadline = Date.now() + 5_000
      while (!peer.events.some((event) => event._tag === "ListenClose" && event.id === listen.id) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      const streamEvents = peer.events.filter((event) => (event._tag === "ListenOpen" || event._tag === "ListenClose") && event.id === listen.id)
      expect(streamEvents).toEqual([
        { _tag: "ListenOpen", id: listen.id, principal: "anonymous" },
        { _tag: "ListenClose", id: listen.id, principal: "anonymous", reason: peer.listenEnd }
      ])
      expect(prometheus(peer)).toMatch(/mcp_server_listen_streams 0/)
    })

    it("progress reports are counted", async () => {
      const before = Number(/mcp_server_progress_reports (\d+)/.exec(prometheus(peer))?.[1] ?? 0)
      const frame = await peer.request(rpc("tools/call", { name: "steps", arguments: {} }, { progressToken: "p1" }))
      expect(frame.result?.["content"]).toEqual([{ type: "text", text: "stepped" }])
      expect(Number(/mcp_server_progress_reports (\d+)/.exec(prometheus(peer))?.[1])).toBe(before + 2)
    })
  })

behaves("over stdio", stdioPeer)
behaves("over HTTP", httpPeer)

describe("over HTTP, the traceparent header", () => {
  let peer: Peer
  beforeAll(async () => {
    peer = await httpPeer()
  })
  afterAll(() => peer.dispose())

  it("is the parent when _meta has none, and _meta wins over it", async () => {
    const other = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" }
    const header = { traceparent: `00-${other.traceId}-${other.spanId}-01`, tracestate: "vendor=a" }
    const fromHeader = rpc("tools/call", { name: "echo", arguments: { text: "h" } })
    await peer.request(fromHeader, header)
    expect(parentOf(spanOf(peer, fromHeader.id))).toMatchObject({ spanId: other.spanId, traceId: other.traceId })
    const fromMeta = rpc("tools/call", { name: "echo", arguments: { text: "m" } }, { traceparent })
    await peer.request(fromMeta, header)
    expect(parentOf(spanOf(peer, fromMeta.id))).toMatchObject({ spanId: caller.spanId, traceId: caller.traceId })
  })
})
