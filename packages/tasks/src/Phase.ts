/**
 * Where a task-capable tool's handler runs: in the request that may create the task, or in the
 * task. {@link detach} is the point where the handler's work becomes a task.
 *
 * A tool whose policy says `detach: true` runs in its request until it yields `Tasks.detach`:
 * everything before (typically `Input.elicit` rounds, answered synchronously by MRTR) happens in
 * the request, and at `detach` the task is created with the answers gathered so far. The task
 * then runs the handler again from the top: the inputs before `detach` return the answers they got
 * in the request, `detach` does nothing, and the rest is the task's work. When the request did not
 * negotiate the extension (an optional tool), `detach` does nothing and the handler finishes in
 * the request, synchronously. Outside the Tasks extension it does nothing at all.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Input, Tool } from "@snodo/core"
 * import * as Tasks from "@snodo/tasks"
 *
 * const report = Tool.make("report", { input: Schema.Struct({}) }, () =>
 *   Effect.gen(function*() {
 *     const answer = yield* Input.elicit("period", PeriodForm) // answered before the task exists
 *     yield* Tasks.detach                                      // the rest runs as a task
 *     return yield* buildReport(answer)
 *   }))
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Option } from "effect"

/**
 * @category services
 * @since 0.1.0
 */
export class TaskPhase extends Context.Service<TaskPhase, {
  /** `"request"` before the task exists, `"task"` inside it. */
  readonly phase: "request" | "task"
  readonly detach: Effect.Effect<void>
  /** The id of the task the handler runs in (`undefined` in a request). */
  readonly taskId: string | undefined
  /** Sets the task's `statusMessage` (nothing in a request). */
  readonly note: (statusMessage: string) => Effect.Effect<void>
}>()("@snodo/tasks/TaskPhase") {}

/**
 * Makes the rest of the handler a task (see the module notes); nothing in a task or outside the
 * extension.
 *
 * @category constants
 * @since 0.1.0
 */
export const detach: Effect.Effect<void> = Effect.flatMap(
  Effect.serviceOption(TaskPhase),
  (phase) => Option.isSome(phase) ? phase.value.detach : Effect.void
)

/**
 * The id of the task the handler runs in, if it runs in one.
 *
 * @category constants
 * @since 0.1.0
 */
export const currentTaskId: Effect.Effect<string | undefined> = Effect.map(
  Effect.serviceOption(TaskPhase),
  (phase) => Option.isSome(phase) ? phase.value.taskId : undefined
)

/**
 * Tells the client how the task is doing: its `statusMessage`, shown by the next `tasks/get` and
 * `notifications/tasks` (at most 1,024 characters are kept). Nothing in a request or outside the
 * extension: a tool that may run either way can call it unconditionally.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Tasks from "@snodo/tasks"
 *
 * const step = (done: number, total: number) => Tasks.status(`${done} of ${total} files converted`)
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const status = (statusMessage: string): Effect.Effect<void> =>
  Effect.flatMap(
    Effect.serviceOption(TaskPhase),
    (phase) => Option.isSome(phase) ? phase.value.note(statusMessage.slice(0, 1024)) : Effect.void
  )
