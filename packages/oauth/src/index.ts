/**
 * @snodo/oauth: an MCP server as an OAuth 2.1 resource server (MCP 2026-07-28
 * `basic/authorization`), on `NodeServe` or a mounted `McpHttp` route.
 *
 * `ResourceServer` serves the Protected Resource Metadata and answers with the spec's challenges;
 * `JwtVerifier` and `Introspection` are the two `TokenVerifier` Layers; `Scopes` is a scope-based
 * authorization policy. Modules are namespaced here and reachable by deep import
 * (`@snodo/oauth/ResourceServer`).
 *
 * @since 0.1.0
 */
export * as AuthorizationServer from "./AuthorizationServer.ts"
export * as Challenge from "./Challenge.ts"
export * as Dpop from "./Dpop.ts"
export * as DpopReplay from "./DpopReplay.ts"
export * as Introspection from "./Introspection.ts"
export * as JwtVerifier from "./JwtVerifier.ts"
export * as KeySet from "./KeySet.ts"
export * as ResourceMetadata from "./ResourceMetadata.ts"
export * as ResourceServer from "./ResourceServer.ts"
export * as Scopes from "./Scopes.ts"
export * as TokenVerifier from "./TokenVerifier.ts"
