/**
 * Tasks as the server's observability sees them: a span per run of a task, linked to the span of
 * the request that created it (which may have been served by another instance: the link travels
 * in the task's `work.trace`), and the `mcp.server.tasks` count of tasks entering each state.
 *
 * Spans follow the server's: made only when a tracing backend is installed where the server's
 * Layer is built (see `@snodo/core/Observability`); the count only with
 * `Observability.layer({ metrics: true })`.
 *
 * @since 0.1.0
 */
import { Observability } from "@snodo/core/Observability"
import * as Semconv from "@snodo/protocol/methods/Semconv"
import { Context, Effect, Metric, Tracer } from "effect"
import type * as Task from "./Task.ts"

/**
 * A task's id (span attribute).
 *
 * @category constants
 * @since 0.1.0
 */
export const taskIdAttribute = "mcp.task.id"

/**
 * A task's status (metric attribute).
 *
 * @category constants
 * @since 0.1.0
 */
export const taskStatusAttribute = "mcp.task.status"

/**
 * Which claim of a task a run is (1 for the first; span attribute). snodo's own.
 *
 * @category constants
 * @since 0.1.0
 */
export const taskAttemptAttribute = "mcp.task.attempt"

/**
 * Task state changes, by `mcp.task.status` (`working`, `input_required`, `completed`, `failed`,
 * `cancelled`): the Tasks extension's metric, beside the server's (`McpMetrics`).
 *
 * @category constants
 * @since 0.1.0
 */
export const taskTransitions = Metric.counter("mcp.server.tasks", {
  attributes: { unit: "{task}" },
  description: "Tasks entering each state",
  incremental: true
})

/**
 * @category models
 * @since 0.1.0
 */
export interface TaskObservability {
  /** A task entered `status` (created, parked, resumed, finished, cancelled). */
  readonly entered: (status: Task.Status) => void
  /** Runs one attempt of a task's work in its span. */
  readonly run: <A, E, R>(task: Task.TaskRecord, work: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** The trace context to store with a new task: its creating request's span, when it was traced. */
  readonly origin: (span: Tracer.AnySpan | undefined) => Task.Work["trace"]
}

/**
 * Observes nothing.
 *
 * @category constants
 * @since 0.1.0
 */
export const none: TaskObservability = {
  entered: () => {},
  run: (_task, work) => work,
  origin: () => undefined
}

/**
 * The observability of the tasks of a server whose services are the current context.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: Effect.Effect<TaskObservability> = Effect.map(Effect.context<never>(), (services) => {
  const settings = Context.get(services, Observability)
  const tracer = Context.get(services, Tracer.Tracer)
  const tracing = settings.tracing === "auto" && tracer !== Tracer.nativeTracer
  if (!tracing && !settings.metrics) return none
  const counters = new Map<Task.Status, Metric.Metric<number, unknown>>()
  const entered = (status: Task.Status) => {
    if (!settings.metrics) return
    let counter = counters.get(status)
    if (counter === undefined) {
      counter = Metric.withAttributes(taskTransitions, { [taskStatusAttribute]: status })
      counters.set(status, counter)
    }
    counter.updateUnsafe(1, services)
  }
  const run = <A, E, R>(task: Task.TaskRecord, work: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    if (!tracing) return work
    const trace = task.work.trace
    return Effect.withSpan(work, `tasks/run ${task.work.tool}`, {
      root: true,
      kind: "internal",
      links: trace === undefined ? [] : [{ span: Tracer.externalSpan(trace), attributes: { "link.type": "created-by" } }],
      attributes: {
        [taskIdAttribute]: task.taskId,
        [Semconv.toolName]: task.work.tool,
        [taskAttemptAttribute]: task.attempt
      }
    }).pipe(
      // A task created here starts on the creating request's fiber, whose tracer is the transport's.
      Effect.provideService(Tracer.Tracer, tracer)
    )
  }
  const origin = (span: Tracer.AnySpan | undefined): Task.Work["trace"] =>
    span === undefined || !tracing ? undefined : { traceId: span.traceId, spanId: span.spanId, sampled: span.sampled }
  return { entered, run, origin }
})
