/** Where a decoded message goes: run, listen, or a reply; and which requests can stream. */
import { Effect, ManagedRuntime, Scope } from "effect"
import * as InFlight from "@snodo/protocol/peer/InFlight"
import * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Dispatch from "../src/Dispatch.ts"
import * as RequestHead from "../src/RequestHead.ts"
import { meta, protocolVersion } from "./support/Raw.ts"
import { Server } from "./support/TestServer.ts"

const runtime = ManagedRuntime.make(Server.layer)
let server: ServerRuntime["Service"]
beforeAll(async () => {
  server = await runtime.runPromise(Effect.service(ServerRuntime))
})
afterAll(() => runtime.dispose())

const headOf = (headers: Record<string, string>) => RequestHead.fromRaw(Object.entries(headers).flat())
const agreeing = (method: string, name?: string) =>
  headOf({
    "MCP-Protocol-Version": protocolVersion,
    "Mcp-Method": method,
    ...(name === undefined ? {} : { "Mcp-Name": name })
  })
const none = headOf({})

/** An in-flight map holding a never-ending request per entry, whose interruption is recorded. */
const inFlightWith = (entries: ReadonlyArray<readonly [string, string | number, string]>, cancelled: Array<string>) =>
  Effect.runSync(Effect.gen(function*() {
    const inFlight = yield* Scope.provide(InFlight.make, Scope.makeUnsafe())
    for (const [scope, id, label] of entries) {
      inFlight.add(scope, id, Effect.runFork(Effect.onInterrupt(Effect.never, () => Effect.sync(() => void cancelled.push(label)))))
    }
    return inFlight
  }))

const settle = () => new Promise((resolve) => setTimeout(resolve, 10))

const route = (message: unknown, head = none, inFlight = inFlightWith([], []), principal = "alice") =>
  Dispatch.route(Envelope.decode(typeof message === "string" ? message : JSON.stringify(message)), head, server, inFlight, principal)

const bodyOf = (routed: Dispatch.Route) => {
  if (routed._tag !== "Reply") throw new Error(`expected a reply, got ${routed._tag}`)
  return { status: routed.reply.status, body: routed.reply.body === undefined ? undefined : JSON.parse(routed.reply.body) }
}

describe("Dispatch.route", () => {
  it("a request whose headers agree is a Call carrying the decoded request", () => {
    const routed = route({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "echo", arguments: { text: "a" }, _meta: meta() } }, agreeing("tools/call", "echo"))
    expect(routed._tag).toBe("Call")
    if (routed._tag === "Call") expect(routed.request).toMatchObject({ id: 7, method: "tools/call", params: { name: "echo" } })
  })

  it("subscriptions/listen is a Listen", () => {
    const routed = route({ jsonrpc: "2.0", id: "l", method: "subscriptions/listen", params: { _meta: meta() } }, agreeing("subscriptions/listen"))
    expect(routed).toMatchObject({ _tag: "Listen", request: { id: "l", method: "subscriptions/listen" } })
  })

  it("a request whose headers disagree is 400 with a -32020 answering its id, before anything runs", () => {
    const body = { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "echo", arguments: { text: "a" }, _meta: meta() } }
    expect(bodyOf(route(body, agreeing("tools/call", "other")))).toMatchObject({
      status: 400,
      body: { jsonrpc: "2.0", id: 8, error: { code: -32020, data: { header: "Mcp-Name", body: "params.name" } } }
    })
    expect(bodyOf(route(body, none))).toMatchObject({ status: 400, body: { id: 8, error: { code: -32020 } } })
    expect(bodyOf(route(body, agreeing("tools/list", "echo"))).body.error.data).toMatchObject({ header: "Mcp-Method" })
  })

  it("a notification whose headers agree is 202 without a body", () => {
    const initialized = { jsonrpc: "2.0", method: "notifications/initialized" }
    expect(bodyOf(route(initialized, agreeing("notifications/initialized")))).toEqual({ status: 202, body: undefined })
    expect(bodyOf(route({ jsonrpc: "2.0", method: "notifications/whatever", params: {} }, agreeing("notifications/whatever")))).toEqual({ status: 202, body: undefined })
  })

  it("a notification is held to the header rules of a request: both headers, Mcp-Method equal to method", () => {
    const initialized = { jsonrpc: "2.0", method: "notifications/initialized" }
    expect(bodyOf(route(initialized))).toMatchObject({ status: 400, body: { error: { code: -32020, data: { header: "MCP-Protocol-Version" } } } })
    expect(bodyOf(route(initialized, headOf({ "MCP-Protocol-Version": protocolVersion })))).toMatchObject({ status: 400, body: { error: { data: { header: "Mcp-Method" } } } })
    const refused = bodyOf(route(initialized, agreeing("notifications/cancelled")))
    expect(refused).toMatchObject({ status: 400, body: { error: { code: -32020, data: { header: "Mcp-Method", body: "method" } } } })
    expect(refused.body).not.toHaveProperty("id")
  })

  it("notifications/cancelled cancels the same principal's request with that id, and only that", async () => {
    const cancelled: Array<string> = []
    const registry = inFlightWith([["alice", 7, "alice 7"], ["bob", 7, "bob 7"], ["alice", "7", "alice '7'"]], cancelled)
    const cancel = (requestId: unknown) => ({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } })
    const head = agreeing("notifications/cancelled")
    expect(bodyOf(route(cancel(7), head, registry, "alice")).status).toBe(202)
    await settle()
    expect(cancelled).toEqual(["alice 7"])
    expect(bodyOf(route(cancel(8), head, registry, "alice")).status).toBe(202)
    expect(bodyOf(route(cancel({ nested: 7 }), head, registry, "alice")).status).toBe(202)
    await settle()
    expect(cancelled).toEqual(["alice 7"])
    route(cancel(7), head, registry, "bob")
    await settle()
    expect(cancelled).toEqual(["alice 7", "bob 7"])
    // Without its headers the cancel is refused, and reaches nothing.
    expect(bodyOf(route(cancel("7"), none, registry, "alice")).status).toBe(400)
    await settle()
    expect(cancelled).toEqual(["alice 7", "bob 7"])
  })

  it("an anonymous caller's posted cancel reaches nothing, even a request registered as anonymous", async () => {
    const cancelled: Array<string> = []
    const registry = inFlightWith([["anonymous", 1, "anonymous 1"]], cancelled)
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }
    expect(bodyOf(route(cancel, agreeing("notifications/cancelled"), registry, "anonymous")).status).toBe(202)
    await settle()
    expect(cancelled).toEqual([])
  })

  it("an unreadable message is refused with its error: without an id when there is none to answer", () => {
    expect(bodyOf(route("{"))).toEqual({ status: 400, body: { jsonrpc: "2.0", error: { code: -32700, message: expect.any(String) } } })
    expect(bodyOf(route("[]")).body).toMatchObject({ error: { code: -32600 } })
    expect(bodyOf(route("[]")).body).not.toHaveProperty("id")
    // A readable id is answered, and the status follows the code.
    expect(bodyOf(route({ jsonrpc: "2.0", id: 9, method: "tools/list", params: [] }))).toMatchObject({
      status: 400,
      body: { jsonrpc: "2.0", id: 9, error: { code: -32602 } }
    })
    expect(bodyOf(route({ jsonrpc: "2.0", id: "x", method: 5 }))).toMatchObject({ status: 400, body: { id: "x", error: { code: -32600 } } })
    expect(bodyOf(route({ jsonrpc: "2.0", id: 1.5, method: "tools/list" })).body).not.toHaveProperty("id")
  })

  it("a JSON-RPC response, or a notification that is not one, is 400 -32600", () => {
    expect(bodyOf(route({ jsonrpc: "2.0", id: 1, result: {} }))).toMatchObject({ status: 400, body: { error: { code: -32600 } } })
    const ignored = bodyOf(route({ jsonrpc: "1.0", method: "notifications/initialized" }))
    expect(ignored).toMatchObject({ status: 400, body: { error: { code: -32600, message: expect.stringMatching(/^Invalid notification: /) } } })
    expect(ignored.body).not.toHaveProperty("id")
  })
})

describe("Dispatch.wantsNotifications", () => {
  it("holds for a progress token or a log level in _meta, and nothing else", () => {
    expect(Dispatch.wantsNotifications({ _meta: { progressToken: 0 } })).toBe(true)
    expect(Dispatch.wantsNotifications({ _meta: { progressToken: "t" } })).toBe(true)
    expect(Dispatch.wantsNotifications({ _meta: { "io.modelcontextprotocol/logLevel": "debug" } })).toBe(true)
    expect(Dispatch.wantsNotifications({ _meta: {} })).toBe(false)
    expect(Dispatch.wantsNotifications({ _meta: null })).toBe(false)
    expect(Dispatch.wantsNotifications({ _meta: "progressToken" })).toBe(false)
    expect(Dispatch.wantsNotifications({ progressToken: "t" })).toBe(false)
    expect(Dispatch.wantsNotifications({})).toBe(false)
  })
})
