/**
 * @snodo/protocol: what an MCP server and an MCP client share, described once: the strict JSON-RPC
 * codec (`StrictJson`, `Envelope`, `Encoder`, `McpError`), the peer every transport feeds (`Peer`,
 * `InFlight`, `OutgoingRequests`, `Outbox`, `RequestSink`, with `LineFramer` and `FrameWriter` for
 * stream transports, and `Mailbox`, the one bounded queue under `Outbox`, `FrameWriter` and the
 * server's listen and event streams), and the method table (`Method`,
 * `Methods`: every request and notification of 2026-07-28, 2025-11-25 and the extensions snodo
 * ships, with its direction, eras, params and result schemas and HTTP header rules). The wire
 * schemas are `@snodo/protocol/wire/<Name>`.
 *
 * @since 0.1.0
 */
export * as Encoder from "./jsonrpc/Encoder.ts"
export * as Envelope from "./jsonrpc/Envelope.ts"
export * as McpError from "./jsonrpc/McpError.ts"
export * as StrictJson from "./jsonrpc/StrictJson.ts"
export * as HeaderParams from "./methods/HeaderParams.ts"
export * as Method from "./methods/Method.ts"
export * as Methods from "./methods/Methods.ts"
export * as ResultCheck from "./methods/ResultCheck.ts"
export * as Semconv from "./methods/Semconv.ts"
export * as FrameWriter from "./peer/FrameWriter.ts"
export * as InFlight from "./peer/InFlight.ts"
export * as LineFramer from "./peer/LineFramer.ts"
export * as Mailbox from "./peer/Mailbox.ts"
export * as Outbox from "./peer/Outbox.ts"
export * as OutgoingRequests from "./peer/OutgoingRequests.ts"
export * as Peer from "./peer/Peer.ts"
export * as RequestSink from "./peer/RequestSink.ts"
