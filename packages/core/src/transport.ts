/**
 * @snodo/core/transport: Transport authors: the running server (`ServerRuntime`, `Outcome`, `RequestContext`), the
 * JSON-RPC envelope and encoder, the connection every transport shares, and the stdio framing.
 *
 * @since 0.1.0
 */
export * as Connection from "./transports/Connection.ts"
export * as Encoder from "./pipeline/Encoder.ts"
export * as Envelope from "./pipeline/Envelope.ts"
export * as FrameWriter from "./transports/FrameWriter.ts"
export * as InFlight from "./peer/InFlight.ts"
export * as LineFramer from "./transports/LineFramer.ts"
export * as Outbox from "./peer/Outbox.ts"
export * as Outcome from "./server/Outcome.ts"
export * as OutgoingRequests from "./peer/OutgoingRequests.ts"
export * as Peer from "./peer/Peer.ts"
export * as RequestContext from "./runtime/RequestContext.ts"
export * as RequestSink from "./peer/RequestSink.ts"
export * as ServerRuntime from "./server/ServerRuntime.ts"
