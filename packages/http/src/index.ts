/**
 * @snodo/http: MCP 2026-07-28 Streamable HTTP for Effect 4.
 *
 * `McpHttp` is the transport as an HTTP application to mount in your own `HttpRouter`;
 * `NodeServe` serves it on Node in one call. Modules are namespaced here and reachable by deep
 * import (`@snodo/http/McpHttp`).
 *
 * @since 0.1.0
 */
export * as Authentication from "./Authentication.ts"
export * as BodyBudget from "./BodyBudget.ts"
export * as BodyReader from "./BodyReader.ts"
export * as Dispatch from "./Dispatch.ts"
export * as EffectResponse from "./EffectResponse.ts"
export * as Exchange from "./Exchange.ts"
export * as InitializeEra from "./InitializeEra.ts"
export * as Listen from "./Listen.ts"
export * as McpHeaders from "./McpHeaders.ts"
export * as McpHttp from "./McpHttp.ts"
export * as Negotiation from "./Negotiation.ts"
export * as NodeEndpoint from "./NodeEndpoint.ts"
export * as NodeResponse from "./NodeResponse.ts"
export * as NodeServe from "./NodeServe.ts"
export * as Options from "./Options.ts"
export * as Replies from "./Replies.ts"
export * as RequestChecks from "./RequestChecks.ts"
export * as RequestHead from "./RequestHead.ts"
export * as Security from "./Security.ts"
export * as Sessions from "./Sessions.ts"
