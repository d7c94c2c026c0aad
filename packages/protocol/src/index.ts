/**
 * @snodo/protocol: what an MCP server and an MCP client share, described once: the strict JSON-RPC
 * codec (`StrictJson`, `Envelope`, `Encoder`, `McpError`), the peer every transport feeds (`Peer`,
 * `InFlight`, `OutgoingRequests`, `Outbox`, `RequestSink`, with `LineFramer` and `FrameWriter` for
 * stream transports, and `Mailbox`, the one bounded queue under `Outbox`, `FrameWriter` and the
 * server's listen and event streams), and the method table (`Method`,
 * `Methods`: every request and notification of 2026-07-28, 2025-11-25 and the extensions snodo
 * ships, with its direction, eras, params and result schemas and HTTP header rules), and the wire
 * schemas (`Tools`, `Resources`, …; also `@snodo/protocol/wire/<Name>`). Every module is also
 * importable by its path (`@snodo/protocol/wire/Tools`); the other snodo packages' builds import
 * them from here, so that a program loads one file of this package beside its chunk.
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
export * as Capabilities from "./wire/Capabilities.ts"
export * as Completion from "./wire/Completion.ts"
export * as Content from "./wire/Content.ts"
export * as Discover from "./wire/Discover.ts"
export * as Elicitation from "./wire/Elicitation.ts"
export * as Json from "./wire/Json.ts"
export * as Lifecycle from "./wire/Lifecycle.ts"
export * as Meta from "./wire/Meta.ts"
export * as Mrtr from "./wire/Mrtr.ts"
export * as Notifications from "./wire/Notifications.ts"
export * as Prompts from "./wire/Prompts.ts"
export * as Resources from "./wire/Resources.ts"
export * as Roots from "./wire/Roots.ts"
export * as Sampling from "./wire/Sampling.ts"
export * as Skills from "./wire/Skills.ts"
export * as Tasks from "./wire/Tasks.ts"
export * as Tools from "./wire/Tools.ts"
