/**
 * The wire schemas of the Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a task as
 * `tools/call` creates it (`CreateTaskResult`), as `tasks/get` and `notifications/tasks` carry it
 * (`DetailedTask`), and the params of `tasks/get`, `tasks/update` and `tasks/cancel`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import * as Tasks from "@snodo/protocol/wire/Tasks"
 *
 * const task = Schema.decodeUnknownSync(Tasks.DetailedTask)({
 *   taskId: "t1", status: "working", createdAt: "2026-07-28T00:00:00Z", lastUpdatedAt: "2026-07-28T00:00:00Z", ttlMs: null
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { OpenStruct, UnknownObject } from "./Json.ts"
import { MetaObject, ResultFields } from "./Meta.ts"

/**
 * The extension's identifier, as `clientCapabilities.extensions` and `server/discover` name it.
 *
 * @category constants
 * @since 0.1.0
 */
export const extensionId = "io.modelcontextprotocol/tasks" as const

/**
 * @category schemas
 * @since 0.1.0
 */
export const TaskStatus = Schema.Literals(["working", "input_required", "completed", "failed", "cancelled"])

/**
 * @category models
 * @since 0.1.0
 */
export type TaskStatus = typeof TaskStatus.Type

const taskFields = {
  taskId: Schema.String,
  status: TaskStatus,
  statusMessage: Schema.optionalKey(Schema.String),
  createdAt: Schema.String,
  lastUpdatedAt: Schema.String,
  ttlMs: Schema.NullOr(Schema.Int),
  pollIntervalMs: Schema.optionalKey(Schema.Int)
}

/**
 * A task with the fields of its status: `inputRequests` while `input_required`, `result` once
 * `completed`, `error` once `failed`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const DetailedTask = OpenStruct({
  ...taskFields,
  inputRequests: Schema.optionalKey(Schema.Record(Schema.String, UnknownObject)),
  result: Schema.optionalKey(UnknownObject),
  error: Schema.optionalKey(OpenStruct({ code: Schema.Int, message: Schema.String, data: Schema.optionalKey(Schema.Unknown) }))
}).check(
  Schema.makeFilter((task) => {
    switch (task.status) {
      case "input_required":
        return task.inputRequests !== undefined || "an input_required task carries inputRequests"
      case "completed":
        return task.result !== undefined || "a completed task carries its result"
      case "failed":
        return task.error !== undefined || "a failed task carries its error"
      default:
        return true
    }
  })
)

/**
 * @category models
 * @since 0.1.0
 */
export type DetailedTask = typeof DetailedTask.Type

/**
 * What `tools/call` answers when the server made a task of the call (`resultType: "task"`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const CreateTaskResult = OpenStruct({ ...ResultFields, ...taskFields, resultType: Schema.Literal("task") })

/**
 * @category models
 * @since 0.1.0
 */
export type CreateTaskResult = typeof CreateTaskResult.Type

/**
 * The result of `tasks/get`: the task, detailed.
 *
 * @category schemas
 * @since 0.1.0
 */
export const GetTaskResult = DetailedTask

/**
 * Params of `tasks/get` and `tasks/cancel`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TaskIdParams = Schema.Struct({ _meta: Schema.optionalKey(MetaObject), taskId: Schema.String })

/**
 * Params of `tasks/update`: each response is checked by the task when it consumes its key.
 *
 * @category schemas
 * @since 0.1.0
 */
export const UpdateTaskParams = Schema.Struct({
  _meta: Schema.optionalKey(MetaObject),
  taskId: Schema.String,
  inputResponses: Schema.Record(Schema.String, UnknownObject)
})

/**
 * Params of `notifications/tasks`: the task, detailed.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TaskStatusNotificationParams = DetailedTask
