/**
 * The definitions of the server's metrics that carry per-request attributes
 * (`mcp.server.operation.duration`, `mcp.server.requests`, `mcp.server.refusals`), as makers:
 * `McpMetrics` exports one of each, and the instrumentation makes one per attribute set.
 *
 * Metrics of the same type, name, description and attributes are the same series in a
 * `MetricRegistry`, whichever object updates them. A `Metric` object remembers the registry key
 * of the last attribute set it was updated with and recomputes it (sorting and serializing the
 * attributes) when the set changes, so one object updated with alternating sets (`tools/call`
 * then `tools/list`, a result then an error) paid that on every update (~1 µs); an object per
 * set never does.
 *
 * @internal
 */
import { Metric } from "effect"

/** `mcp.server.operation.duration` (see `McpMetrics.operationDuration`). */
export const operationDuration = (): Metric.Metric<number, Metric.HistogramState> =>
  Metric.histogram("mcp.server.operation.duration", {
    attributes: { unit: "s" },
    description: "MCP request duration as observed on the server, from receipt until the response is encoded (s)",
    boundaries: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]
  })

/** `mcp.server.requests` (see `McpMetrics.requests`). */
export const requests = (): Metric.Metric<number, Metric.CounterState<number>> =>
  Metric.counter("mcp.server.requests", {
    attributes: { unit: "{request}" },
    description: "MCP requests answered, by method and outcome",
    incremental: true
  })

/** `mcp.server.refusals` (see `McpMetrics.refusals`). */
export const refusals = (): Metric.Metric<number, Metric.CounterState<number>> =>
  Metric.counter("mcp.server.refusals", {
    attributes: { unit: "{request}" },
    description: "MCP requests refused by a bound, a rate limit or the authorization policy",
    incremental: true
  })
