/**
 * @snodo/client: the Effect MCP client (stdio, Streamable HTTP, in-memory; 2026-07-28 first, 2025-11-25 as
 * the fallback; multi-round input handlers; typed tool calls; listen streams; tasks; the OAuth 2.1 client of
 * the MCP authorization spec as a wrapper of an `effect/http` HttpClient; a server's tools as an effect/ai
 * toolkit).
 *
 * @since 0.1.0
 */
export * as AiToolkit from "./AiToolkit.ts"
export * as ClientTransport from "./ClientTransport.ts"
export * as InputHandlers from "./InputHandlers.ts"
export * as ListenChange from "./ListenChange.ts"
export * as Skills from "./Skills.ts"
export * as Apps from "./Apps.ts"
export { type Client, McpClient } from "./McpClient.ts"
export * as McpClientModule from "./McpClient.ts"
export * as McpClientError from "./McpClientError.ts"
export * as StdioClientTransport from "./StdioClientTransport.ts"
export * as StreamableHttpClientTransport from "./StreamableHttpClientTransport.ts"
export * as TaskHandle from "./TaskHandle.ts"
export * as ToolSpec from "./ToolSpec.ts"
export * as AuthorizationPrompt from "./oauth/AuthorizationPrompt.ts"
export * as ClientAssertion from "./oauth/ClientAssertion.ts"
export * as Dpop from "./oauth/Dpop.ts"
export * as OAuthClient from "./oauth/OAuthClient.ts"
export * as OAuthError from "./oauth/OAuthError.ts"
export * as TokenExchange from "./oauth/TokenExchange.ts"
export * as TokenStore from "./oauth/TokenStore.ts"
