/**
 * The everything server over HTTP for `bench/callgrind.ts`, with its tasks in memory, and with
 * `--core canned` its pipeline replaced by a canned echo answer: the HTTP adapter (every check,
 * the body, dispatch, the exchange, the reply) without the core's work, so that a count of the
 * real server minus this one is what the core pipeline costs per request.
 *
 * With `--otlp URL` the real server exports spans and metrics there (`examples/everything/observability.ts`).
 *
 *   npx node bench/callgrind-server.ts --port 3000 [--core real|canned] [--otlp URL]
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import * as StdioTransport from "@snodo/core/StdioTransport"
import { type Outcome, ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import { serveHttp } from "../examples/everything/http.ts"
import { defaultDialects, ServerLayer } from "../examples/everything/server.ts"

const argv = process.argv.slice(2)
const valueOf = (flag: string): string | undefined => {
  const at = argv.indexOf(flag)
  return at < 0 ? undefined : argv[at + 1]
}
const port = Number(valueOf("--port") ?? 3000)
const canned = valueOf("--core") === "canned"
const otlp = valueOf("--otlp")
const Observed = otlp === undefined ? ServerLayer : ServerLayer.pipe(Layer.provide((await import("../examples/everything/observability.ts")).otlpLayer(otlp)))

const echoResult = JSON.stringify({
  content: [{ type: "text", text: JSON.stringify({ text: "hello, bench" }) }],
  structuredContent: { text: "hello, bench" },
  resultType: "complete",
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "everything", version: "0" } }
})
const answer = (request: Envelope.Request): Outcome => ({
  _tag: "Result",
  frame: `{"jsonrpc":"2.0","id":${JSON.stringify(request.id)},"result":${echoResult}}`
})

const Canned = Layer.effectContext(Effect.map(Effect.context<Layer.Success<typeof ServerLayer>>(), (context) => {
  const runtime = Context.get(context, ServerRuntime)
  return Context.add(context, ServerRuntime, { ...runtime, handle: (request) => Effect.succeed(answer(request)) })
})).pipe(Layer.provide(ServerLayer))

process.on("SIGINT", () => process.exit(0))
process.on("SIGTERM", () => process.exit(0))
serveHttp(port, undefined, defaultDialects, canned ? Canned : Observed).pipe(Effect.provide(StdioTransport.stderrLogger), NodeRuntime.runMain)
