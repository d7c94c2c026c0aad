/**
 * What a server reports about itself: spans, metrics, and (with {@link McpEvents}) events.
 *
 * - **Spans** are on as soon as the application installs a tracing backend (`OtlpTracer.layer`,
 *   any `Tracer` other than Effect's native one) where the server's Layer is built: one span per
 *   request, a child of the caller's W3C trace context (`_meta.traceparent`, or over HTTP the
 *   `traceparent` header). Without a backend no span is made at all.
 * - **Metrics** are off until the application asks for them with `layer({ metrics: true })`;
 *   they go to the `Metric` registry of the server's context, where `PrometheusMetrics` and
 *   `OtlpMetrics` read them (see {@link McpMetrics} for their names).
 *
 * With neither (the default), the request path is the same code it is without this module.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import * as Observability from "@snodo/core/Observability"
 * import * as McpServer from "@snodo/core/McpServer"
 *
 * declare const Server: Layer.Layer<McpServer.McpServer>
 * const Observed = Server.pipe(Layer.provide(Observability.layer({ metrics: true })))
 * ```
 *
 * @since 0.1.0
 */
import { Context, Layer } from "effect"

/**
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /**
   * `"auto"` (the default): a span per request when a tracing backend is installed; `false`: no
   * spans whatever the tracer.
   */
  readonly tracing?: "auto" | false
  /** Record the server's metrics (default `false`). */
  readonly metrics?: boolean
}

/**
 * The resolved options.
 *
 * @category models
 * @since 0.1.0
 */
export interface Settings {
  readonly tracing: "auto" | false
  readonly metrics: boolean
}

/**
 * The server's observability settings, read where its Layer is built (default: spans with a
 * tracing backend, no metrics).
 *
 * @category constants
 * @since 0.1.0
 */
export const Observability: Context.Reference<Settings> = Context.Reference<Settings>("@snodo/core/Observability", {
  defaultValue: () => ({ tracing: "auto", metrics: false })
})

/**
 * Sets the observability of the servers built under it.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<never> =>
  Layer.succeed(Observability, { tracing: options.tracing ?? "auto", metrics: options.metrics ?? false })
