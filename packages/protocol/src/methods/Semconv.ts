/**
 * The attribute names of snodo's spans and metrics: the OpenTelemetry semantic conventions for
 * MCP, JSON-RPC and the network where they name one, `mcp.*` of snodo's own otherwise.
 *
 * @since 0.1.0
 */

/**
 * `tools/call`, `resources/read`, …: always set.
 *
 * @category constants
 * @since 0.1.0
 */
export const methodName = "mcp.method.name"
/**
 * The request's protocol revision (its `_meta` version, or the initialize-era session's).
 *
 * @category constants
 * @since 0.1.0
 */
export const protocolVersion = "mcp.protocol.version"
/**
 * A `resources/read` / `resources/subscribe` URI.
 *
 * @category constants
 * @since 0.1.0
 */
export const resourceUri = "mcp.resource.uri"
/**
 * The MRTR round a request is (1 without `requestState`, then one more per retry). snodo's own.
 *
 * @category constants
 * @since 0.1.0
 */
export const mrtrRound = "mcp.mrtr.round"
/**
 * The JSON-RPC id, as a string.
 *
 * @category constants
 * @since 0.1.0
 */
export const jsonRpcRequestId = "jsonrpc.request.id"
/**
 * `"2.0"`.
 *
 * @category constants
 * @since 0.1.0
 */
export const jsonRpcProtocolVersion = "jsonrpc.protocol.version"
/**
 * The tool of a `tools/call`.
 *
 * @category constants
 * @since 0.1.0
 */
export const toolName = "gen_ai.tool.name"
/**
 * The prompt of a `prompts/get`.
 *
 * @category constants
 * @since 0.1.0
 */
export const promptName = "gen_ai.prompt.name"
/**
 * `"execute_tool"` on a `tools/call`.
 *
 * @category constants
 * @since 0.1.0
 */
export const operationName = "gen_ai.operation.name"
/**
 * `"pipe"` (stdio) or `"tcp"` (HTTP).
 *
 * @category constants
 * @since 0.1.0
 */
export const networkTransport = "network.transport"
/**
 * `"http"` over Streamable HTTP.
 *
 * @category constants
 * @since 0.1.0
 */
export const networkProtocolName = "network.protocol.name"
/**
 * The client's address, where the transport knows it as the client's (an HTTP server behind a
 * trusted proxy: the address the proxy reports).
 *
 * @category constants
 * @since 0.1.0
 */
export const clientAddress = "client.address"
/**
 * The JSON-RPC error code of an error answer, as a string.
 *
 * @category constants
 * @since 0.1.0
 */
export const errorType = "error.type"
/**
 * The same code, as the RPC conventions name it.
 *
 * @category constants
 * @since 0.1.0
 */
export const rpcResponseStatusCode = "rpc.response.status_code"
