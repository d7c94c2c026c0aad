/**
 * Anonymous initialize-era callers are bounded per source address (issue 38, A1): on the default
 * unauthenticated server with sessions on, one anonymous client opening more sessions than
 * `maxPerPrincipal` from 127.0.0.2 is refused, and an anonymous client on 127.0.0.1 still gets
 * its session (before: refused 503 with `Retry-After: 1799`, for the 30-minute idle time). Real
 * HTTP listeners, `NodeServe` and the mounted `McpHttp` route; each client binds its socket to
 * its own loopback address.
 */
import { McpServer, Tool } from "@snodo/core"
import * as NodeServe from "@snodo/http/NodeServe"
import * as Sessions from "../../packages/http/src/Sessions.ts"
import { Effect, Layer, ManagedRuntime, Schema } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as McpHttp from "@snodo/http/McpHttp"
import { createServer } from "node:http"
import { describe, expect, it } from "vitest"
import { postFrom } from "../support/PostFrom.ts"

const echo = Tool.make("echo", { input: Schema.Struct({ text: Schema.String }) }, ({ text }) => Effect.succeed(text))

let nextId = 1
/** `initialize` then `notifications/initialized` (a session that lives for the idle time): the answer and the session id. */
const openSession = async (url: string, localAddress: string) => {
  const answer = await postFrom(url, localAddress, {
    jsonrpc: "2.0",
    id: nextId++,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "anonymous", version: "1.0.0" } }
  })
  const session = answer.headers["mcp-session-id"]
  if (typeof session === "string") {
    await postFrom(url, localAddress, { jsonrpc: "2.0", method: "notifications/initialized" }, {
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25"
    })
  }
  return { answer, session: typeof session === "string" ? session : undefined }
}

const server = McpServer.make({ name: "anonymous-sessions", version: "1.0.0", dialects: ["2026-07-28", "2025-11-25"] }).add(echo)

/** The default unauthenticated server with sessions on (default bounds: 64 per caller), listening on 127.0.0.1. */
const adapters = {
  NodeServe: () => ManagedRuntime.make(NodeServe.layer({ port: 0, sessions: true }).pipe(Layer.provide(server.layer))),
  "McpHttp.layerRoute": () =>
    ManagedRuntime.make(
      HttpRouter.serve(McpHttp.layerRoute({ sessions: true }).pipe(Layer.provide(server.layer)), { disableLogger: true, disableListenLog: true }).pipe(
        Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
      )
    )
}

describe("anonymous initialize-era sessions (issue 38, A1)", () => {
  it.each(Object.keys(adapters) as Array<keyof typeof adapters>)("%s: one anonymous source filling its share does not refuse another source", async (adapter) => {
    const runtime = adapters[adapter]()
    try {
      const http = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
      if (http.address._tag === "UnixPathAddress") throw new Error("expected TCP")
      const url = `http://127.0.0.1:${http.address.port}/mcp`

      const flood: Array<Awaited<ReturnType<typeof openSession>>> = []
      for (let index = 0; index < 70; index++) flood.push(await openSession(url, "127.0.0.2"))
      const opened = flood.filter(({ session }) => session !== undefined).length
      const refused = flood.filter(({ answer }) => answer.status === 503)
      console.info(`${adapter}: 70 initialize from 127.0.0.2: ${opened} sessions, ${refused.length} refused 503 (Retry-After ${refused[0]?.answer.headers["retry-after"]})`)
      expect(opened).toBe(64)
      expect(refused).toHaveLength(6)
      expect(JSON.parse(refused[0]!.answer.body)).toMatchObject({
        error: { code: -32603, message: "Server busy: too many sessions of this caller", data: { retryable: true, limit: 64 } }
      })

      // Another anonymous client, from another address, is served, and its session works.
      const other = await openSession(url, "127.0.0.1")
      expect(other.answer.status).toBe(200)
      expect(other.session).toBeDefined()
      const listed = await postFrom(url, "127.0.0.1", { jsonrpc: "2.0", id: nextId++, method: "tools/list" }, {
        "mcp-session-id": other.session!,
        "mcp-protocol-version": "2025-11-25"
      })
      expect(listed.status).toBe(200)
      expect(listed.body).toContain("\"echo\"")
    } finally {
      await runtime.dispose()
    }
  }, 60_000)

  it("counts anonymous callers by address (IPv6 by its /64), authenticated ones by principal", () => {
    expect(Sessions.limitKey("anonymous", "127.0.0.2")).toBe("anonymous@127.0.0.2")
    expect(Sessions.limitKey("anonymous", "::ffff:192.0.2.1")).toBe("anonymous@192.0.2.1")
    expect(Sessions.limitKey("anonymous", "2001:db8:0:1::42")).toBe("anonymous@2001:db8:0:1::/64")
    expect(Sessions.limitKey("anonymous", "2001:0db8:0000:0001:aaaa:bbbb:cccc:dddd")).toBe("anonymous@2001:db8:0:1::/64")
    expect(Sessions.limitKey("anonymous", "::1")).toBe("anonymous@0:0:0:0::/64")
    expect(Sessions.limitKey("anonymous", "fe80::1%eth0")).toBe("anonymous@fe80:0:0:0::/64")
    expect(Sessions.limitKey("anonymous", undefined)).toBe("anonymous")
    expect(Sessions.limitKey("alice", "127.0.0.2")).toBe("alice")
  })
})
