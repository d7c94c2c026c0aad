/**
 * The OAuth 2.1 client of the MCP authorization spec.
 *
 * @since 0.1.0
 */
export * as AuthorizationPrompt from "./AuthorizationPrompt.ts"
export * as ClientAssertion from "./ClientAssertion.ts"
export * as Discovery from "./Discovery.ts"
export * as Dpop from "./Dpop.ts"
export * as Metadata from "./Metadata.ts"
export * as OAuthClient from "./OAuthClient.ts"
export * as OAuthError from "./OAuthError.ts"
export * as Pkce from "./Pkce.ts"
export * as Registration from "./Registration.ts"
export * as TokenEndpoint from "./TokenEndpoint.ts"
export * as TokenExchange from "./TokenExchange.ts"
export * as TokenStore from "./TokenStore.ts"
export * as WwwAuthenticate from "./WwwAuthenticate.ts"
