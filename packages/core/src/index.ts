/**
 * @snodo/core: MCP servers for Effect 4, the application's surface.
 *
 * What an application uses to define and serve a server: the definitions (`Tool`, `Resource`,
 * `ResourceTemplate`, `Prompt`, `Completion`), `McpServer` and `StdioTransport`, what handlers call
 * (`Input`, `Progress`, `McpLog`, `McpRequest`), errors, authorization (`Principal`,
 * `Authorization`), observability and the keyring. Each is also importable alone
 * (`@snodo/core/Tool`), which loads only that module and what it needs.
 *
 * Authors of extensions, dialects and transports find their modules on the documented subpaths
 * `@snodo/core/extension`, `@snodo/core/dialect` and `@snodo/core/transport`, and the wire schemas
 * in `@snodo/protocol` (see docs/architecture.md); everything else is internal.
 *
 * @since 0.1.0
 */
export * as Authorization from "./runtime/Authorization.ts"
export * as BasicJsonSchema from "./catalog/BasicJsonSchema.ts"
export * as Catalog from "./catalog/Catalog.ts"
export * as Completion from "./catalog/Completion.ts"
export * as ComponentOptions from "./catalog/ComponentOptions.ts"
export * as ConfigurationError from "./pipeline/ConfigurationError.ts"
export * as Content from "./catalog/Content.ts"
export * as Executor from "./runtime/Executor.ts"
export * as Input from "./mrtr/Input.ts"
export * as InputRequired from "./mrtr/InputRequired.ts"
export * as Keyring from "./mrtr/Keyring.ts"
export * as McpError from "@snodo/protocol/jsonrpc/McpError"
export * as McpEvents from "./observability/McpEvents.ts"
export * as McpLog from "./runtime/McpLog.ts"
export * as McpMetrics from "./observability/McpMetrics.ts"
export * as McpRequest from "./runtime/McpRequest.ts"
export * as McpServer from "./server/McpServer.ts"
export * as Observability from "./observability/Observability.ts"
export * as Principal from "./runtime/Principal.ts"
export * as Progress from "./runtime/Progress.ts"
export * as Prompt from "./catalog/Prompt.ts"
export * as Resource from "./catalog/Resource.ts"
export * as ResourceTemplate from "./catalog/ResourceTemplate.ts"
export * as SchemaValidator from "./catalog/SchemaValidator.ts"
export * as StdioTransport from "./transports/StdioTransport.ts"
export * as SubscriptionHub from "./runtime/SubscriptionHub.ts"
export * as Tool from "./catalog/Tool.ts"
export * as ToolResult from "./catalog/ToolResult.ts"
