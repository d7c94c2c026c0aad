/**
 * The everything server's telemetry (`--otlp URL`): spans and metrics exported over OTLP/HTTP
 * (JSON) to a collector whose base URL is `url` — spans to `${url}/v1/traces`, metrics to
 * `${url}/v1/metrics` — with the server's metrics turned on (`Observability.layer`).
 *
 * Provide it where the server's Layer is built (`ServerLayer.pipe(Layer.provide(otlpLayer(url)))`):
 * the server reads the tracer and its observability settings there.
 *
 * The exporters flush on shutdown: each one posts what it still holds when its scope closes (at
 * most 3 s, their default `shutdownTimeout`), after the server's own Layer is released, so the
 * spans of the last requests reach the collector when the process ends normally (EOF over stdio,
 * SIGINT/SIGTERM over HTTP). A SIGKILL loses whatever was not exported yet.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Observability from "@snodo/core/Observability"
import * as Layer from "effect/Layer"
import * as OtlpMetrics from "effect/observability/OtlpMetrics"
import * as OtlpSerialization from "effect/observability/OtlpSerialization"
import * as OtlpTracer from "effect/observability/OtlpTracer"

const resource = { serviceName: "snodo-everything", serviceVersion: "0.1.0" }

/** Trims trailing slashes, so `http://host:4318/` and `http://host:4318` name the same endpoints. */
const base = (url: string): string => url.replace(/\/+$/, "")

/**
 * OTLP/HTTP export of the server's spans and metrics to the collector at `url`.
 *
 * Export intervals are short for a demo (spans every second, metrics every 2 s, against the
 * exporters' defaults of 5 s and 10 s): what a request did shows up in the collector almost at
 * once. A production server would keep the defaults, or longer.
 *
 * The posts go through Node's `http` client (keep-alive), not `fetch`: a batch's body is written
 * to the socket as it is, where `fetch` copies it into a stream of its own first (a copy and a
 * zero-fill of ~850 bytes per span, and the stream's work per post; bench/PROFILE.md).
 */
export const otlpLayer = (url: string): Layer.Layer<never> =>
  Layer.mergeAll(
    OtlpTracer.layer({ url: `${base(url)}/v1/traces`, resource, exportInterval: "1 second" }),
    OtlpMetrics.layer({ url: `${base(url)}/v1/metrics`, resource, exportInterval: "2 seconds" }),
    Observability.layer({ metrics: true })
  ).pipe(Layer.provide(Layer.mergeAll(OtlpSerialization.layerJson, NodeHttpClient.layerNodeHttpOptions({ keepAlive: true }))))
