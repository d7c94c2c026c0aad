/**
 * @snodo/core/transport: Transport authors: the running server (`ServerRuntime`, `Outcome`, `RequestContext`), the
 * connection every transport shares. The JSON-RPC envelope, encoder, line framing, frame writer
 * and peer are `@snodo/protocol`'s (`@snodo/protocol/jsonrpc/*`, `@snodo/protocol/peer/*`).
 *
 * @since 0.1.0
 */
export * as Connection from "./transports/Connection.ts"
export * as Outcome from "./server/Outcome.ts"
export * as RequestContext from "./runtime/RequestContext.ts"
export * as ServerRuntime from "./server/ServerRuntime.ts"
