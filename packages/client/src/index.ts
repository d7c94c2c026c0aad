/**
 * `@snodo/client`: the Effect MCP client. (This branch holds its OAuth 2.1 client; the transports
 * and the client itself are merged from the sibling branch.)
 *
 * @since 0.1.0
 */
export * as AuthorizationPrompt from "./oauth/AuthorizationPrompt.ts"
export * as OAuthClient from "./oauth/OAuthClient.ts"
export * as OAuthError from "./oauth/OAuthError.ts"
export * as TokenStore from "./oauth/TokenStore.ts"
