/**
 * @snodo/client: the Effect MCP client (stdio, Streamable HTTP, in-memory; 2026-07-28 first, 2025-11-25 as
 * the fallback; multi-round input handlers; typed tool calls; listen streams).
 *
 * @since 0.1.0
 */
export * as AiToolkit from "./AiToolkit.ts"
export * as ClientTransport from "./ClientTransport.ts"
export * as InMemoryTransport from "./InMemoryTransport.ts"
export * as InputHandlers from "./InputHandlers.ts"
export { type Client, McpClient } from "./McpClient.ts"
export * as McpClientModule from "./McpClient.ts"
export * as McpClientError from "./McpClientError.ts"
export * as StdioClientTransport from "./StdioClientTransport.ts"
export * as StreamableHttpClientTransport from "./StreamableHttpClientTransport.ts"
export * as TaskHandle from "./TaskHandle.ts"
export * as ToolSpec from "./ToolSpec.ts"
