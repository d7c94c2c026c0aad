/**
 * The method table: every request and notification of 2026-07-28, 2025-11-25 and the extensions
 * snodo ships (Tasks, Skills), each described once ({@link Method}). The server's routes are made
 * from these entries, the HTTP boundary checks headers by them, and `@snodo/client` sends, decodes
 * results and drops stale cache entries by them; a method's name is spelled here and in the module
 * that serves it, nowhere else.
 *
 * The MCP Apps extension (`io.modelcontextprotocol/ui`) adds no method between client and server
 * (its messages run between a host and its view), so it has no entry.
 *
 * @example
 * ```ts
 * import * as Methods from "@snodo/protocol/methods/Methods"
 *
 * Methods.find("tasks/get")?.nameParam // "taskId"
 * Methods.requests.filter((method) => method.eras.includes("2025-11-25")).length
 * ```
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as Completion from "../wire/Completion.ts"
import * as Discover from "../wire/Discover.ts"
import * as Elicitation from "../wire/Elicitation.ts"
import { OpenStruct } from "../wire/Json.ts"
import * as Lifecycle from "../wire/Lifecycle.ts"
import { MetaObject, PaginatedRequestParams } from "../wire/Meta.ts"
import * as Notifications from "../wire/Notifications.ts"
import * as Prompts from "../wire/Prompts.ts"
import * as Resources from "../wire/Resources.ts"
import * as Roots from "../wire/Roots.ts"
import * as Sampling from "../wire/Sampling.ts"
import * as Skills from "../wire/Skills.ts"
import * as Tasks from "../wire/Tasks.ts"
import * as Tools from "../wire/Tools.ts"
import * as Method from "./Method.ts"

const MetaOnly = OpenStruct({ _meta: Schema.optionalKey(MetaObject) })

// --- requests a client sends -------------------------------------------------------------------

/**
 * `server/discover` (2026-07-28): the server's versions, capabilities and instructions.
 *
 * @category requests
 * @since 0.1.0
 */
export const ServerDiscover = Method.request({
  name: "server/discover",
  params: MetaOnly,
  result: Discover.DiscoverResult,
  cacheable: true
})

/**
 * `initialize` (2025-11-25): the initialize era's handshake.
 *
 * @category requests
 * @since 0.1.0
 */
export const Initialize = Method.request({
  name: "initialize",
  eras: ["2025-11-25"],
  params: Lifecycle.InitializeRequestParams,
  result: Lifecycle.InitializeResult
})

/**
 * `ping` (2025-11-25; either side may send it).
 *
 * @category requests
 * @since 0.1.0
 */
export const Ping = Method.request({
  name: "ping",
  sender: "either",
  eras: ["2025-11-25"],
  params: Lifecycle.PingRequestParams,
  result: Lifecycle.EmptyResult
})

/**
 * `tools/list`.
 *
 * @category requests
 * @since 0.1.0
 */
export const ToolsList = Method.request({
  name: "tools/list",
  eras: Method.bothEras,
  capability: "tools",
  params: PaginatedRequestParams,
  result: Tools.ListToolsResult,
  cacheable: true
})

/**
 * `tools/call`: `Mcp-Name` is the tool's name, its `x-mcp-header` parameters are mirrored; it may
 * ask for input and, with the Tasks extension, answer with a task.
 *
 * @category requests
 * @since 0.1.0
 */
export const ToolsCall = Method.request({
  name: "tools/call",
  eras: Method.bothEras,
  capability: "tools",
  params: Tools.CallToolRequestParams,
  result: Tools.CallToolResult,
  nameParam: "name",
  mirrorsArguments: true,
  mayAskInput: true,
  mayCreateTask: true,
  subject: "name"
})

/**
 * `resources/list`.
 *
 * @category requests
 * @since 0.1.0
 */
export const ResourcesList = Method.request({
  name: "resources/list",
  eras: Method.bothEras,
  capability: "resources",
  params: PaginatedRequestParams,
  result: Resources.ListResourcesResult,
  cacheable: true
})

/**
 * `resources/templates/list`.
 *
 * @category requests
 * @since 0.1.0
 */
export const ResourcesTemplatesList = Method.request({
  name: "resources/templates/list",
  eras: Method.bothEras,
  capability: "resources",
  params: PaginatedRequestParams,
  result: Resources.ListResourceTemplatesResult,
  cacheable: true
})

/**
 * `resources/read`: `Mcp-Name` is the resource's URI.
 *
 * @category requests
 * @since 0.1.0
 */
export const ResourcesRead = Method.request({
  name: "resources/read",
  eras: Method.bothEras,
  capability: "resources",
  params: Resources.ReadResourceRequestParams,
  result: Resources.ReadResourceResult,
  nameParam: "uri",
  cacheable: true,
  mayAskInput: true,
  subject: "uri"
})

/**
 * `resources/subscribe` (2025-11-25; 2026-07-28 listens instead).
 *
 * @category requests
 * @since 0.1.0
 */
export const ResourcesSubscribe = Method.request({
  name: "resources/subscribe",
  eras: ["2025-11-25"],
  capability: "subscriptions",
  params: Lifecycle.SubscribeRequestParams,
  result: Lifecycle.EmptyResult,
  subject: "uri"
})

/**
 * `resources/unsubscribe` (2025-11-25).
 *
 * @category requests
 * @since 0.1.0
 */
export const ResourcesUnsubscribe = Method.request({
  name: "resources/unsubscribe",
  eras: ["2025-11-25"],
  capability: "subscriptions",
  params: Lifecycle.SubscribeRequestParams,
  result: Lifecycle.EmptyResult,
  subject: "uri"
})

/**
 * `prompts/list`.
 *
 * @category requests
 * @since 0.1.0
 */
export const PromptsList = Method.request({
  name: "prompts/list",
  eras: Method.bothEras,
  capability: "prompts",
  params: PaginatedRequestParams,
  result: Prompts.ListPromptsResult,
  cacheable: true
})

/**
 * `prompts/get`: `Mcp-Name` is the prompt's name.
 *
 * @category requests
 * @since 0.1.0
 */
export const PromptsGet = Method.request({
  name: "prompts/get",
  eras: Method.bothEras,
  capability: "prompts",
  params: Prompts.GetPromptRequestParams,
  result: Prompts.GetPromptResult,
  nameParam: "name",
  mayAskInput: true,
  subject: "name"
})

/**
 * `completion/complete`.
 *
 * @category requests
 * @since 0.1.0
 */
export const CompletionComplete = Method.request({
  name: "completion/complete",
  eras: Method.bothEras,
  capability: "completions",
  params: Completion.CompleteRequestParams,
  result: Completion.CompleteResult
})

/**
 * `logging/setLevel` (2025-11-25; 2026-07-28 names the level in each request's `_meta`).
 *
 * @category requests
 * @since 0.1.0
 */
export const LoggingSetLevel = Method.request({
  name: "logging/setLevel",
  eras: ["2025-11-25"],
  capability: "logging",
  params: Lifecycle.SetLevelRequestParams,
  result: Lifecycle.EmptyResult
})

/**
 * `subscriptions/listen` (2026-07-28): a long-lived stream of the changes the filter asks for.
 *
 * @category requests
 * @since 0.1.0
 */
export const SubscriptionsListen = Method.request({
  name: "subscriptions/listen",
  capability: "subscriptions",
  params: Notifications.SubscriptionsListenRequestParams,
  result: Notifications.SubscriptionsListenResult,
  streams: true
})

// --- requests a server sends (2025-11-25 as JSON-RPC requests; 2026-07-28 as input requests) ---

/**
 * `elicitation/create`: a question for the user.
 *
 * @category requests
 * @since 0.1.0
 */
export const ElicitationCreate = Method.request({
  name: "elicitation/create",
  sender: "server",
  eras: Method.bothEras,
  params: Elicitation.ElicitRequestParams,
  result: Elicitation.ElicitResult
})

/**
 * `sampling/createMessage`: a completion from the client's model.
 *
 * @category requests
 * @since 0.1.0
 */
export const SamplingCreateMessage = Method.request({
  name: "sampling/createMessage",
  sender: "server",
  eras: Method.bothEras,
  params: Sampling.CreateMessageRequestParams,
  result: Sampling.CreateMessageResult
})

/**
 * `roots/list`: the client's roots.
 *
 * @category requests
 * @since 0.1.0
 */
export const RootsList = Method.request({
  name: "roots/list",
  sender: "server",
  eras: Method.bothEras,
  params: MetaOnly,
  result: Roots.ListRootsResult
})

// --- the Tasks extension -------------------------------------------------------------------------

/**
 * `tasks/get` (Tasks): the task, detailed; `Mcp-Name` is its id.
 *
 * @category requests
 * @since 0.1.0
 */
export const TasksGet = Method.request({
  name: "tasks/get",
  extension: Tasks.extensionId,
  params: Tasks.TaskIdParams,
  result: Tasks.GetTaskResult,
  nameParam: "taskId"
})

/**
 * `tasks/update` (Tasks): answers to the task's input requests.
 *
 * @category requests
 * @since 0.1.0
 */
export const TasksUpdate = Method.request({
  name: "tasks/update",
  extension: Tasks.extensionId,
  params: Tasks.UpdateTaskParams,
  result: Lifecycle.EmptyResult,
  nameParam: "taskId"
})

/**
 * `tasks/cancel` (Tasks).
 *
 * @category requests
 * @since 0.1.0
 */
export const TasksCancel = Method.request({
  name: "tasks/cancel",
  extension: Tasks.extensionId,
  params: Tasks.TaskIdParams,
  result: Lifecycle.EmptyResult,
  nameParam: "taskId"
})

// --- the Skills extension ------------------------------------------------------------------------

/**
 * `skills/list` (Skills).
 *
 * @category requests
 * @since 0.1.0
 */
export const SkillsList = Method.request({
  name: "skills/list",
  extension: Skills.extensionId,
  params: PaginatedRequestParams,
  result: Skills.ListSkillsResult,
  cacheable: true
})

/**
 * `skills/get` (Skills).
 *
 * @category requests
 * @since 0.1.0
 */
export const SkillsGet = Method.request({
  name: "skills/get",
  extension: Skills.extensionId,
  params: Skills.UriParams,
  result: Skills.GetSkillResult,
  cacheable: true
})

/**
 * `resources/directory/read` (Skills): one directory's entries, a page at a time.
 *
 * @category requests
 * @since 0.1.0
 */
export const ResourcesDirectoryRead = Method.request({
  name: "resources/directory/read",
  extension: Skills.extensionId,
  capability: "resources",
  params: Skills.DirectoryParams,
  result: Skills.ReadDirectoryResult,
  cacheable: true
})

// --- notifications -------------------------------------------------------------------------------

/**
 * `notifications/initialized` (2025-11-25, from the client).
 *
 * @category notifications
 * @since 0.1.0
 */
export const Initialized = Method.notification({
  name: "notifications/initialized",
  sender: "client",
  eras: ["2025-11-25"],
  params: MetaOnly
})

/**
 * `notifications/cancelled`: either side withdraws a request it sent.
 *
 * @category notifications
 * @since 0.1.0
 */
export const Cancelled = Method.notification({
  name: "notifications/cancelled",
  sender: "either",
  params: Notifications.CancelledNotificationParams
})

/**
 * `notifications/progress`.
 *
 * @category notifications
 * @since 0.1.0
 */
export const Progress = Method.notification({
  name: "notifications/progress",
  sender: "either",
  params: Notifications.ProgressNotificationParams
})

/**
 * `notifications/message`: a log message.
 *
 * @category notifications
 * @since 0.1.0
 */
export const LoggingMessage = Method.notification({
  name: "notifications/message",
  params: Notifications.LoggingMessageNotificationParams
})

/**
 * `notifications/tools/list_changed`.
 *
 * @category notifications
 * @since 0.1.0
 */
export const ToolsListChanged = Method.notification({
  name: "notifications/tools/list_changed",
  params: MetaOnly,
  invalidates: [ToolsList.name],
  listenKey: "toolsListChanged",
  declaredBy: ["tools", "listChanged"]
})

/**
 * `notifications/prompts/list_changed`.
 *
 * @category notifications
 * @since 0.1.0
 */
export const PromptsListChanged = Method.notification({
  name: "notifications/prompts/list_changed",
  params: MetaOnly,
  invalidates: [PromptsList.name],
  listenKey: "promptsListChanged",
  declaredBy: ["prompts", "listChanged"]
})

/**
 * `notifications/resources/list_changed` (skills are resources: their lists go stale too).
 *
 * @category notifications
 * @since 0.1.0
 */
export const ResourcesListChanged = Method.notification({
  name: "notifications/resources/list_changed",
  params: MetaOnly,
  invalidates: [ResourcesList.name, ResourcesTemplatesList.name, SkillsList.name, SkillsGet.name, ResourcesDirectoryRead.name],
  listenKey: "resourcesListChanged",
  declaredBy: ["resources", "listChanged"]
})

/**
 * `notifications/resources/updated`: a resource the client subscribed to (or listens for) changed.
 *
 * @category notifications
 * @since 0.1.0
 */
export const ResourcesUpdated = Method.notification({
  name: "notifications/resources/updated",
  params: Notifications.ResourceUpdatedNotificationParams,
  invalidates: [ResourcesRead.name],
  listenKey: "resourceSubscriptions",
  declaredBy: ["resources", "subscribe"]
})

/**
 * `notifications/roots/list_changed` (from the client).
 *
 * @category notifications
 * @since 0.1.0
 */
export const RootsListChanged = Method.notification({
  name: "notifications/roots/list_changed",
  sender: "client",
  params: MetaOnly
})

/**
 * `notifications/subscriptions/acknowledged` (2026-07-28): a listen stream is open.
 *
 * @category notifications
 * @since 0.1.0
 */
export const SubscriptionsAcknowledged = Method.notification({
  name: "notifications/subscriptions/acknowledged",
  eras: ["2026-07-28"],
  params: Notifications.SubscriptionsAcknowledgedNotificationParams
})

/**
 * `notifications/tasks` (Tasks): a task's status changed.
 *
 * @category notifications
 * @since 0.1.0
 */
export const TaskStatus = Method.notification({
  name: "notifications/tasks",
  eras: ["2026-07-28"],
  extension: Tasks.extensionId,
  params: Tasks.TaskStatusNotificationParams,
  listenKey: "taskIds"
})

// --- the table -----------------------------------------------------------------------------------

/**
 * Every request, in the order above.
 *
 * @category table
 * @since 0.1.0
 */
export const requests: ReadonlyArray<Method.AnyRequest> = [
  ServerDiscover,
  Initialize,
  Ping,
  ToolsList,
  ToolsCall,
  ResourcesList,
  ResourcesTemplatesList,
  ResourcesRead,
  ResourcesSubscribe,
  ResourcesUnsubscribe,
  PromptsList,
  PromptsGet,
  CompletionComplete,
  LoggingSetLevel,
  SubscriptionsListen,
  ElicitationCreate,
  SamplingCreateMessage,
  RootsList,
  TasksGet,
  TasksUpdate,
  TasksCancel,
  SkillsList,
  SkillsGet,
  ResourcesDirectoryRead
]

/**
 * Every notification.
 *
 * @category table
 * @since 0.1.0
 */
export const notifications: ReadonlyArray<Method.AnyNotification> = [
  Initialized,
  Cancelled,
  Progress,
  LoggingMessage,
  ToolsListChanged,
  PromptsListChanged,
  ResourcesListChanged,
  ResourcesUpdated,
  RootsListChanged,
  SubscriptionsAcknowledged,
  TaskStatus
]

/**
 * Every method.
 *
 * @category table
 * @since 0.1.0
 */
export const all: ReadonlyArray<Method.Any> = [...requests, ...notifications]

const byName: ReadonlyMap<string, Method.Any> = new Map(all.map((method) => [method.name, method]))
const requestsByName: ReadonlyMap<string, Method.AnyRequest> = new Map(requests.map((method) => [method.name, method]))
const notificationsByName: ReadonlyMap<string, Method.AnyNotification> = new Map(notifications.map((method) => [method.name, method]))

/**
 * The entry of a method, by its wire name.
 *
 * @category table
 * @since 0.1.0
 */
export const find = (name: string): Method.Any | undefined => byName.get(name)

/**
 * The entry of a request, by its wire name.
 *
 * @category table
 * @since 0.1.0
 */
export const findRequest = (name: string): Method.AnyRequest | undefined => requestsByName.get(name)

/**
 * The entry of a notification, by its wire name.
 *
 * @category table
 * @since 0.1.0
 */
export const findNotification = (name: string): Method.AnyNotification | undefined => notificationsByName.get(name)

/**
 * The notifications a `subscriptions/listen` filter key asks for, by key.
 *
 * @category table
 * @since 0.1.0
 */
export const byListenKey: ReadonlyMap<string, Method.AnyNotification> = new Map(
  notifications.flatMap((method) => method.listenKey === undefined ? [] : [[method.listenKey, method] as const])
)

/**
 * Whether a server's capabilities promise the notification a `subscriptions/listen` filter key
 * asks for (`toolsListChanged` → `capabilities.tools.listChanged === true`); `false` for a key no
 * capability declares.
 *
 * @example
 * ```ts
 * import * as Methods from "@snodo/protocol/methods/Methods"
 *
 * Methods.declaresListenKey({ tools: { listChanged: true } }, "toolsListChanged") // true
 * ```
 *
 * @category table
 * @since 0.1.0
 */
export const declaresListenKey = (capabilities: Readonly<Record<string, unknown>>, key: string): boolean => {
  const declaredBy = byListenKey.get(key)?.declaredBy
  if (declaredBy === undefined) return false
  const capability = capabilities[declaredBy[0]]
  return typeof capability === "object" && capability !== null && (capability as Readonly<Record<string, unknown>>)[declaredBy[1]] === true
}
