/**
 * A test server for the Tasks extension: a job that runs until cancelled (its finalizer counts and
 * logs the interruption), one that asks two inputs at once, and counters to look at. Served over
 * stdio by `TaskServerMain.ts`, over HTTP by `serveTasksHttp` (callers named by an `x-test-user`
 * header, so tests can be several principals).
 */
import { Content, Input, McpServer, Principal, Progress, SubscriptionHub, Tool, ToolResult } from "@snodo/core"
import * as NodeServe from "@snodo/http/NodeServe"
import * as Replies from "@snodo/http/Replies"
import * as Tasks from "@snodo/tasks"
import { Effect, Layer, ManagedRuntime, Schema } from "effect"
import { HttpServer } from "effect/http"

export interface Counters {
  started: number
  interrupted: number
  finished: number
  /** Runs of `two_inputs` that asked their questions. */
  asked: number
}

export interface TaskServerOptions {
  readonly ttlMs?: number | null
  readonly maxActivePerPrincipal?: number
  /** Any other setting of the extension (limits, runner). */
  readonly tasks?: Omit<Tasks.Options, "tools" | "ttlMs" | "maxActivePerPrincipal">
}

const ChoiceForm = (question: string) =>
  Input.form({ message: question, requestedSchema: { type: "object", properties: { choice: { type: "string" } }, required: ["choice"] } })

export const taskServer = (options: TaskServerOptions = {}) => {
  const counters: Counters = { started: 0, interrupted: 0, finished: 0, asked: 0 }

  const job = Tool.make("job", {
    description: "Works for `ms` milliseconds (forever without), counting starts, interruptions and completions",
    input: Schema.Struct({ ms: Schema.optional(Schema.Int) })
  }, ({ ms }) =>
    Effect.sync(() => void counters.started++).pipe(
      Effect.andThen(ms === undefined ? Effect.never : Effect.sleep(`${ms} millis`)),
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          counters.interrupted++
          process.stderr.write("job interrupted\n")
        })
      ),
      Effect.tap(() => Effect.sync(() => void counters.finished++)),
      Effect.as(ToolResult.content([Content.text(`worked ${ms ?? 0} ms`)]))
    ))

  const twoInputs = Tool.make("two_inputs", {
    description: "Asks two questions at once, then answers with both choices",
    input: Schema.Struct({})
  }, () =>
    Effect.gen(function*() {
      counters.asked++
      const { first, second } = yield* Input.all({
        first: Input.elicit("first", ChoiceForm("First?")),
        second: Input.elicit("second", ChoiceForm("Second?"))
      })
      const choice = (answer: typeof first) => answer.action === "accept" ? answer.content.choice : answer.action
      return `first=${choice(first)} second=${choice(second)}`
    }))

  const steps = Tool.make("steps", {
    description: "Reports progress in `count` steps of `ms` milliseconds each",
    input: Schema.Struct({ count: Schema.Int, ms: Schema.Int })
  }, ({ count, ms }) =>
    Effect.gen(function*() {
      for (let step = 1; step <= count; step++) {
        yield* Effect.orDie(Progress.report(step, { total: count, message: `step ${step} of ${count}` }))
        yield* Effect.sleep(`${ms} millis`)
      }
      return `${count} steps`
    }))

  const stats = Tool.make("stats", {
    description: "The job counters",
    input: Schema.Struct({}),
    output: Schema.Struct({ started: Schema.Int, interrupted: Schema.Int, finished: Schema.Int })
  }, () => Effect.sync(() => ({ started: counters.started, interrupted: counters.interrupted, finished: counters.finished })))

  const server = McpServer.make({ name: "tasks-test", version: "1.0.0" })
    .add(job, twoInputs, steps, stats)
    .extend(Tasks.extension({
      ...options.tasks,
      tools: { job: Tasks.required(), two_inputs: Tasks.required(), steps: Tasks.required() },
      ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
      ...(options.maxActivePerPrincipal === undefined ? {} : { maxActivePerPrincipal: options.maxActivePerPrincipal })
    }))
  const layer = server.layer.pipe(
    Layer.provide(Tasks.TaskStore.layerMemory()),
    Layer.provide(SubscriptionHub.layerMemory())
  )
  return { counters, layer }
}

/** Serves a task server over HTTP on a free port; callers are named by their `x-test-user` header. */
export const serveTasksHttp = async (options: TaskServerOptions = {}) => {
  const server = taskServer(options)
  const authenticate = {
    authenticate: (headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>) => {
      const user = headers["x-test-user"]
      return typeof user === "string" && user !== ""
        ? Effect.succeed({ principal: Principal.Principal.of({ id: user, claims: {} }), grant: undefined })
        : Effect.fail(Replies.refuse(401, -32001, "Unauthorized: send x-test-user"))
    }
  }
  const runtime = ManagedRuntime.make(NodeServe.layer({ port: 0, authenticate }).pipe(Layer.provide(server.layer)))
  const http = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  if (http.address._tag === "UnixPathAddress") throw new Error("expected TCP")
  return { ...server, url: `http://127.0.0.1:${http.address.port}/mcp`, dispose: () => runtime.dispose() }
}
