/**
 * @snodo/testing: an in-memory client for MCP servers built with snodo, for `@effect/vitest`.
 *
 * @since 0.1.0
 */
export {
  type CallToolResult,
  type Client,
  defaultMeta,
  type Fulfil,
  type InputRequests,
  McpRpcError,
  McpTestClient,
  protocolVersion,
  type Rounds
} from "./McpTestClient.ts"
export * as InMemoryTransport from "./InMemoryTransport.ts"
export * as McpTestClientModule from "./McpTestClient.ts"
