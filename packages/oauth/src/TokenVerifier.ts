/**
 * The service that decides whether an access token is valid for this resource server.
 *
 * Two implementations come with `@snodo/oauth`, each a Layer: `JwtVerifier` (JWT access tokens,
 * checked against the authorization server's JWKS) and `Introspection` (opaque tokens, asked of
 * the authorization server, RFC 7662). An application may provide its own. Whatever the
 * implementation, `verify(token, audience)` succeeds only for a token issued by the verifier's
 * authorization server, unexpired, and issued **for `audience`** (the resource server's canonical
 * URI, RFC 8707): a token minted for another resource is invalid here, which is what forbids token
 * passthrough.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { TokenVerifier } from "@snodo/oauth/TokenVerifier"
 *
 * const whoIsIt = (token: string) =>
 *   Effect.gen(function*() {
 *     const verifier = yield* TokenVerifier
 *     const verified = yield* verifier.verify(token, "https://mcp.example.com/mcp")
 *     return verified.subject
 *   })
 * ```
 *
 * @since 0.1.0
 */
import { Context, type Effect, Schema } from "effect"
import { canonicalOrUndefined } from "./ResourceMetadata.ts"

/**
 * A verified access token.
 *
 * @category models
 * @since 0.1.0
 */
export interface AccessToken {
  /**
   * Who the token speaks for: its `sub`, or for a client acting on its own behalf its `client_id`.
   * Not an identity on its own: the principal id adds the kind and the issuer
   * (`ResourceServer.principalId`).
   */
  readonly subject: string
  /** The client it was issued to (`client_id`, or `azp`), when the token says. */
  readonly clientId: string | undefined
  /** The granted scopes (`scope`, space-separated, or `scp`). */
  readonly scopes: ReadonlyArray<string>
  /** The issuer (`iss`). */
  readonly issuer: string
  /** When it expires (epoch milliseconds), when it says. */
  readonly expiresAt: number | undefined
  /** Every claim, as verified. */
  readonly claims: Readonly<Record<string, unknown>>
}

/**
 * The token is not valid here: answered 401 `invalid_token`.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidToken extends Schema.TaggedError<InvalidToken>()("InvalidToken", {
  reason: Schema.Literals(["malformed", "signature", "algorithm", "unknown_key", "issuer", "audience", "expired", "not_yet_valid", "inactive", "claims"]),
  message: Schema.String
}) {}

/**
 * Why a token was refused.
 *
 * @category models
 * @since 0.1.0
 */
export type Reason = InvalidToken["reason"]

/**
 * The authorization server (its metadata, keys or introspection endpoint) could not be reached or
 * gave an unusable answer: answered 503, since the token may well be valid.
 *
 * @category errors
 * @since 0.1.0
 */
export class VerifierUnavailable extends Schema.TaggedError<VerifierUnavailable>()("VerifierUnavailable", {
  message: Schema.String
}) {}

/**
 * @category services
 * @since 0.1.0
 */
export class TokenVerifier extends Context.Service<TokenVerifier, {
  /** The issuer identifier of the authorization server whose tokens this verifier accepts. */
  readonly issuer: string
  /** Verifies `token` for `audience` (a canonical resource URI). */
  readonly verify: (token: string, audience: string) => Effect.Effect<AccessToken, InvalidToken | VerifierUnavailable>
}>()("@snodo/oauth/TokenVerifier") {}

/**
 * The scopes of a `scope` claim (space-separated, RFC 9068 / RFC 7662) or an `scp` claim (a list
 * or a string, as Entra ID and Okta send it).
 *
 * @category combinators
 * @since 0.1.0
 */
export const scopesOf = (claims: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const claim = claims["scope"] ?? claims["scp"]
  if (typeof claim === "string") return claim.split(" ").filter((scope) => scope !== "")
  if (Array.isArray(claim)) return claim.filter((scope): scope is string => typeof scope === "string" && scope !== "")
  return []
}

/**
 * The subject of verified claims: `sub`, else the client (`client_id`, `azp`).
 *
 * @category combinators
 * @since 0.1.0
 */
export const subjectOf = (claims: Readonly<Record<string, unknown>>): string | undefined => {
  for (const name of ["sub", "client_id", "azp"]) {
    const value = claims[name]
    if (typeof value === "string" && value !== "") return value
  }
  return undefined
}

/**
 * The client of verified claims: `client_id`, else `azp`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const clientOf = (claims: Readonly<Record<string, unknown>>): string | undefined => {
  const value = claims["client_id"] ?? claims["azp"]
  return typeof value === "string" && value !== "" ? value : undefined
}

/**
 * Whether an `aud` claim (a string or a list) names `audience`, comparing canonical forms, so
 * `HTTPS://MCP.example.com/mcp/` names `https://mcp.example.com/mcp`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const audienceIncludes = (aud: unknown, audience: string): boolean => {
  const expected = canonicalOrUndefined(audience) ?? audience
  const names: ReadonlyArray<unknown> = typeof aud === "string" ? [aud] : Array.isArray(aud) ? aud : []
  return names.some((name) => typeof name === "string" && (name === audience || canonicalOrUndefined(name) === expected))
}
