/**
 * Where the OAuth client keeps what it obtained: tokens per MCP server (resource) and client
 * registrations per authorization server (issuer). The application provides the store: the
 * in-memory Layer here for a process that re-authorizes when it restarts, or its own Layer over a
 * keychain, an encrypted file or a database for one that must not.
 *
 * Registrations are keyed by the issuer that issued them (MCP 2026-07-28, "Authorization Server
 * Binding"): when a server's metadata moves to another authorization server, the client finds no
 * registration for the new issuer and registers again instead of presenting the old credentials.
 * Tokens remember their issuer and resource too: a refresh token goes back only to the server that
 * issued it, for the resource it was issued for.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import * as TokenStore from "@snodo/client/oauth/TokenStore"
 *
 * // a process-lifetime store
 * const Store: Layer.Layer<TokenStore.TokenStore> = TokenStore.layerMemory
 *
 * // or the application's own
 * declare const vault: { read: (key: string) => Promise<string | undefined>; write: (key: string, value: string) => Promise<void> }
 * const Vault = Layer.succeed(TokenStore.TokenStore, TokenStore.TokenStore.of({
 *   getTokens: (resource) => Effect.promise(() => vault.read(`tokens:${resource}`)).pipe(Effect.map((s) => s === undefined ? undefined : JSON.parse(s))),
 *   setTokens: (resource, tokens) => Effect.promise(() => vault.write(`tokens:${resource}`, JSON.stringify(tokens))),
 *   removeTokens: (resource) => Effect.promise(() => vault.write(`tokens:${resource}`, "")),
 *   getClient: (issuer) => Effect.promise(() => vault.read(`client:${issuer}`)).pipe(Effect.map((s) => s === undefined ? undefined : JSON.parse(s))),
 *   setClient: (issuer, client) => Effect.promise(() => vault.write(`client:${issuer}`, JSON.stringify(client)))
 * }))
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { SigningKey } from "./ClientAssertion.ts"

/**
 * Tokens for one resource.
 *
 * @category models
 * @since 0.1.0
 */
export interface Tokens {
  readonly accessToken: string
  readonly refreshToken?: string | undefined
  /** Epoch milliseconds after which the access token is expired, when the server said. */
  readonly expiresAt?: number | undefined
  /** The scopes requested for (or granted to) this token. */
  readonly scope: ReadonlyArray<string>
  /** The issuer of the authorization server that issued the token. */
  readonly issuer: string
  /** The RFC 8707 resource the token was issued for (from the server's metadata). */
  readonly resource: string
  /** `DPoP` for a token bound to the client's DPoP key (RFC 9449), else `Bearer` (the default). */
  readonly tokenType?: "Bearer" | "DPoP" | undefined
}

/**
 * A client registration at one authorization server.
 *
 * @category models
 * @since 0.1.0
 */
export interface ClientRegistration {
  readonly clientId: string
  readonly clientSecret?: string | undefined
  /** `client_secret_basic`, `client_secret_post`, `private_key_jwt` or `none`. */
  readonly authMethod: string
  /** The key of `private_key_jwt` (pre-registered clients only; never stored). */
  readonly signingKey?: SigningKey | undefined
}

/**
 * @category services
 * @since 0.1.0
 */
export class TokenStore extends Context.Service<TokenStore, {
  readonly getTokens: (resource: string) => Effect.Effect<Tokens | undefined>
  readonly setTokens: (resource: string, tokens: Tokens) => Effect.Effect<void>
  readonly removeTokens: (resource: string) => Effect.Effect<void>
  readonly getClient: (issuer: string) => Effect.Effect<ClientRegistration | undefined>
  readonly setClient: (issuer: string, client: ClientRegistration) => Effect.Effect<void>
}>()("@snodo/client/oauth/TokenStore") {}

/**
 * A store in two maps; each Layer build has its own.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeMemory = (): TokenStore["Service"] => {
  const tokens = new Map<string, Tokens>()
  const clients = new Map<string, ClientRegistration>()
  return TokenStore.of({
    getTokens: (resource) => Effect.sync(() => tokens.get(resource)),
    setTokens: (resource, value) => Effect.sync(() => void tokens.set(resource, value)),
    removeTokens: (resource) => Effect.sync(() => void tokens.delete(resource)),
    getClient: (issuer) => Effect.sync(() => clients.get(issuer)),
    setClient: (issuer, value) => Effect.sync(() => void clients.set(issuer, value))
  })
}

/**
 * The in-memory store.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMemory: Layer.Layer<TokenStore> = Layer.sync(TokenStore, makeMemory)
