/**
 * Peer: the Effect HTTP floor, a diagnostic. `HttpServer.serve` on `@effect/platform-node`
 * NodeHttpServer (the platform our transport and effect/ai both run on), reading the body,
 * `JSON.parse`-ing it and answering the canned result of the raw floor. No MCP semantics: it shows
 * how much of the gap to the raw node:http floor is the platform's and how much is ours.
 *
 *   npx node bench/peers/effect-http.ts --port 3005 [--tools list]
 */
import http from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer } from "effect"
import { HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { cannedToolsList, host, parseArgs } from "./args.ts"

const args = parseArgs()
const serverInfo = { "io.modelcontextprotocol/serverInfo": { name: "bench-effect-http", version: "0" } }
const cannedList = cannedToolsList("bench-effect-http")

interface Body {
  readonly id?: unknown
  readonly params?: { readonly arguments?: { readonly text?: unknown } }
}

const app = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const body = JSON.parse(yield* request.text) as Body
  const text = body.params?.arguments?.text
  const frame = args.catalog === "list"
    ? `{"jsonrpc":"2.0","id":${JSON.stringify(body.id ?? null)},"result":${cannedList}}`
    : JSON.stringify({
      jsonrpc: "2.0",
      id: body.id ?? null,
      result: { content: [{ type: "text", text: JSON.stringify({ text }) }], structuredContent: { text }, resultType: "complete", _meta: serverInfo }
    })
  return HttpServerResponse.text(frame, { contentType: "application/json" })
}).pipe(Effect.catch(() => Effect.succeed(HttpServerResponse.text("{}", { status: 400, contentType: "application/json" }))))

const node = NodeHttpServer.layer(() => {
  const server = http.createServer()
  server.keepAliveTimeout = 60_000
  return server
}, { port: args.port, host })

Layer.launch(HttpServer.serve(app).pipe(Layer.provide(node))).pipe(NodeRuntime.runMain)
