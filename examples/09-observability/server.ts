/**
 * An observed MCP server mounted in an application's Effect HTTP server: `/mcp`, Prometheus text
 * at `/metrics`, and an audit log of refusals and handler defects read from `McpEvents`.
 *
 * Spans: give `App` a tracing backend (main.ts does with `--otlp URL`) and every request is a span,
 * the `forecast` handler's own `Effect.withSpan` nested under it.
 */
import { McpServer, Tool } from "@snodo/core"
import * as McpEvents from "@snodo/core/McpEvents"
import * as Observability from "@snodo/core/Observability"
import * as Authorization from "@snodo/core/Authorization"
import * as McpHttp from "@snodo/http/McpHttp"
import { Effect, Layer, Schema, Stream } from "effect"
import { PrometheusMetrics } from "effect/observability"

const forecast = Tool.make("forecast", {
  description: "Tomorrow's weather for a city",
  input: Schema.Struct({ city: Schema.String })
}, ({ city }) =>
  Effect.succeed(`Sunny in ${city}`).pipe(
    Effect.delay("5 millis"),
    // the handler's own span: a child of the request's span
    Effect.withSpan("forecast.lookup", { attributes: { city } })
  ))

const restricted = Tool.make("restricted", { description: "Nobody may call this", input: Schema.Struct({}) }, () => Effect.succeed("never"))

/** Refuses every call of `restricted`: an invocation refusal, which the audit log records. */
const Policy = Authorization.layer({
  authorize: (phase, component) =>
    phase === "invocation" && component.name === "restricted" ? Authorization.refuse(-32001, "Forbidden") : Authorization.allow
})

export const Server = McpServer.make({ name: "observed", version: "1.0.0" }).add(forecast, restricted)

/** One line per refusal or defect, as an audit log would keep it. */
export const auditLine = (event: McpEvents.McpEvent): string | undefined => {
  switch (event._tag) {
    case "Refusal":
      return `refused ${event.method} ${event.target ?? ""} for ${event.principal}: ${event.reason} (${event.code})`
    case "RequestException":
      return `defect in ${event.method} ${event.target ?? ""} after ${event.durationMillis.toFixed(1)} ms`
    default:
      return undefined
  }
}

/** Follows the server's events for as long as the application runs. */
const AuditLog = Layer.effectDiscard(Effect.gen(function*() {
  const events = yield* McpEvents.McpEvents
  const subscription = yield* events.subscribe
  yield* Stream.fromSubscription(subscription).pipe(
    Stream.runForEach((event) => {
      const line = auditLine(event)
      return line === undefined ? Effect.void : Effect.logWarning(line).pipe(Effect.annotateLogs("audit", true))
    }),
    Effect.forkScoped
  )
}))

/**
 * The application's routes: MCP, Prometheus text, the audit log. The server's Layer is built with
 * the metrics switch and the event hub in its context; the hub is shared with the audit log.
 */
export const App = Layer.mergeAll(
  McpHttp.layerRoute({ path: "/mcp" }).pipe(Layer.provide(Server.layer), Layer.provide(Policy)),
  PrometheusMetrics.layerHttp({ path: "/metrics" }),
  AuditLog
).pipe(
  Layer.provide(Observability.layer({ metrics: true })),
  Layer.provide(McpEvents.layer())
)
