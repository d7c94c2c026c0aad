/**
 * A server with both eras behind `NodeServe` on port 0, a principal from the `x-user` header, and
 * the raw initialize-era requests the tests POST (used by the package's InitializeEra tests and
 * test/http/Hardening.test.ts).
 */
import { type McpServer, Principal, SubscriptionHub } from "@snodo/core"
import type * as Authentication from "@snodo/http/Authentication"
import * as NodeServe from "@snodo/http/NodeServe"
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import { send } from "./Raw.ts"

/** The caller named by `x-user`, anonymous without it. */
export const byHeader: Authentication.Authenticator = {
  authenticate: (headers) => {
    const user = headers["x-user"]
    return typeof user === "string"
      ? Effect.succeed({ principal: Principal.Principal.of({ id: user, claims: {} }), grant: undefined })
      : Effect.succeed({ principal: Principal.anonymous, grant: undefined })
  }
}

/** Serves a server definition (whose handlers need only request services) with a memory hub. */
export const serveEra = async (server: McpServer.McpServer<McpServer.RequestServices>, options: NodeServe.ServeOptions) => {
  const hub = SubscriptionHub.makeMemory()
  const runtime = ManagedRuntime.make(
    NodeServe.layer({ port: 0, authenticate: byHeader, ...options }).pipe(
      Layer.provide(server.layer.pipe(Layer.provide(Layer.succeed(SubscriptionHub.SubscriptionHub, hub))))
    )
  )
  const http = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  if (http.address._tag === "UnixPathAddress") throw new Error("expected TCP")
  return { runtime, hub, url: `http://127.0.0.1:${http.address.port}/mcp` }
}

/** What {@link serveEra} gives a test. */
export type Served = Awaited<ReturnType<typeof serveEra>>

/** The content negotiation every POST carries. */
export const base = { "content-type": "application/json", accept: "application/json, text/event-stream" }

let nextId = 1
/** An initialize-era request with a fresh id. */
export const legacy = (method: string, params?: Record<string, unknown>) =>
  params === undefined ? { jsonrpc: "2.0", id: nextId++, method } : { jsonrpc: "2.0", id: nextId++, method, params }

/** An `initialize` declaring elicitation. */
export const initializeBody = () =>
  legacy("initialize", { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "raw", version: "1.0.0" } })

/** POSTs an initialize-era body with exactly these headers (beside content type and accept). */
export const postLegacy = (url: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  send(url, body, { rawHeaders: Object.entries({ ...base, ...headers }) })

/** The headers of a request of this session. */
export const sessionHeaders = (session: string, extra: Record<string, string> = {}) => ({
  "mcp-protocol-version": "2025-11-25",
  "mcp-session-id": session,
  ...extra
})
