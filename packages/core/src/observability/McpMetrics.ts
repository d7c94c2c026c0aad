/**
 * The server's metrics, named after the OpenTelemetry semantic conventions for MCP where they
 * exist (`mcp.server.operation.duration`, in seconds), in the `mcp.server.*` namespace where they
 * do not. They are recorded once `Observability.layer({ metrics: true })` is provided (see
 * {@link Observability}), into the `Metric` registry that `PrometheusMetrics` and `OtlpMetrics`
 * read; Prometheus text spells the dots as underscores (`mcp_server_operation_duration_bucket`).
 *
 * Each carries its unit as the `unit` attribute, which `OtlpMetrics` exports as the metric's unit
 * (`s`, `{request}`, …) and `PrometheusMetrics` leaves out of the labels. Attributes are bounded
 * by the server, never by what a client sends: `mcp.method.name` is a
 * method the server serves (otherwise `"unknown"`), `error.type` a JSON-RPC error code.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { PrometheusMetrics } from "effect/observability"
 *
 * // The text a /metrics endpoint would serve.
 * const scrape = PrometheusMetrics.format()
 * ```
 *
 * @since 0.1.0
 */
import { Metric } from "effect"
import * as SeriesMetrics from "./internal/SeriesMetrics.ts"

/**
 * Request durations from receipt to the encoded answer, in seconds, by `mcp.method.name`,
 * `network.transport` and, on an error answer, `error.type` (the JSON-RPC code). Buckets as the
 * semantic conventions recommend.
 *
 * @category constants
 * @since 0.1.0
 */
export const operationDuration: Metric.Metric<number, Metric.HistogramState> = SeriesMetrics.operationDuration()

/**
 * Requests answered, by `mcp.method.name` and `outcome` (`result`, `error`, `cancelled`,
 * `exception`).
 *
 * @category constants
 * @since 0.1.0
 */
export const requests: Metric.Metric<number, Metric.CounterState<number>> = SeriesMetrics.requests()

/**
 * Requests in the pipeline now.
 *
 * @category constants
 * @since 0.1.0
 */
export const activeRequests = Metric.gauge("mcp.server.requests.active", {
  attributes: { unit: "{request}" },
  description: "MCP requests being served now"
})

/**
 * Requests admitted to the executor and waiting for a place, sampled as requests start and end.
 *
 * @category constants
 * @since 0.1.0
 */
export const executorQueued = Metric.gauge("mcp.server.executor.queued", {
  attributes: { unit: "{request}" },
  description: "Requests waiting for a place in the executor"
})

/**
 * Requests refused before their handler ran, by `reason` (`busy`, `rate-limited`, `forbidden`).
 *
 * @category constants
 * @since 0.1.0
 */
export const refusals: Metric.Metric<number, Metric.CounterState<number>> = SeriesMetrics.refusals()

/**
 * Open `subscriptions/listen` streams.
 *
 * @category constants
 * @since 0.1.0
 */
export const listenStreams = Metric.gauge("mcp.server.listen.streams", {
  attributes: { unit: "{stream}" },
  description: "Open subscriptions/listen streams"
})

/**
 * Change notifications a slow listen stream dropped (drop-oldest).
 *
 * @category constants
 * @since 0.1.0
 */
export const listenDropped = Metric.counter("mcp.server.listen.dropped", {
  attributes: { unit: "{notification}" },
  description: "Change notifications dropped because a listen stream's client did not keep up",
  incremental: true
})

/**
 * `notifications/progress` reports written.
 *
 * @category constants
 * @since 0.1.0
 */
export const progressReports = Metric.counter("mcp.server.progress.reports", {
  attributes: { unit: "{notification}" },
  description: "Progress notifications written",
  incremental: true
})
