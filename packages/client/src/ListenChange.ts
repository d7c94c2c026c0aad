/**
 * What a listen stream delivers, typed: each change notification the server writes on a stream
 * opened with `McpClient.listen`, told apart by `_tag`, with the fields of its kind read and
 * checked. The notification as written stays on it (`method`, `params`, `_meta` included).
 *
 * A notification of a kind this client does not know (a later revision's) is not delivered on a
 * listen stream; `McpClient.notifications` carries every notification as written.
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { McpClient } from "@snodo/client"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* McpClient
 *   const changes = yield* client.listen({ toolsListChanged: true, resourceSubscriptions: ["file:///notes.txt"] })
 *   yield* changes.pipe(Stream.runForEach((change) =>
 *     change._tag === "ResourceUpdated" ? Effect.log(`changed: ${change.uri}`) : Effect.log(change._tag)
 *   ))
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
import * as Methods from "@snodo/protocol/methods/Methods"

/**
 * A notification as the server wrote it (also `McpClient.Notification`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Notification {
  readonly method: string
  readonly params: Readonly<Record<string, unknown>>
}

/**
 * @category models
 * @since 0.1.0
 */
export type ListenChange =
  | ToolsListChanged
  | PromptsListChanged
  | ResourcesListChanged
  | ResourceUpdated
  | TaskStatus

/**
 * `notifications/tools/list_changed`: list the tools again.
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolsListChanged extends Notification {
  readonly _tag: "ToolsListChanged"
}

/**
 * `notifications/prompts/list_changed`.
 *
 * @category models
 * @since 0.1.0
 */
export interface PromptsListChanged extends Notification {
  readonly _tag: "PromptsListChanged"
}

/**
 * `notifications/resources/list_changed`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ResourcesListChanged extends Notification {
  readonly _tag: "ResourcesListChanged"
}

/**
 * `notifications/resources/updated`: the resource at `uri` (one the filter named) changed.
 *
 * @category models
 * @since 0.1.0
 */
export interface ResourceUpdated extends Notification {
  readonly _tag: "ResourceUpdated"
  readonly uri: string
}

/**
 * `notifications/tasks` (the Tasks extension): the task `taskId` is now `status`
 * (`working`, `input_required`, `completed`, `failed`, `cancelled`).
 *
 * @category models
 * @since 0.1.0
 */
export interface TaskStatus extends Notification {
  readonly _tag: "TaskStatus"
  readonly taskId: string
  readonly status: string
}

const text = (value: unknown): string | undefined => typeof value === "string" ? value : undefined

/**
 * The typed change of a notification, or `undefined` for a kind this client does not know or one
 * whose fields are missing.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromNotification = (notification: Notification): ListenChange | undefined => {
  switch (notification.method) {
    case Methods.ToolsListChanged.name:
      return { _tag: "ToolsListChanged", ...notification }
    case Methods.PromptsListChanged.name:
      return { _tag: "PromptsListChanged", ...notification }
    case Methods.ResourcesListChanged.name:
      return { _tag: "ResourcesListChanged", ...notification }
    case Methods.ResourcesUpdated.name: {
      const uri = text(notification.params["uri"])
      return uri === undefined ? undefined : { _tag: "ResourceUpdated", uri, ...notification }
    }
    case Methods.TaskStatus.name: {
      const taskId = text(notification.params["taskId"])
      const status = text(notification.params["status"])
      return taskId === undefined || status === undefined ? undefined : { _tag: "TaskStatus", taskId, status, ...notification }
    }
    default:
      return undefined
  }
}
