/**
 * @snodo/http: MCP 2026-07-28 Streamable HTTP for Effect 4.
 *
 * `McpHttp` is the transport as an HTTP application to mount in your own `HttpRouter`;
 * `NodeServe` serves it on Node in one call, `NodeEndpoint` inside a Node server of your own;
 * `Options`, `Security` and `Authentication` configure them; a `SessionStore` shares initialize-era
 * sessions between instances. Each module is also importable alone
 * (`@snodo/http/NodeServe`). Authors of an authenticator (`@snodo/oauth` is one) also use
 * `@snodo/http/Replies` and `@snodo/http/RequestChecks`; every other module is internal.
 *
 * @since 0.1.0
 */
export * as Authentication from "./Authentication.ts"
export * as McpHttp from "./McpHttp.ts"
export * as NodeEndpoint from "./NodeEndpoint.ts"
export * as NodeServe from "./NodeServe.ts"
export * as Options from "./Options.ts"
export * as Security from "./Security.ts"
export * as SessionStore from "./SessionStore.ts"
export * as Tls from "./Tls.ts"
export * as TrustProxy from "./TrustProxy.ts"
