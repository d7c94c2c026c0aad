/**
 * @snodo/tasks: the MCP Tasks extension (`io.modelcontextprotocol/tasks`) for snodo servers.
 *
 * `Tasks.extension(options)` adds it to a server; a `TaskStore` Layer (memory here, SQLite and
 * PostgreSQL in their own packages) keeps the tasks; `Tasks.optional` / `Tasks.required` say which
 * tools run as tasks; `Tasks.detach` ends the synchronous part of a handler.
 *
 * @since 0.1.0
 */
export { currentTaskId, detach, status, TaskPhase } from "./Phase.ts"
/**
 * Asks several inputs at once: `Input.all`. In a task it parks the task as `input_required` with all
 * of them outstanding until the client has answered each (answers are persisted before the handler
 * sees them); in a request it is an MRTR round. One handler serves both.
 *
 * @since 0.1.0
 */
export { all as awaitInput } from "@snodo/core/Input"
export { never, optional, policies, required } from "./Policy.ts"
export type { Policy } from "./Policy.ts"
export { defaults, extension, name, type Options, topicOf } from "./Tasks.ts"
export * as Runner from "./Runner.ts"
export * as Task from "./Task.ts"
export * as TaskInput from "./TaskInput.ts"
export * as TaskObservability from "./TaskObservability.ts"
export * as TaskRow from "./TaskRow.ts"
export * as TaskSignals from "./TaskSignals.ts"
export * as TaskStore from "./TaskStore.ts"
export * as WorkExecutor from "./WorkExecutor.ts"
