/**
 * The instrumentation of a runtime (server/Instrumentation), built when something is observed:
 * loaded by `Instrumentation.make`'s `import()` then, so a server that observes nothing does not
 * load (parse) it at start.
 *
 * @internal
 */
import * as Methods from "@snodo/protocol/methods/Methods"
import { Clock, Context, Effect, Exit, Metric, Option, References, Tracer } from "effect"
import type * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import type { Resolved, RouteTable } from "../../routes/RouteTable.ts"
import type { ListenObserver, Observers, ProgressObserver } from "../../runtime/internal/Observers.ts"
import type { RequestContext } from "../../runtime/RequestContext.ts"
import type { Outcome } from "../Outcome.ts"
import { fromContext } from "../../runtime/Principal.ts"
import * as McpEvents from "../../observability/McpEvents.ts"
import * as McpMetrics from "../../observability/McpMetrics.ts"
import * as SeriesMetrics from "../../observability/internal/SeriesMetrics.ts"
import * as TraceContext from "../../observability/internal/TraceContext.ts"
import * as Immediate from "@snodo/protocol/peer/Immediate"
import * as Semconv from "@snodo/protocol/methods/Semconv"
import { ProtocolVersionKey } from "@snodo/protocol/wire/Meta"
import { isObject } from "../../pipeline/internal/IsObject.ts"

/** The runtime's `handle`. */
export type Handle = (request: Envelope.Request, context: RequestContext, resolved?: Resolved) => Effect.Effect<Outcome>

/**
 * @category models
 * @since 0.1.0
 */
export interface Instrumentation extends Observers {
  /** `handle` with a span, metrics and events around it (`routes` tells the methods served). */
  readonly wrap: (handle: Handle, routes: RouteTable) => Handle
  /** The authorization policy refused an invocation: a `Refusal` event and metric. */
  readonly forbidden: (request: Envelope.Request, context: RequestContext, principal: string, code: number) => void
}

const maxTargetLength = 256

/** The tool or prompt name, or the resource URI, a request is about (the table's `subject`; raw params: strings only). */
const targetOf = (request: Envelope.Request): string | undefined => {
  const subject = Methods.findRequest(request.method)?.subject
  const value = subject === undefined ? undefined : request.params[subject]
  return typeof value === "string" ? value.slice(0, maxTargetLength) : undefined
}

const networkTransport = (context: RequestContext): string | undefined => {
  switch (context.transport) {
    case "stdio":
      return "pipe"
    case "http":
      return "tcp"
    default:
      return undefined
  }
}

/** The error message of an encoded error answer (only error answers are parsed). */
const errorMessage = (frame: string): string => {
  try {
    const parsed = JSON.parse(frame) as { readonly error?: { readonly message?: unknown } }
    return typeof parsed.error?.message === "string" ? parsed.error.message : "JSON-RPC error"
  } catch {
    return "JSON-RPC error"
  }
}

/** What an error answer's span ends with: the OTLP status is ERROR with this message. */
class JsonRpcError extends Error {
  override readonly name = "JsonRpcError"
  constructor(code: number, message: string) {
    super(`${code} ${message}`)
    this.stack = `JsonRpcError: ${code} ${message}`
  }
}

/** How a request ended, as metrics and events count it. */
interface Ended {
  readonly kind: "result" | "error" | "cancelled" | "exception"
  readonly code: number | undefined
  readonly refusal: "busy" | "rate-limited" | undefined
}

const endOf = (outcome: Outcome | undefined): Ended => {
  if (outcome === undefined) return { kind: "cancelled", code: undefined, refusal: undefined }
  if (outcome._tag === "Result") return { kind: "result", code: undefined, refusal: undefined }
  return { kind: outcome.exception === true ? "exception" : "error", code: outcome.code, refusal: outcome.refusal?.reason }
}

const stopEvent = (fields: McpEvents.RequestFields, ended: Ended, durationMillis: number): McpEvents.McpEvent =>
  ended.kind === "exception"
    ? { _tag: "RequestException", ...fields, durationMillis, code: ended.code! }
    : { _tag: "RequestStop", ...fields, outcome: ended.kind, durationMillis, ...(ended.code === undefined ? {} : { code: ended.code }) }

/**
 * The request's SERVER span, a child of the caller's trace context or of the current span.
 * `caller` is the context of the request's fiber (or the services it would run with): its current
 * span, its clock and its log annotations are what the fiber would read.
 */
const startSpan = (
  tracer: Tracer.Tracer,
  caller: Context.Context<never>,
  clock: Clock.Clock,
  resolved: Resolved | undefined,
  request: Envelope.Request,
  context: RequestContext,
  fields: McpEvents.RequestFields,
  transport: string | undefined
): Tracer.Span => {
  const { method, target } = fields
  const meta = request.params["_meta"]
  const traced = TraceContext.fromMeta(meta) ?? TraceContext.parse(context.traceparent, context.tracestate)
  const parent: Option.Option<Tracer.AnySpan> = traced !== undefined
    ? Option.some(TraceContext.toSpan(traced))
    : Option.fromUndefinedOr(Context.getOrUndefined(caller, Tracer.ParentSpan))
  const named = target !== undefined && (method === Methods.ToolsCall.name || method === Methods.PromptsGet.name)
  const span = tracer.span({
    name: named ? `${method} ${target}` : method,
    parent,
    annotations: Context.empty(),
    links: [],
    startTime: clock.currentTimeNanosUnsafe(),
    kind: "server",
    root: Option.isNone(parent),
    sampled: Option.isNone(parent) || parent.value.sampled
  })
  span.attribute(Semconv.methodName, method)
  span.attribute(Semconv.jsonRpcRequestId, String(request.id))
  span.attribute(Semconv.jsonRpcProtocolVersion, "2.0")
  const version = (isObject(meta) ? meta[ProtocolVersionKey] : undefined) ?? context.session?.negotiated?.version
  if (typeof version === "string") span.attribute(Semconv.protocolVersion, version)
  if (transport !== undefined) span.attribute(Semconv.networkTransport, transport)
  if (context.transport === "http") span.attribute(Semconv.networkProtocolName, "http")
  // A transport that knows the client's address (HTTP behind a trusted proxy) annotates the request's fiber with it.
  const address = Context.get(caller, References.CurrentLogAnnotations)[Semconv.clientAddress]
  if (typeof address === "string") span.attribute(Semconv.clientAddress, address)
  if (target !== undefined) {
    if (method === Methods.ToolsCall.name) {
      span.attribute(Semconv.toolName, target)
      span.attribute(Semconv.operationName, "execute_tool")
    } else if (method === Methods.PromptsGet.name) span.attribute(Semconv.promptName, target)
    else span.attribute(Semconv.resourceUri, target)
  }
  if (resolved?.route.mayAskInput === true && request.params["requestState"] === undefined) span.attribute(Semconv.mrtrRound, 1)
  return span
}

/** Ends a request's span: OK with a result, ERROR with the code of an error answer, unset when cancelled. */
const endSpan = (span: Tracer.Span, end: bigint, outcome: Outcome | undefined): void => {
  if (outcome === undefined) return span.end(end, Exit.interrupt())
  if (outcome._tag === "Result") return span.end(end, Exit.void)
  span.attribute(Semconv.errorType, String(outcome.code))
  span.attribute(Semconv.rpcResponseStatusCode, String(outcome.code))
  span.end(end, Exit.fail(new JsonRpcError(outcome.code, errorMessage(outcome.frame))))
}

/**
 * A metric's series for one attribute set: what `Metric.withAttributes(metric, attributes)`
 * updates in the server's context, with the context that adds the attributes made once, and a
 * metric object of its own (see observability/internal/SeriesMetrics), not one per update.
 */
type Series = (input: number) => void

/** Attributes of `mcp.server.operation.duration`, built once per attribute set. */
const durationAttributes = (method: string, transport: string | undefined, code: number | undefined): Record<string, string> => {
  const attributes: Record<string, string> = { [Semconv.methodName]: method }
  if (transport !== undefined) attributes[Semconv.networkTransport] = transport
  if (code !== undefined) attributes[Semconv.errorType] = String(code)
  return attributes
}

/** The series of one method: durations by transport then error code (none for a result), requests by outcome. */
interface MethodSeries {
  readonly durations: Map<string | undefined, Map<number | undefined, Series>>
  readonly requests: Map<string, Series>
}

/**
 * The instrumentation over the application's services, observing with what `Instrumentation.make`
 * found: the tracer (if any), whether metrics are on, the events hub (if any).
 */
export const make = (
  services: Context.Context<never>,
  queued: () => number,
  tracer: Tracer.Tracer | undefined,
  metrics: boolean,
  events: McpEvents.McpEvents["Service"] | undefined
): Instrumentation => {
  const publish = events === undefined ? undefined : (event: McpEvents.McpEvent) => events.publish(event)

  // Metric series, made once per attribute set (all bounded by the server) and found by their
  // attributes' values, so a request builds neither attributes nor a key.
  const seriesOf = (metricOf: () => Metric.Metric<number, unknown>, attributes: Record<string, string>): Series => {
    const metric = metricOf()
    const context = Context.add(services, Metric.CurrentMetricAttributes, { ...Context.get(services, Metric.CurrentMetricAttributes), ...attributes })
    return (input) => metric.updateUnsafe(input, context)
  }
  const methods = new Map<string, MethodSeries>()
  const refusals = new Map<string, Series>()
  // Set by `wrap`, before any request (the runtime builds its route table after this).
  let routes: RouteTable | undefined
  const fieldsOf = (request: Envelope.Request, context: RequestContext, principal: string, resolved = routes?.resolve(request.method)) => ({
    id: request.id,
    method: resolved?.served === true ? request.method : "unknown",
    target: targetOf(request),
    transport: context.transport,
    principal
  })
  let active = 0
  let streams = 0

  const refused = (reason: string) => {
    let series = refusals.get(reason)
    if (series === undefined) refusals.set(reason, series = seriesOf(SeriesMetrics.refusals, { reason }))
    series(1)
  }
  const record = (
    method: string,
    transport: string | undefined,
    outcome: string,
    code: number | undefined,
    seconds: number,
    refusal: string | undefined
  ) => {
    let of = methods.get(method)
    if (of === undefined) methods.set(method, of = { durations: new Map(), requests: new Map() })
    let byCode = of.durations.get(transport)
    if (byCode === undefined) of.durations.set(transport, byCode = new Map())
    let duration = byCode.get(code)
    if (duration === undefined) byCode.set(code, duration = seriesOf(SeriesMetrics.operationDuration, durationAttributes(method, transport, code)))
    duration(seconds)
    let requests = of.requests.get(outcome)
    if (requests === undefined) of.requests.set(outcome, requests = seriesOf(SeriesMetrics.requests, { [Semconv.methodName]: method, outcome }))
    requests(1)
    if (refusal !== undefined) refused(refusal)
    McpMetrics.activeRequests.updateUnsafe(active, services)
    McpMetrics.executorQueued.updateUnsafe(queued(), services)
  }

  const wrap = (handle: Handle, table: RouteTable): Handle => {
    routes = table
    return (request, context, known) => observed(handle, request, context, known ?? table.resolve(request.method))
  }
  /**
   * A request observed with the caller's services: those the transport named (then the request
   * runs its steps at once, and one answered without suspending is observed to its end here,
   * with no fiber), or those of the request's fiber.
   */
  const observed = (handle: Handle, request: Envelope.Request, context: RequestContext, resolved: Resolved | undefined): Effect.Effect<Outcome> => {
    const principal = context.principal
    const caller = context.services
    return principal === undefined || caller === undefined
      ? Effect.withFiber((fiber) => observe(handle, request, context, resolved, fiber.context, fromContext(fiber.context).id))
      : observe(handle, request, context, resolved, caller, principal.id)
  }
  const observe = (
    handle: Handle,
    request: Envelope.Request,
    context: RequestContext,
    resolved: Resolved | undefined,
    caller: Context.Context<never>,
    principal: string
  ): Effect.Effect<Outcome> => {
    const started = performance.now()
    const fields = fieldsOf(request, context, principal, resolved)
    const transport = networkTransport(context)
    active++
    if (metrics) {
      McpMetrics.activeRequests.updateUnsafe(active, services)
      McpMetrics.executorQueued.updateUnsafe(queued(), services)
    }
    publish?.({ _tag: "RequestStart", ...fields })
    const clock = Context.get(caller, Clock.Clock)
    const span = tracer === undefined ? undefined : startSpan(tracer, caller, clock, resolved, request, context, fields, transport)
    const ended = (exit: Exit.Exit<Outcome>): void => {
      active--
      const seconds = (performance.now() - started) / 1000
      const outcome = Exit.isSuccess(exit) ? exit.value : undefined
      if (span !== undefined) endSpan(span, clock.currentTimeNanosUnsafe(), outcome)
      const end = endOf(outcome)
      if (metrics) record(fields.method, transport, end.kind, end.code, seconds, end.refusal)
      if (publish !== undefined) {
        if (end.refusal !== undefined) publish({ _tag: "Refusal", ...fields, reason: end.refusal, code: end.code! })
        publish(stopEvent(fields, end, seconds * 1000))
      }
    }
    // The span reaches the handler through its request services (RequestServices), not the
    // fiber's context: that would make every request's transport context a new one.
    const body = handle(request, span === undefined ? context : { ...context, span }, resolved)
    // Answered without suspending: observed to its end now (an interruption is no `Exit` here).
    if (Immediate.isDone(body)) {
      ended(body)
      return body
    }
    return Effect.onExit(body, (exit) => Effect.sync(() => ended(exit)))
  }

  const listen = (id: Envelope.RequestId, principal: string): ListenObserver => ({
    opened: () => {
      streams++
      if (metrics) McpMetrics.listenStreams.updateUnsafe(streams, services)
      publish?.({ _tag: "ListenOpen", id, principal })
    },
    closed: (reason) => {
      streams--
      if (metrics) McpMetrics.listenStreams.updateUnsafe(streams, services)
      publish?.({ _tag: "ListenClose", id, principal, reason })
    },
    dropped: (count) => {
      if (metrics) McpMetrics.listenDropped.updateUnsafe(count, services)
      publish?.({ _tag: "LimitHit", limit: "listen-queue", id, count })
    },
    full: () => publish?.({ _tag: "LimitHit", limit: "listen-streams", id, count: 1 })
  })

  const progress = (id: Envelope.RequestId): ProgressObserver => ({
    reported: () => {
      if (metrics) McpMetrics.progressReports.updateUnsafe(1, services)
    },
    limited: () => publish?.({ _tag: "LimitHit", limit: "progress", id, count: 1 })
  })

  const forbidden = (request: Envelope.Request, context: RequestContext, principal: string, code: number) => {
    if (metrics) refused("forbidden")
    publish?.({ _tag: "Refusal", ...fieldsOf(request, context, principal), reason: "forbidden", code })
  }

  return { wrap, listen, progress, forbidden }
}
