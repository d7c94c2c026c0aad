/**
 * An observed server over Streamable HTTP:
 *
 *   npx node examples/09-observability/main.ts [--port 3009] [--otlp http://127.0.0.1:4318]
 *   curl -s localhost:3009/metrics
 *
 * With `--otlp`, spans go to `URL/v1/traces` (OTLP/HTTP, JSON); the audit log of refusals and
 * defects goes to stderr either way.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as StdioTransport from "@snodo/core/StdioTransport"
import { Effect, Layer } from "effect"
import { FetchHttpClient, HttpRouter } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"
import { createServer } from "node:http"
import { parseArgs } from "node:util"
import { App } from "./server.ts"

const { values } = parseArgs({ options: { port: { type: "string", default: "3009" }, otlp: { type: "string" } }, strict: true })

/** A tracing backend, when asked for: provided under the whole application, the server included. */
const Tracing = values.otlp === undefined ? Layer.empty : OtlpTracer.layer({
  url: `${values.otlp.replace(/\/+$/, "")}/v1/traces`,
  resource: { serviceName: "observability-example" }
}).pipe(Layer.provide([OtlpSerialization.layerJson, FetchHttpClient.layer]))

HttpRouter.serve(App).pipe(
  Layer.provide(NodeHttpServer.layer(createServer, { port: Number(values.port), host: "127.0.0.1" })),
  Layer.provide(Tracing),
  Layer.launch,
  Effect.provide(StdioTransport.stderrLogger),
  NodeRuntime.runMain
)
