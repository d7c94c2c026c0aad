/**
 * @snodo/core/transport: Transport authors: the running server (`ServerRuntime`, `Outcome`, `RequestContext`), the
 * JSON-RPC envelope and encoder, the connection every transport shares, and the stdio framing.
 *
 * @since 0.1.0
 */
export * as ClientRequests from "./runtime/ClientRequests.ts"
export * as Connection from "./transports/Connection.ts"
export * as Encoder from "./pipeline/Encoder.ts"
export * as Envelope from "./pipeline/Envelope.ts"
export * as FrameWriter from "./transports/FrameWriter.ts"
export * as LineFramer from "./transports/LineFramer.ts"
export * as Outcome from "./server/Outcome.ts"
export * as RequestContext from "./runtime/RequestContext.ts"
export * as RequestSink from "./runtime/RequestSink.ts"
export * as ServerRuntime from "./server/ServerRuntime.ts"
