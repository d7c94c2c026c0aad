/**
 * The initialize-era dialect (2025-11-25) through a real `Connection` (the code stdio runs), with a
 * sink the test reads: lifecycle, the era's shapes, logging, subscriptions, the same `Input`
 * handlers answered by server-to-client requests, and the Tasks extension's absence. Every
 * message the server writes under 2025-11-25 is checked against that revision's schema.json.
 */
import { describe, expect, it } from "@effect/vitest"
import { Content, Input, InputRequired, McpLog, McpServer, Progress, Prompt, Resource, SubscriptionHub, Tool } from "@snodo/core"
import * as Connection from "@snodo/core/transport/Connection"
import * as Tasks from "@snodo/tasks"
import { Effect, Latch, Layer, Option, Ref, Schedule, Schema } from "effect"
import { TestClock } from "effect/testing"
import { validateServerMessage2025 } from "../support/OfficialSchema2025.ts"

type Frame = Record<string, unknown> & {
  readonly id?: unknown
  readonly method?: string
  readonly result?: Record<string, unknown>
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown }
  readonly params?: Record<string, unknown>
}

const NameForm = Input.form({
  message: "What is your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
})

const askName = Tool.make("ask_name", { description: "asks a name", input: Schema.Struct({}) }, () =>
  Effect.gen(function*() {
    const answer = yield* Input.elicit("name", NameForm)
    return answer.action === "accept" ? `Hello, ${answer.content.name}!` : `No name (${answer.action})`
  }))

const askAll = Tool.make("ask_all", { description: "asks three things at once", input: Schema.Struct({}) }, () =>
  Effect.gen(function*() {
    const { name, roots, sample } = yield* Input.all({
      name: Input.elicit("name", NameForm),
      roots: Input.roots("roots"),
      sample: Input.sample("sample", { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 })
    })
    const who = name.action === "accept" ? name.content.name : name.action
    return `${who}; ${roots.length} root(s); ${sample.model}`
  }))

const supports = Tool.make("supports", { description: "asks only what the client can answer", input: Schema.Struct({}) }, () =>
  Effect.map(Input.supports(Input.roots("roots")), (yes) => yes ? "roots supported" : "roots not supported"))

const ConfirmRequest = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Confirm?",
    requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }
  }
} as const

const lowLevel = Tool.make("low_level", { description: "returns InputRequired itself", input: Schema.Struct({}) }, () =>
  Effect.gen(function*() {
    const responses = yield* Input.responses
    const state = yield* Input.requestState
    const confirm = responses["confirm"]
    if (confirm === undefined) return InputRequired.make({ inputRequests: { confirm: ConfirmRequest }, requestState: "round-1" })
    return `confirmed ${JSON.stringify(confirm)} after ${Option.getOrElse(state, () => "nothing")}`
  }))

const logs = Tool.make("logs", { description: "logs at two levels", input: Schema.Struct({}) }, () =>
  Effect.gen(function*() {
    yield* McpLog.log("debug", "a debug line")
    yield* McpLog.log("warning", "a warning")
    return "logged"
  }))

const progress = Tool.make("progress", { description: "reports progress", input: Schema.Struct({}) }, () =>
  Effect.gen(function*() {
    yield* Progress.report(1, { total: 2 })
    yield* Progress.report(2, { total: 2, message: "done" })
    return "progressed"
  }))

const job = Tool.make("job", { description: "may run as a task", input: Schema.Struct({}) }, () => Effect.succeed("job done"))

const readme = Resource.make({ uri: "file:///readme", name: "readme", mimeType: "text/plain" }, () =>
  Effect.succeed(Content.textContents("file:///readme", "read me", "text/plain")))

const greet = Prompt.make("greet", { description: "greets" }, () => Effect.succeed([Prompt.user("Hello")]))

const settle = Effect.forEach(Array.from({ length: 50 }), () => Effect.yieldNow, { discard: true })

const meta2026 = (capabilities: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": capabilities
})

const everyCapability = { elicitation: {}, sampling: {}, roots: {} }

/** A connection to a server speaking both dialects (or `dialects`), with a memory hub and tasks. */
const harness = (options: {
  readonly dialects?: ReadonlyArray<"2026-07-28" | "2025-11-25">
  readonly backpressure?: Connection.Backpressure
} = {}) =>
  Effect.gen(function*() {
    const hub = SubscriptionHub.makeMemory()
    const interrupted = yield* Ref.make(0)
    const slow = Tool.make("slow_ask", { description: "asks, and counts its interruptions", input: Schema.Struct({}) }, () =>
      Input.elicit("name", NameForm).pipe(Effect.as("answered"), Effect.onInterrupt(() => Ref.update(interrupted, (n) => n + 1))))
    const server = McpServer.make({
      name: "era-test",
      version: "1.0.0",
      logging: true,
      clientRequestTimeout: "1 second",
      ...(options.dialects === undefined ? { dialects: ["2026-07-28", "2025-11-25"] } : { dialects: options.dialects })
    }).add(askName, askAll, supports, lowLevel, logs, progress, job, slow, readme, greet)
      .extend(Tasks.extension({ tools: { job: Tasks.optional() } }))
    const frames: Array<Frame> = []
    // Closed, every write waits (a client that stopped reading).
    const gate = yield* Latch.make(true)
    // Built in the test's scope: the task runner lives as long as the connection.
    const runtime = yield* Layer.build(server.layer.pipe(
      Layer.provide(Layer.succeed(SubscriptionHub.SubscriptionHub, hub)),
      Layer.provide(Tasks.TaskStore.layerMemory())
    ))
    const connection = yield* Connection.make({
      transport: "memory",
      sink: { write: (frame) => gate.whenOpen(Effect.sync(() => void frames.push(JSON.parse(frame) as Frame))) },
      ...(options.backpressure === undefined ? {} : { backpressure: options.backpressure })
    }).pipe(Effect.provideContext(runtime))
    /** The methods of the requests sent, by id, to validate what answers them. */
    const methods = new Map<string, string>()
    const raw = (message: Record<string, unknown>) => connection.receive(JSON.stringify({ jsonrpc: "2.0", ...message })).pipe(Effect.andThen(settle))
    const send = (id: number | string, method: string, params?: Record<string, unknown>) => {
      methods.set(JSON.stringify(id), method)
      return raw(params === undefined ? { id, method } : { id, method, params })
    }
    const notify = (method: string, params: Record<string, unknown> = {}) => raw({ method, params })
    const respond = (id: unknown, result: Record<string, unknown>) => raw({ id, result })
    const initialize = (capabilities: Record<string, unknown> = everyCapability, protocolVersion = "2025-11-25") =>
      send("init", "initialize", { protocolVersion, capabilities, clientInfo: { name: "era-client", version: "1.0.0" } }).pipe(
        Effect.andThen(notify("notifications/initialized"))
      )
    const answerOf = (id: number | string) => frames.find((frame) => frame.id === id && !("method" in frame))
    /** Waits (live clock, at most 5 s) until the request is answered. */
    const answered = (id: number | string) =>
      Effect.suspend(() => answerOf(id) === undefined ? Effect.fail("pending" as const) : Effect.void).pipe(
        Effect.retry({ schedule: Schedule.spaced("10 millis"), times: 500 }),
        Effect.orDie
      )
    const requests = () => frames.filter((frame) => "id" in frame && typeof frame.method === "string")
    /** Schema violations of every frame written under 2025-11-25 (`modern` lists the ids answered under 2026-07-28). */
    const violations = (modern: ReadonlyArray<number | string> = []) =>
      frames.filter((frame) => !modern.includes(frame.id as number | string)).flatMap((frame) => {
        const requestMethod = "method" in frame ? undefined : methods.get(JSON.stringify(frame.id))
        return validateServerMessage2025(frame, requestMethod === undefined ? {} : { requestMethod })
          .map((error) => `${JSON.stringify(frame).slice(0, 160)}: ${error}`)
      })
    return { hub, frames, gate, connection, send, notify, respond, raw, initialize, answerOf, answered, requests, violations, interrupted }
  })

describe("a server with 2026-07-28 only", () => {
  it.effect("refuses initialize with the message it always had, and ping, setLevel and subscribe likewise", () =>
    Effect.gen(function*() {
      const t = yield* harness({ dialects: ["2026-07-28"] })
      yield* t.send(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } })
      expect(t.answerOf(1)?.error).toEqual({
        code: -32601,
        message: "Method not found: initialize is not part of MCP 2026-07-28 (stateless; supported versions: 2026-07-28); initialize-era clients (MCP 2025-11-25) are served once the server enables that dialect: McpServer.make({ dialects: [\"2026-07-28\", \"2025-11-25\"] })"
      })
      yield* t.send(2, "ping")
      expect(t.answerOf(2)?.error?.message).toBe("Method not found: ping is not part of MCP 2026-07-28 (stateless; supported versions: 2026-07-28); initialize-era clients (MCP 2025-11-25) are served once the server enables that dialect: McpServer.make({ dialects: [\"2026-07-28\", \"2025-11-25\"] })")
      yield* t.send(3, "tools/list", {})
      expect(t.answerOf(3)?.error).toEqual({ code: -32602, message: "Invalid params: missing _meta with io.modelcontextprotocol/protocolVersion" })
    }))
})

describe("the 2025-11-25 lifecycle", () => {
  it.effect("before initialize only ping is served; initialize negotiates; a second one is refused", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.send(1, "ping")
      expect(t.answerOf(1)?.result).toEqual({})
      yield* t.send(2, "tools/list")
      expect(t.answerOf(2)?.error?.code).toBe(-32600)
      expect(t.answerOf(2)?.error?.message).toContain("send initialize first")
      yield* t.initialize(everyCapability, "2024-11-05")
      expect(t.answerOf("init")?.result).toMatchObject({ protocolVersion: "2025-11-25", serverInfo: { name: "era-test", version: "1.0.0" } })
      yield* t.send(3, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } })
      expect(t.answerOf(3)?.error).toEqual({ code: -32600, message: "Invalid request: the session is already initialized" })
      yield* t.send(4, "tools/list")
      expect(t.answerOf(4)?.result?.["tools"]).toHaveLength(8)
      expect(t.violations()).toEqual([])
    }))

  it.effect("answers the requested version when enabled, with the era's capabilities: no extensions", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.initialize()
      const result = t.answerOf("init")?.result
      expect(result?.["protocolVersion"]).toBe("2025-11-25")
      expect(result?.["capabilities"]).toEqual({
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {}
      })
      expect(t.violations()).toEqual([])
    }))

  it.effect("shapes results for the era: no resultType, no serverInfo _meta, no cache hints", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.initialize()
      yield* t.send(1, "tools/list", { cursor: undefined })
      yield* t.send(2, "resources/read", { uri: "file:///readme" })
      yield* t.send(3, "prompts/get", { name: "greet" })
      yield* t.send(4, "resources/list")
      yield* t.send(5, "tools/call", { name: "job", arguments: {} })
      expect(t.answerOf(2)?.result).toEqual({ contents: [{ uri: "file:///readme", mimeType: "text/plain", text: "read me" }] })
      expect(t.answerOf(3)?.result).toEqual({ description: "greets", messages: [{ role: "user", content: { type: "text", text: "Hello" } }] })
      expect(t.answerOf(5)?.result).toEqual({ content: [{ type: "text", text: "job done" }] })
      for (const id of [1, 2, 3, 4, 5]) expect(Object.keys(t.answerOf(id)?.result ?? {})).not.toContain("resultType")
      expect(t.violations()).toEqual([])
    }))

  it.live("the Tasks extension does not exist for the session, and still does for 2026-07-28 requests", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.initialize()
      yield* t.send(1, "tasks/get", { taskId: "t-1" })
      expect(t.answerOf(1)?.error?.code).toBe(-32601)
      yield* t.send(2, "tools/call", { name: "job", arguments: {} })
      expect(t.answerOf(2)?.result).toEqual({ content: [{ type: "text", text: "job done" }] })
      // the same connection, a stateless request negotiating the extension: a task
      yield* t.send(3, "tools/call", { name: "job", arguments: {}, _meta: meta2026({ extensions: { "io.modelcontextprotocol/tasks": {} } }) })
      yield* t.answered(3)
      expect(t.answerOf(3)?.result).toMatchObject({ resultType: "task" })
      expect(t.violations([3])).toEqual([])
    }))

  it.effect("a _meta naming 2025-11-25 is -32022: that version is negotiated with initialize", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.send(1, "tools/list", {
        _meta: { "io.modelcontextprotocol/protocolVersion": "2025-11-25", "io.modelcontextprotocol/clientCapabilities": {} }
      })
      expect(t.answerOf(1)?.error).toMatchObject({ code: -32022, data: { supported: ["2026-07-28", "2025-11-25"], requested: "2025-11-25" } })
      expect(t.answerOf(1)?.error?.message).toContain("negotiated with initialize")
    }))

  it.effect("methods of 2026-07-28 are not part of the session's revision", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.initialize()
      yield* t.send(1, "server/discover")
      expect(t.answerOf(1)?.error).toEqual({
        code: -32601,
        message: "Method not found: server/discover is not part of MCP 2025-11-25 (initialize-era; supported versions: 2026-07-28, 2025-11-25)"
      })
      expect(t.violations()).toEqual([])
    }))
})

describe("logging, progress and subscriptions", () => {
  it.effect("logging/setLevel sets the McpLog level of every later request", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.initialize()
      yield* t.send(1, "tools/call", { name: "logs", arguments: {} })
      expect(t.frames.filter((frame) => frame.method === "notifications/message")).toEqual([])
      yield* t.send(2, "logging/setLevel", { level: "warning" })
      expect(t.answerOf(2)?.result).toEqual({})
      yield* t.send(3, "tools/call", { name: "logs", arguments: {} })
      expect(t.frames.filter((frame) => frame.method === "notifications/message").map((frame) => frame.params)).toEqual([
        { level: "warning", data: "a warning" }
      ])
      yield* t.send(4, "logging/setLevel", { level: "debug" })
      yield* t.send(5, "tools/call", { name: "logs", arguments: {} })
      expect(t.frames.filter((frame) => frame.method === "notifications/message")).toHaveLength(3)
      yield* t.send(6, "logging/setLevel", { level: "loud" })
      expect(t.answerOf(6)?.error?.code).toBe(-32602)
      expect(t.violations()).toEqual([])
    }))

  it.effect("progress goes to the request's progressToken", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.initialize()
      yield* t.send(1, "tools/call", { name: "progress", arguments: {}, _meta: { progressToken: "p-1" } })
      expect(t.frames.filter((frame) => frame.method === "notifications/progress").map((frame) => frame.params)).toEqual([
        { progressToken: "p-1", progress: 1, total: 2 },
        { progressToken: "p-1", progress: 2, total: 2, message: "done" }
      ])
      expect(t.violations()).toEqual([])
    }))

  it.effect("the hub's changes arrive as the era's notifications: list changes, and updates of subscribed URIs only", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.initialize()
      yield* t.hub.publish(SubscriptionHub.resourceUpdated("file:///readme"))
      yield* t.send(1, "resources/subscribe", { uri: "file:///readme" })
      expect(t.answerOf(1)?.result).toEqual({})
      yield* t.hub.publish(SubscriptionHub.resourceUpdated("file:///readme"))
      yield* t.hub.publish(SubscriptionHub.resourceUpdated("file:///other"))
      yield* t.hub.publish(SubscriptionHub.toolsListChanged)
      yield* t.hub.publish(SubscriptionHub.topic({ topic: "x", method: "notifications/x", params: {}, principal: undefined }))
      yield* settle
      yield* t.send(2, "resources/unsubscribe", { uri: "file:///readme" })
      yield* t.hub.publish(SubscriptionHub.resourceUpdated("file:///readme"))
      yield* settle
      const notifications = t.frames.filter((frame) => frame.method?.startsWith("notifications/") === true && !("id" in frame))
      expect(notifications).toEqual([
        { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "file:///readme" } },
        { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: {} }
      ])
      yield* t.send(3, "resources/subscribe", { uri: "relative" })
      expect(t.answerOf(3)?.error?.code).toBe(-32602)
      expect(t.violations()).toEqual([])
    }))

  it.effect("a client that stops reading loses notifications beyond 64 waiting, and never holds the publisher", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.initialize()
      yield* t.send(1, "resources/subscribe", { uri: "file:///readme" })
      yield* t.gate.close
      for (let update = 0; update < 100; update++) yield* t.hub.publish(SubscriptionHub.resourceUpdated("file:///readme"))
      yield* t.gate.open
      yield* settle
      expect(t.frames.filter((frame) => frame.method === "notifications/resources/updated")).toHaveLength(64)
    }))

  it.effect("closing the connection ends the session: it stops following the hub", () =>
    Effect.gen(function*() {
      const hub = yield* Effect.scoped(Effect.gen(function*() {
        const t = yield* harness()
        expect(t.hub.size()).toBe(0)
        yield* t.initialize()
        expect(t.hub.size()).toBe(1)
        return t.hub
      }))
      expect(hub.size()).toBe(0)
    }))
})

describe("one handler, both eras: Input as server-to-client requests", () => {
  it.effect("Input.elicit sends elicitation/create on the request's stream; the answer resumes the handler", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.initialize()
      yield* t.send(1, "tools/call", { name: "ask_name", arguments: {} })
      const [request] = t.requests()
      expect(request).toMatchObject({ method: "elicitation/create", params: { mode: "form", message: "What is your name?" } })
      expect(t.answerOf(1)).toBeUndefined()
      yield* t.respond(request!.id, { action: "accept", content: { name: "Ada" } })
      expect(t.answerOf(1)?.result).toEqual({ content: [{ type: "text", text: "Hello, Ada!" }] })
      // the same handler on 2026-07-28: an input_required round
      yield* t.send(2, "tools/call", { name: "ask_name", arguments: {}, _meta: meta2026({ elicitation: {} }) })
      expect(t.answerOf(2)?.result).toMatchObject({ resultType: "input_required", inputRequests: { name: { method: "elicitation/create" } } })
      expect(t.violations([2])).toEqual([])
    }))

  it.effect("at the read bounds, the client's answer still reaches the handler waiting for it (not held behind requests)", () =>
    Effect.gen(function*() {
      const t = yield* harness({ backpressure: { maxInFlight: 1 } })
      yield* t.initialize()
      yield* t.send(1, "tools/call", { name: "ask_name", arguments: {} })
      yield* t.send(2, "tools/call", { name: "ask_name", arguments: {} })
      expect([t.requests().length, t.connection.pausedUnsafe()]).toEqual([1, true])
      yield* t.respond(t.requests()[0]!.id, { action: "accept", content: { name: "Ada" } })
      expect(t.answerOf(1)?.result).toEqual({ content: [{ type: "text", text: "Hello, Ada!" }] })
      // request 2 started once 1 was answered, and asks in turn
      expect(t.requests()).toHaveLength(2)
      yield* t.respond(t.requests()[1]!.id, { action: "decline" })
      expect(t.answerOf(2)?.result).toEqual({ content: [{ type: "text", text: "No name (decline)" }] })
      expect(t.violations()).toEqual([])
    }))

  it.effect("Input.all sends every request at once; answers may come in any order", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.initialize()
      yield* t.send(1, "tools/call", { name: "ask_all", arguments: {} })
      const sent = t.requests()
      expect(sent.map((frame) => frame.method).toSorted()).toEqual(["elicitation/create", "roots/list", "sampling/createMessage"])
      const byMethod = (method: string) => sent.find((frame) => frame.method === method)!.id
      yield* t.respond(byMethod("sampling/createMessage"), { role: "assistant", content: { type: "text", text: "hey" }, model: "m-1" })
      yield* t.respond(byMethod("roots/list"), { roots: [{ uri: "file:///work" }] })
      expect(t.answerOf(1)).toBeUndefined()
      yield* t.respond(byMethod("elicitation/create"), { action: "decline" })
      expect(t.answerOf(1)?.result).toEqual({ content: [{ type: "text", text: "decline; 1 root(s); m-1" }] })
      expect(t.violations()).toEqual([])
    }))

  it.effect("asks only what initialize declared: -32021 before anything is sent, and Input.supports says so", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.initialize({ elicitation: {} })
      yield* t.send(1, "tools/call", { name: "ask_all", arguments: {} })
      expect(t.answerOf(1)?.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { roots: {}, sampling: {} } } })
      expect(t.requests()).toEqual([])
      yield* t.send(2, "tools/call", { name: "supports", arguments: {} })
      expect(t.answerOf(2)?.result).toEqual({ content: [{ type: "text", text: "roots not supported" }] })
      expect(t.violations()).toEqual([])
    }))

  it.effect("an answer that does not validate is -32602; a client's error answer is -32603 carrying it", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.initialize()
      yield* t.send(1, "tools/call", { name: "ask_name", arguments: {} })
      yield* t.respond(t.requests()[0]!.id, { action: "accept", content: { name: 42 } })
      expect(t.answerOf(1)?.error?.code).toBe(-32602)
      expect(t.answerOf(1)?.error?.message).toContain("Invalid input response \"name\"")
      yield* t.send(2, "tools/call", { name: "ask_name", arguments: {} })
      yield* t.raw({ id: t.requests()[1]!.id, error: { code: -1, message: "User rejected" } })
      expect(t.answerOf(2)?.error).toEqual({
        code: -32603,
        message: "The client refused elicitation/create: User rejected",
        data: { clientError: { code: -1, message: "User rejected" } }
      })
      // a response to nothing pending is ignored
      yield* t.respond("snodo-999", { action: "cancel" })
      expect(t.violations()).toEqual([])
    }))

  it.effect("no answer within clientRequestTimeout is -32603, and the client is told the request is withdrawn", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.initialize()
      yield* t.send(1, "tools/call", { name: "ask_name", arguments: {} })
      const id = t.requests()[0]!.id
      yield* TestClock.adjust("999 millis")
      expect(t.answerOf(1)).toBeUndefined()
      yield* TestClock.adjust("2 millis")
      yield* settle
      expect(t.frames).toContainEqual({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "timed out" } })
      expect(t.answerOf(1)?.error).toEqual({ code: -32603, message: "The client did not answer elicitation/create in time" })
      expect(t.violations()).toEqual([])
    }))

  it.effect("cancelling the request withdraws its pending ask, interrupts the handler and answers nothing", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.initialize()
      yield* t.send(1, "tools/call", { name: "slow_ask", arguments: {} })
      const id = t.requests()[0]!.id
      yield* t.notify("notifications/cancelled", { requestId: 1 })
      expect(t.frames).toContainEqual({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason: "The request that asked was cancelled" }
      })
      expect(yield* Ref.get(t.interrupted)).toBe(1)
      yield* t.respond(id, { action: "accept", content: { name: "late" } })
      expect(t.answerOf(1)).toBeUndefined()
      expect(t.violations()).toEqual([])
    }))

  it.effect("a low-level InputRequired is emulated: its requests are sent and the handler runs again with the answers", () =>
    Effect.gen(function*() {
      const t = yield* harness()
      yield* t.initialize()
      yield* t.send(1, "tools/call", { name: "low_level", arguments: {} })
      const [request] = t.requests()
      expect(request).toMatchObject({ method: "elicitation/create", params: { message: "Confirm?" } })
      yield* t.respond(request!.id, { action: "accept", content: { ok: true } })
      expect(t.answerOf(1)?.result).toEqual({
        content: [{ type: "text", text: "confirmed {\"action\":\"accept\",\"content\":{\"ok\":true}} after round-1" }]
      })
      expect(t.violations()).toEqual([])
    }))
})
