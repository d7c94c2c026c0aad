/**
 * The server's spans, metrics and events around the request pipeline, built once per runtime
 * from what the application put where the server's Layer was built (see
 * observability/Observability, observability/McpEvents). {@link make} answers `undefined` when
 * nothing is observed: the runtime then serves requests without any of this.
 *
 * Per request: a SERVER span named `{mcp.method.name} {target}` (a child of the caller's W3C
 * trace context from `_meta`, else the transport's `traceparent` header, else the current span),
 * the `mcp.server.*` metrics, and `RequestStart` then `RequestStop` or `RequestException` events.
 *
 * A transport that names the caller's services (`RequestContext.services`, with its `principal`)
 * gets an observed request answered without a fiber when it completes without suspending: the
 * span's parent (the current span), its clock and the client's address are read from those
 * services, as the request's fiber would read them, and the request is observed to its end before
 * `handle` returns. Otherwise the request is observed in its fiber.
 *
 * @since 0.1.0
 */
import { Context, Effect, Tracer } from "effect"
import * as McpEvents from "../observability/McpEvents.ts"
import { Observability } from "../observability/Observability.ts"
import * as LazyModule from "../pipeline/internal/LazyModule.ts"
import type { Instrumentation } from "./internal/Instrumented.ts"

export type { Handle, Instrumentation } from "./internal/Instrumented.ts"

const instrumented = LazyModule.make(() => import("./internal/Instrumented.ts"))

/**
 * The instrumentation of a runtime over the application's services, or `undefined` when nothing
 * is observed. What observes (internal/Instrumented) is loaded by its `import()` when something
 * is: a server that observes nothing does not load it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (services: Context.Context<never>, queued: () => number): Effect.Effect<Instrumentation | undefined> => {
  const settings = Context.get(services, Observability)
  const events = Context.getOrUndefined(services, McpEvents.McpEvents)
  const appTracer = Context.get(services, Tracer.Tracer)
  // Effect's native tracer is no backend: its spans go nowhere.
  const tracer = settings.tracing === "auto" && appTracer !== Tracer.nativeTracer ? appTracer : undefined
  const metrics = settings.metrics
  if (tracer === undefined && !metrics && events === undefined) return Effect.succeed(undefined)
  return LazyModule.use(instrumented, (Instrumented) => Effect.succeed(Instrumented.make(services, queued, tracer, metrics, events)))
}
