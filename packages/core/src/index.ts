/**
 * @snodo/core: MCP 2026-07-28 servers for Effect 4.
 *
 * Modules are namespaced here (`import { Tool, McpServer } from "@snodo/core"`) and also reachable
 * by deep import (`@snodo/core/catalog/Tool`).
 *
 * @since 0.1.0
 */
export * as BasicJsonSchema from "./catalog/BasicJsonSchema.ts"
export * as Catalog from "./catalog/Catalog.ts"
export * as Completion from "./catalog/Completion.ts"
export * as Content from "./catalog/Content.ts"
export * as HeaderParams from "./catalog/HeaderParams.ts"
export * as Pagination from "./catalog/Pagination.ts"
export * as Prompt from "./catalog/Prompt.ts"
export * as Resource from "./catalog/Resource.ts"
export * as ResourceTemplate from "./catalog/ResourceTemplate.ts"
export * as SchemaValidator from "./catalog/SchemaValidator.ts"
export * as Tool from "./catalog/Tool.ts"
export * as ToolResult from "./catalog/ToolResult.ts"
export * as UriTemplate from "./catalog/UriTemplate.ts"
export * as ElicitationForm from "./mrtr/ElicitationForm.ts"
export * as Input from "./mrtr/Input.ts"
export * as InputRequired from "./mrtr/InputRequired.ts"
export * as Keyring from "./mrtr/Keyring.ts"
export * as RequestState from "./mrtr/RequestState.ts"
export * as Dialect from "./pipeline/Dialect.ts"
export * as Envelope from "./pipeline/Envelope.ts"
export * as McpError from "./pipeline/McpError.ts"
export * as Authorization from "./runtime/Authorization.ts"
export * as Executor from "./runtime/Executor.ts"
export * as Listen from "./runtime/Listen.ts"
export * as McpLog from "./runtime/McpLog.ts"
export * as McpRequest from "./runtime/McpRequest.ts"
export * as McpServer from "./runtime/McpServer.ts"
export * as Principal from "./runtime/Principal.ts"
export * as Progress from "./runtime/Progress.ts"
export * as ServerRuntime from "./runtime/ServerRuntime.ts"
export * as SubscriptionHub from "./runtime/SubscriptionHub.ts"
export * as Connection from "./transport/Connection.ts"
