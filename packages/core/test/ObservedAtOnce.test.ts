/**
 * An observed request (a tracing backend, metrics, an event hub) whose transport names its caller
 * (`principal` and `services` in the request context) runs its steps as `handle` is called: one
 * that completes without suspending comes back as an `Exit`, its span ended, its metrics recorded
 * and its events published, exactly as the request's fiber would have observed it. The span's
 * parent, its clock and the client's address are read from the caller's services.
 */
import { describe, expect, it } from "@effect/vitest"
import { Authorization, McpServer, Principal, Tool } from "@snodo/core"
import * as McpEvents from "@snodo/core/McpEvents"
import * as Observability from "@snodo/core/Observability"
import { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import type { Outcome, RequestContext } from "@snodo/core/transport/ServerRuntime"
import type * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import { Clock, Context, Effect, Exit, Layer, Metric, Option, References, Schema, Tracer } from "effect"
import { PrometheusMetrics } from "effect/observability"

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {}
}
const callerTrace = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" }

const call = (id: number, name: string, args: Record<string, unknown> = {}, extraMeta: Record<string, unknown> = {}): Envelope.Request => ({
  _tag: "Request",
  id,
  method: "tools/call",
  params: { name, arguments: args, _meta: { ...meta, ...extraMeta } }
})

const alice = Principal.Principal.of({ id: "alice", claims: {} })

class Overflow extends Schema.TaggedError<Overflow>()("Overflow", { at: Schema.Number }) {}

const tools = [
  Tool.make("echo", { input: Schema.Struct({ text: Schema.String }), output: Schema.Struct({ text: Schema.String }) }, ({ text }) =>
    Effect.succeed({ text })),
  Tool.make("fails", { input: Schema.Struct({}), failure: Overflow }, () => Effect.fail(new Overflow({ at: 1 }))),
  Tool.make("secret", { input: Schema.Struct({}) }, () => Effect.succeed("hidden"))
]

const policy = Authorization.layer({
  authorize: (_phase, component) => component.name === "secret" ? Authorization.refuse(-32001, "Forbidden") : Authorization.allow
})

/** A server observed by a recording tracer, a registry of its own and an event list. */
const observedRuntime = Effect.gen(function*() {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  const registry: Metric.MetricRegistry = new Map()
  const events: Array<McpEvents.McpEvent> = []
  const hub = yield* McpEvents.make()
  const context = yield* Layer.build(
    McpServer.make({ name: "observed", version: "1" }).add(...tools).layer.pipe(Layer.provide(Layer.mergeAll(
      policy,
      Layer.succeed(Tracer.Tracer, tracer),
      Layer.succeed(Metric.MetricRegistry, registry),
      Layer.succeed(McpEvents.McpEvents, { ...hub, publish: (event) => events.push(event) }),
      Observability.layer({ metrics: true })
    )))
  )
  return { runtime: Context.get(context, ServerRuntime), spans, registry, events }
})

/** What observing one request left: its span (name, kind, parent, times, attributes, exit), its events. */
const observation = (spans: ReadonlyArray<Tracer.NativeSpan>, events: ReadonlyArray<McpEvents.McpEvent>, id: number) => {
  const span = spans.find((candidate) => candidate.attributes.get("jsonrpc.request.id") === String(id))
  if (span === undefined || span.status._tag !== "Ended") throw new Error(`no ended span for ${id}`)
  const exit = span.status.exit
  return {
    name: span.name,
    kind: span.kind,
    parent: Option.map(span.parent, (parent) => ({ traceId: parent.traceId, spanId: parent.spanId })),
    start: span.status.startTime,
    end: span.status.endTime,
    attributes: Object.fromEntries(span.attributes),
    exit: Exit.isSuccess(exit) ? "success" : String(exit.cause),
    events: events.filter((event) => "id" in event && event.id === id).map((event) => {
      const { durationMillis: _duration, ...rest } = event as McpEvents.McpEvent & { readonly durationMillis?: number }
      return rest
    })
  }
}

/** A clock that always reads the same instant: the span's start and end come from the caller's clock. */
const fixedClock = (nanos: bigint): Clock.Clock => ({
  currentTimeMillisUnsafe: () => Number(nanos / 1_000_000n),
  currentTimeMillis: Effect.sync(() => Number(nanos / 1_000_000n)),
  currentTimeNanosUnsafe: () => nanos,
  currentTimeNanos: Effect.sync(() => nanos),
  monotonicTimeNanosUnsafe: () => nanos,
  monotonicTimeNanos: Effect.sync(() => nanos),
  sleep: () => Effect.void
})

const parentSpan = Tracer.externalSpan({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" })

/** The caller's services: a current span, a clock and the client's address among its log annotations. */
const callerServices = Context.make(Principal.Principal, alice).pipe(
  Context.add(Tracer.ParentSpan, parentSpan),
  Context.add(Clock.Clock, fixedClock(42_000_000_000n)),
  Context.add(References.CurrentLogAnnotations, { "client.address": "203.0.113.7" })
)

const done = (effect: Effect.Effect<Outcome>): Outcome | undefined =>
  Exit.isExit(effect) && Exit.isSuccess(effect) ? (effect as Exit.Success<Outcome>).value : undefined

const prometheus = (registry: Metric.MetricRegistry) =>
  PrometheusMetrics.formatUnsafe(Context.make(Metric.MetricRegistry, registry))
    // the duration histogram's sums and buckets depend on time taken; its count does not
    .split("\n").filter((line) => !/operation_duration_(sum|bucket)/.test(line)).join("\n")

describe("observed requests answered at once", () => {
  it.effect("come back as an Exit, with the span, metrics and events the fiber would give", () =>
    Effect.gen(function*() {
      const atOnce = yield* observedRuntime
      const inFiber = yield* observedRuntime
      const requests = [
        call(1, "echo", { text: "hi" }),
        call(2, "echo", { text: "hi" }, { traceparent: `00-${callerTrace.traceId}-${callerTrace.spanId}-01` }),
        call(3, "fails"),
        call(4, "echo", { text: 3 }),
        call(5, "nope"),
        call(6, "secret"),
        { _tag: "Request", id: 7, method: "tools/list", params: { _meta: meta } } as const,
        { _tag: "Request", id: 8, method: "no/such", params: { name: "x", _meta: meta } } as const
      ]
      for (const request of requests) {
        const context: RequestContext = { transport: "http", sink: undefined, principal: alice, services: callerServices }
        const outcome = done(atOnce.runtime.handle(request, context))
        expect(outcome, String(request.id)).toBeDefined()
        // the same request in a fiber running on the caller's services, as a transport without the fast path runs it
        const fibered = yield* Effect.provideContext(inFiber.runtime.handle(request, { transport: "http", sink: undefined }), callerServices)
        expect(outcome).toEqual(fibered)
        const id = Number(request.id)
        expect(observation(atOnce.spans, atOnce.events, id)).toEqual(observation(inFiber.spans, inFiber.events, id))
      }
      expect(prometheus(atOnce.registry)).toEqual(prometheus(inFiber.registry))

      // the caller's services reached the span: its parent, its clock, the client's address
      const first = observation(atOnce.spans, atOnce.events, 1)
      expect(first).toMatchObject({
        name: "tools/call echo",
        kind: "server",
        parent: Option.some({ traceId: parentSpan.traceId, spanId: parentSpan.spanId }),
        start: 42_000_000_000n,
        end: 42_000_000_000n,
        attributes: { "client.address": "203.0.113.7", "gen_ai.tool.name": "echo", "network.transport": "tcp" },
        exit: "success"
      })
      expect(first.events.map((event) => event._tag)).toEqual(["RequestStart", "RequestStop"])
      // _meta's traceparent wins over the current span
      expect(observation(atOnce.spans, atOnce.events, 2).parent).toEqual(Option.some(callerTrace))
      // an error answer, a refusal
      expect(observation(atOnce.spans, atOnce.events, 8)).toMatchObject({ name: "unknown", attributes: { "error.type": "-32601" } })
      expect(observation(atOnce.spans, atOnce.events, 6).events.map((event) => event._tag)).toEqual(["RequestStart", "Refusal", "RequestStop"])
      expect(prometheus(atOnce.registry)).toMatch(/mcp_server_requests_active(\{[^}]*\})? 0/)
    }).pipe(Effect.scoped))

  it.effect("requests of alternating methods and outcomes each count in their own series", () =>
    Effect.gen(function*() {
      const { registry, runtime } = yield* observedRuntime
      const list = (id: number): Envelope.Request => ({ _tag: "Request", id, method: "tools/list", params: { _meta: meta } })
      const requests = [call(1, "echo", { text: "a" }), list(2), call(3, "fails"), call(4, "echo", { text: "b" }), call(5, "secret"), list(6), call(7, "echo", { text: "c" })]
      for (const request of requests) {
        expect(done(runtime.handle(request, { transport: "http", sink: undefined, principal: alice, services: callerServices })), String(request.id)).toBeDefined()
      }
      const text = prometheus(registry)
      const value = (pattern: RegExp) => text.split("\n").filter((line) => pattern.test(line)).map((line) => Number(line.split(" ").at(-1)))
      // a tool's failure is a result (isError: true); the refusal is an error answer
      expect(value(/^mcp_server_requests\{mcp_method_name="tools\/call",outcome="result"\}/)).toEqual([4])
      expect(value(/^mcp_server_requests\{mcp_method_name="tools\/list",outcome="result"\}/)).toEqual([2])
      expect(value(/^mcp_server_requests\{mcp_method_name="tools\/call",outcome="error"\}/)).toEqual([1])
      expect(value(/^mcp_server_refusals\{reason="forbidden"\}/)).toEqual([1])
      // durations: a series per method, transport and error code; the results' series have no error.type
      expect(value(/^mcp_server_operation_duration_count\{mcp_method_name="tools\/call",network_transport="tcp"\}/)).toEqual([4])
      expect(value(/^mcp_server_operation_duration_count\{mcp_method_name="tools\/list",network_transport="tcp"\}/)).toEqual([2])
      expect(value(/^mcp_server_operation_duration_count\{mcp_method_name="tools\/call",network_transport="tcp",error_type="-32001"\}/)).toEqual([1])
      expect(value(/^mcp_server_operation_duration_count/).reduce((sum, count) => sum + count, 0)).toBe(requests.length)
    }).pipe(Effect.scoped))

  it.effect("without the caller's services an observed request runs in a fiber", () =>
    Effect.gen(function*() {
      const { runtime, spans } = yield* observedRuntime
      const handled = runtime.handle(call(1, "echo", { text: "hi" }), { transport: "http", sink: undefined, principal: alice })
      expect(Exit.isExit(handled)).toBe(false)
      expect(spans).toHaveLength(0)
      expect((yield* Effect.provideContext(handled, callerServices))._tag).toBe("Result")
      expect(spans.map((span) => span.name)).toEqual(["tools/call echo"])
    }).pipe(Effect.scoped))

  it.effect("a request that suspends is observed in its fiber, to its end", () =>
    Effect.gen(function*() {
      const { runtime, spans, events } = yield* observedRuntime
      const context: RequestContext = { transport: "http", sink: undefined, principal: alice, services: callerServices }
      // an invalid MRTR state is verified in the fiber
      const retry: Envelope.Request = { ...call(1, "echo", { text: "hi" }), params: { ...call(1, "echo", { text: "hi" }).params, requestState: "x" } }
      const handled = runtime.handle(retry, context)
      expect(Exit.isExit(handled)).toBe(false)
      // started (its span and start event) as handle was called; ended once run
      expect(events.map((event) => event._tag)).toEqual(["RequestStart"])
      expect(yield* handled).toMatchObject({ _tag: "Error", code: -32602 })
      expect(observation(spans, events, 1)).toMatchObject({ exit: expect.stringContaining("-32602"), parent: Option.some({ spanId: parentSpan.spanId }) })
      expect(events.map((event) => event._tag)).toEqual(["RequestStart", "RequestStop"])
    }).pipe(Effect.scoped))
})
