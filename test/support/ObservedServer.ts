/**
 * A small server observed by a recording tracer, a metric registry of its own and an event hub,
 * for the observability tests: `echo`, `quota` (an application error), `crash` (a defect),
 * `greet` (asks for a name: MRTR), `secret` (refused by the policy), `job` (always a task),
 * `steps` (reports progress twice), a prompt, a resource, and listen streams.
 */
import { Content, Input, McpServer, Progress, Prompt, Resource, SubscriptionHub, Tool } from "@snodo/core"
import * as Tasks from "@snodo/tasks"
import * as Authorization from "@snodo/core/Authorization"
import * as McpEvents from "@snodo/core/McpEvents"
import * as Observability from "@snodo/core/Observability"
import { ApplicationError } from "@snodo/core/McpError"
import { Effect, Layer, Metric, Schema, Tracer } from "effect"

const NoInput = Schema.Struct({})

const echo = Tool.make("echo", { input: Schema.Struct({ text: Schema.String }) }, ({ text }) =>
  Effect.succeed(text).pipe(Effect.withSpan("echo.handler")))
const quota = Tool.make("quota", { input: NoInput }, () => Effect.fail(ApplicationError.of(-32001, "Quota exceeded")))
const crash = Tool.make("crash", { input: NoInput }, () => Effect.die(new Error("the handler broke")))
const secret = Tool.make("secret", { input: NoInput }, () => Effect.succeed("never"))
const greet = Tool.make("greet", { input: NoInput }, () =>
  Effect.gen(function*() {
    const first = yield* Input.elicit("first", Input.form({
      message: "First name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
    }))
    const last = yield* Input.elicit("last", Input.form({
      message: "Last name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
    }))
    return first.action === "accept" && last.action === "accept" ? `Hello, ${first.content.name} ${last.content.name}` : "no"
  }))
const job = Tool.make("job", { input: NoInput }, () => Effect.sleep("20 millis").pipe(Effect.as("done")))
const steps = Tool.make("steps", { input: NoInput }, () =>
  Effect.gen(function*() {
    yield* Progress.report(1, { total: 2 })
    yield* Progress.report(2, { total: 2 })
    return "stepped"
  }).pipe(Effect.orDie))
const summary = Prompt.make("summary", { description: "Summarize" }, () => Effect.succeed([Prompt.user("Summarize, please")]))
const readme = Resource.make({ uri: "demo://readme", name: "readme" }, () => Effect.succeed(Content.textContents("demo://readme", "hi")))

/** The spans a recording tracer saw end, in order. */
export interface Recorded {
  readonly spans: Array<Tracer.NativeSpan>
  readonly tracer: Tracer.Tracer
}

/** A tracer that keeps every span it makes (Effect's own span objects). */
export const recording = (): Recorded => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { spans, tracer }
}

const policy: Authorization.Policy = {
  authorize: (phase, component) =>
    phase === "invocation" && component.name === "secret" ? Authorization.refuse(-32001, "Forbidden") : Authorization.allow
}

/** The server with what observes it, and the registry its metrics go to. */
export const observedServer = (recorded: Recorded, registry: Metric.MetricRegistry, events: McpEvents.McpEvents["Service"]) =>
  McpServer.make({ name: "observed", version: "1.0.0" })
    .add(echo, quota, crash, secret, greet, job, steps, summary, readme)
    .extend(Tasks.extension({ tools: { job: Tasks.required() } }))
    .layer.pipe(
    Layer.provide(Layer.mergeAll(
      Tasks.TaskStore.layerMemory(),
      SubscriptionHub.layerMemory(),
      Layer.succeed(Tracer.Tracer, recorded.tracer),
      Layer.succeed(Metric.MetricRegistry, registry),
      Layer.succeed(McpEvents.McpEvents, events),
      Observability.layer({ metrics: true }),
      Authorization.layer(policy)
    ))
  )
