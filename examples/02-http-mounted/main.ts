/**
 * An MCP endpoint mounted in an application's own Effect HTTP server, behind the application's own
 * authentication middleware, next to its other routes.
 *
 *   npx node examples/02-http-mounted/main.ts          # http://127.0.0.1:3001
 *   curl -s localhost:3001/health
 *   curl -s localhost:3001/mcp -H 'authorization: Bearer alice-token' \
 *     -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
 *     -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: tools/call' -H 'mcp-name: whoami' \
 *     -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","_meta":{
 *          "io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
 *
 * Without a token the middleware answers 401 before MCP sees the request. With one, the verified
 * `Principal` it provides is what handlers see (`(yield* McpRequest.current).principal`), and the only identity the
 * transport uses (for cancellation). The one-call alternative, with no router of your own, is
 * `NodeServe.serve({ port: 3001 })` (see `docs/http.md`).
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { McpRequest, McpServer, Principal, Tool } from "@snodo/core"
import * as McpHttp from "@snodo/http/McpHttp"
import { Effect, Layer, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { createServer } from "node:http"

const whoami = Tool.make("whoami", {
  description: "Tells who the verified caller is",
  input: Schema.Struct({})
}, () => Effect.map(McpRequest.current, (request) => `You are ${request.principal.id}`))

const Server = McpServer.make({ name: "mounted", version: "1.0.0" }).add(whoami)

/** The application's tokens; a real application verifies a JWT or asks its session store. */
const tokens = new Map([["alice-token", "alice"], ["bob-token", "bob"]])

/** The application's authentication: bearer token in, verified `Principal` out, or 401. */
export const Authentication = HttpRouter.middleware<{ provides: Principal.Principal }>()((httpEffect) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const header = request.headers["authorization"]
    const subject = header?.startsWith("Bearer ") ? tokens.get(header.slice(7)) : undefined
    if (subject === undefined) {
      return HttpServerResponse.text("Unauthorized", { status: 401, headers: { "www-authenticate": "Bearer" } })
    }
    return yield* Effect.provideService(httpEffect, Principal.Principal, { id: subject, claims: {} })
  })
)

/** The application: its own routes, and MCP at /mcp behind its authentication. */
export const App = Layer.mergeAll(
  HttpRouter.add("GET", "/health", HttpServerResponse.text("ok")),
  McpHttp.layerRoute({ path: "/mcp" }).pipe(Layer.provide(Authentication.layer))
).pipe(Layer.provide(Server.layer))

if (import.meta.main) {
  HttpRouter.serve(App).pipe(
    Layer.provide(NodeHttpServer.layer(createServer, { port: 3001, host: "127.0.0.1" })),
    Layer.launch,
    NodeRuntime.runMain
  )
}
