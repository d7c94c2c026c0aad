/**
 * When the runtime observes anything at all: only with a tracing backend, metrics asked for, or
 * an event hub, where the server's Layer is built. Otherwise the request path has no
 * instrumentation in it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Tracer } from "effect"
import * as Instrumentation from "../src/server/Instrumentation.ts"
import * as McpEvents from "../src/observability/McpEvents.ts"
import { Observability } from "../src/observability/Observability.ts"

const queued = () => 0
const backend = Tracer.make({ span: (options) => new Tracer.NativeSpan(options) })

describe("Instrumentation.make", () => {
  it.effect("observes nothing by default, nor with Effect's native tracer, nor with tracing off", () =>
    Effect.gen(function*() {
      expect(yield* Instrumentation.make(Context.empty(), queued)).toBeUndefined()
      expect(yield* Instrumentation.make(Context.make(Tracer.Tracer, Tracer.nativeTracer), queued)).toBeUndefined()
      const off = Context.make(Tracer.Tracer, backend).pipe(Context.add(Observability, { tracing: false, metrics: false }))
      expect(yield* Instrumentation.make(off, queued)).toBeUndefined()
    }))

  it.effect("observes with a tracing backend, with metrics, or with an event hub", () =>
    Effect.gen(function*() {
      expect(yield* Instrumentation.make(Context.make(Tracer.Tracer, backend), queued)).toBeDefined()
      expect(yield* Instrumentation.make(Context.make(Observability, { tracing: "auto", metrics: true }), queued)).toBeDefined()
      const events = yield* McpEvents.make()
      expect(yield* Instrumentation.make(Context.make(McpEvents.McpEvents, events), queued)).toBeDefined()
    }))
})
