/**
 * What runs a task's work: a {@link Task.Work} descriptor (a tool, its arguments, the principal,
 * the creating request's protocol context) in, the `CallToolResult` out.
 *
 * The default, {@link forTools}, runs the catalog's tool: its arguments are validated again, its
 * handler runs with the request services of a request that is not on any transport (`McpRequest`
 * with the task id and `transport: "task"`, and a silent `McpLog`), `McpInput` is the task's input
 * session, and `TaskPhase` says it runs in the task. `Progress.report` sets the task's
 * `statusMessage` (its message, else `"<progress>/<total>"`), what `tasks/get` and
 * `notifications/tasks` show next: tasks carry no progress notifications, and the same handler
 * reports progress both ways ({@link progressReporter}). What it returns is shaped exactly as the synchronous `tools/call` would have been,
 * `resultType: "complete"` included. A handler that returns a low-level `InputRequired` is a
 * defect in a task (use `Input.elicit`, which works in both).
 *
 * An application can provide its own `WorkExecutor` (to run work somewhere else), as a Layer.
 *
 * @since 0.1.0
 */
import * as Methods from "@snodo/protocol/methods/Methods"
import { InputRequired } from "@snodo/core"
import type { McpError } from "@snodo/core/McpError"
import { defaultLimits, Progress, ProgressError, type Reporter } from "@snodo/core/Progress"
import type { Environment } from "@snodo/core/extension/Route"
import * as ToolCall from "@snodo/core/extension/ToolCall"
import type { JsonValue } from "@snodo/protocol/wire/Json"
import { Context, Effect } from "effect"
import { TaskPhase } from "./Phase.ts"
import type * as Task from "./Task.ts"
import type { TaskInput } from "./TaskInput.ts"

/**
 * @category services
 * @since 0.1.0
 */
export class WorkExecutor extends Context.Service<WorkExecutor, {
  readonly execute: (task: Task.TaskRecord, input: TaskInput) => Effect.Effect<Readonly<Record<string, JsonValue>>, McpError>
}>()("@snodo/tasks/WorkExecutor") {}

const inTask = (taskId: string, input: TaskInput) =>
  TaskPhase.of({ phase: "task", detach: Effect.void, taskId, note: (statusMessage) => input.note(statusMessage) })

/**
 * `Progress` inside a task: each report becomes the task's `statusMessage` (its message, else
 * `"<progress>/<total>"`, at most 1,024 characters), under the rules a request's reports keep
 * (values strictly increasing, at most 1,000 reports per run).
 *
 * @category combinators
 * @since 0.1.0
 */
export const progressReporter = (note: (statusMessage: string) => Effect.Effect<void>): Reporter => {
  let last = -Infinity
  let updates = 0
  return {
    enabled: true,
    report: (progress, options) =>
      Effect.suspend(() => {
        if (!(progress > last)) {
          return Effect.fail(new ProgressError({ reason: "NotIncreasing", message: `Progress must increase (was ${last}, got ${progress})` }))
        }
        if (updates >= defaultLimits.maxUpdates) {
          return Effect.fail(new ProgressError({ reason: "LimitReached", message: `At most ${defaultLimits.maxUpdates} progress reports per task run` }))
        }
        last = progress
        updates++
        const text = options?.message ?? (options?.total === undefined ? `${progress}` : `${progress}/${options.total}`)
        return note(text.slice(0, 1024))
      })
  }
}

const lowLevel = Effect.die(new Error("A handler running as a task cannot return InputRequired: use Input.elicit, Input.sample or Input.roots"))

/**
 * Runs the catalog's tools.
 *
 * @category combinators
 * @since 0.1.0
 */
export const forTools = (environment: Environment): WorkExecutor["Service"] =>
  WorkExecutor.of({
    execute: (task, input) => {
      const { work } = task
      const tool = environment.catalog.tools.get(work.tool)
      if (tool === undefined) return Effect.fail(ToolCall.unknownTool(work.tool))
      const dialect = environment.dialects.get(work.protocolVersion) ?? environment.dialects.dialects[0]!
      const params = { name: work.tool, arguments: work.arguments }
      const meta = {
        protocolVersion: work.protocolVersion,
        clientCapabilities: work.clientCapabilities,
        clientInfo: work.clientInfo,
        logLevel: undefined,
        progressToken: undefined,
        raw: {}
      }
      const provideWith = environment.provider(
        { _tag: "Request", id: task.taskId, method: Methods.ToolsCall.name, params },
        meta,
        { transport: "task", sink: undefined },
        { id: work.principal.id, claims: work.principal.claims }
      )
      const phase = inTask(task.taskId, input)
      const progress = progressReporter((statusMessage) => input.note(statusMessage))
      const provide = <A, E>(effect: Effect.Effect<A, E, unknown>): Effect.Effect<A, E> =>
        provideWith(
          Effect.flatMap(
            effect.pipe(Effect.provideService(TaskPhase, phase), Effect.provideService(Progress, progress)),
            (value) => InputRequired.is(value) ? lowLevel : Effect.succeed(value)
          ),
          input
        )
      return ToolCall.run({ tool, arguments: work.arguments }, provide).pipe(
        Effect.map((result) => dialect.shape(result, environment.settings.serverInfo, undefined) as Record<string, JsonValue>)
      )
    }
  })
