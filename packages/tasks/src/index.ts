/**
 * @snodo/tasks: the MCP Tasks extension (`io.modelcontextprotocol/tasks`) for snodo servers.
 *
 * `Tasks.extension(options)` adds it to a server; a `TaskStore` Layer (memory here, SQLite and
 * PostgreSQL in their own packages) keeps the tasks; `Tasks.optional` / `Tasks.required` say which
 * tools run as tasks; `Tasks.detach` ends the synchronous part of a handler.
 *
 * @since 0.1.0
 */
export { detach, currentTaskId, TaskPhase } from "./Phase.ts"
export { never, optional, required } from "./Policy.ts"
export type { Policy } from "./Policy.ts"
export { defaults, extension, name, type Options, TaskIdParams, topicOf, UpdateTaskParams } from "./Tasks.ts"
export * as Runner from "./Runner.ts"
export * as Task from "./Task.ts"
export * as TaskInput from "./TaskInput.ts"
export * as TaskSignals from "./TaskSignals.ts"
export * as TaskStore from "./TaskStore.ts"
export * as WorkExecutor from "./WorkExecutor.ts"
