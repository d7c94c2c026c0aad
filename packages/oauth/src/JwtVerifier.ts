/**
 * A {@link TokenVerifier} for JWT access tokens (RFC 9068), with `jose`.
 *
 * A token is accepted when, in this order: it is a compact JWS whose algorithm is an asymmetric
 * one this verifier allows (never `none`, never a shared-secret `HS*`); its signature verifies
 * with a key of the authorization server's JWKS (found through the server's metadata, RFC 8414 or
 * OpenID Connect Discovery, unless `jwksUri` is given; cached and refreshed as {@link KeySet}
 * says); its `iss` is exactly the issuer; it has an `exp`, not past, and its `nbf`, if any, has
 * come (both with `leeway`, default 30 s); its `aud` names the resource server's canonical URI
 * (RFC 8707); and it names a subject (`sub`, or `client_id` for a client acting on its own
 * behalf).
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import * as JwtVerifier from "@snodo/oauth/JwtVerifier"
 *
 * const Verifier = JwtVerifier.layer({ issuer: "https://auth.example.com" }).pipe(Layer.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect, Layer } from "effect"
import type { HttpClient } from "effect/http"
import { decodeProtectedHeader, type JWSHeaderParameters, jwtVerify } from "jose"
import * as AuthorizationServer from "./AuthorizationServer.ts"
import * as KeySet from "./KeySet.ts"
import {
  type AccessToken,
  audienceIncludes,
  clientOf,
  InvalidToken,
  scopesOf,
  subjectOf,
  TokenVerifier,
  VerifierUnavailable
} from "./TokenVerifier.ts"

/**
 * The asymmetric JWS algorithms accepted by default.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultAlgorithms: ReadonlyArray<string> = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519"
]

/**
 * How tokens are verified.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The authorization server's issuer identifier, exactly as its metadata and its tokens say it. */
  readonly issuer: string
  /** The JWKS URL, to skip metadata discovery. */
  readonly jwksUri?: string | undefined
  /** Accepted algorithms (default {@link defaultAlgorithms}); symmetric ones are refused regardless. */
  readonly algorithms?: ReadonlyArray<string> | undefined
  /** Clock skew tolerated on `exp` and `nbf` (default 30 s). */
  readonly leeway?: Duration.Input | undefined
  /** A required `typ` header (RFC 9068 says `at+jwt`; many servers send `JWT`, so none by default). */
  readonly type?: string | undefined
  /** How long the JWKS is kept (default 10 minutes). */
  readonly keysTtl?: Duration.Input | undefined
  /** The least time between two JWKS fetches prompted by unknown keys (default 30 s). */
  readonly minRefreshInterval?: Duration.Input | undefined
  /** How long one fetch of metadata or keys may take (default 5 s). */
  readonly timeout?: Duration.Input | undefined
}

const joseCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : undefined

const joseClaim = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "claim" in error && typeof error.claim === "string" ? error.claim : undefined

/** The refusal of a token jose did not verify. */
const refusal = (error: unknown): InvalidToken => {
  switch (joseCode(error)) {
    case "ERR_JWT_EXPIRED":
      return new InvalidToken({ reason: "expired", message: "The access token expired" })
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return new InvalidToken({ reason: "signature", message: "The access token's signature does not verify" })
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return new InvalidToken({ reason: "algorithm", message: "The access token's algorithm is not accepted" })
    case "ERR_JWT_CLAIM_VALIDATION_FAILED": {
      const claim = joseClaim(error)
      if (claim === "iss") return new InvalidToken({ reason: "issuer", message: "The access token is from another issuer" })
      if (claim === "nbf") return new InvalidToken({ reason: "not_yet_valid", message: "The access token is not valid yet" })
      return new InvalidToken({ reason: "claims", message: `The access token's ${claim ?? "claims"} claim is not valid` })
    }
    default:
      return new InvalidToken({ reason: "malformed", message: "The access token is not a valid JWT" })
  }
}

const symmetric = (algorithm: string): boolean => algorithm.startsWith("HS") || algorithm === "none" || algorithm === "dir"

/**
 * Builds the verifier; nothing is fetched until a token is verified.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options): Effect.fn.Return<TokenVerifier["Service"], never, HttpClient.HttpClient> {
  const issuer = options.issuer
  const timeout = options.timeout ?? "5 seconds"
  const algorithms = (options.algorithms ?? defaultAlgorithms).filter((algorithm) => !symmetric(algorithm))
  const leewaySeconds = Math.ceil(Duration.toMillis(Duration.fromInputUnsafe(options.leeway ?? "30 seconds")) / 1000)
  const jwksUri = options.jwksUri
  const locate = jwksUri !== undefined
    ? Effect.succeed(jwksUri)
    : Effect.flatMap(AuthorizationServer.discover(issuer, { timeout }), (metadata) =>
      metadata.jwks_uri === undefined
        ? Effect.fail(new VerifierUnavailable({ message: `The metadata of ${issuer} names no jwks_uri` }))
        : Effect.succeed(metadata.jwks_uri))
  const keys = yield* KeySet.make({ locate, ttl: options.keysTtl, minRefreshInterval: options.minRefreshInterval, timeout })

  const verify = (token: string, audience: string): Effect.Effect<AccessToken, InvalidToken | VerifierUnavailable> =>
    Effect.gen(function*() {
      const header = yield* Effect.try({
        try: (): JWSHeaderParameters => decodeProtectedHeader(token),
        catch: () => new InvalidToken({ reason: "malformed", message: "The access token is not a valid JWT" })
      })
      if (typeof header.alg !== "string" || !algorithms.includes(header.alg)) {
        return yield* new InvalidToken({ reason: "algorithm", message: "The access token's algorithm is not accepted" })
      }
      const key = yield* keys.keyFor(header)
      const now = yield* Clock.currentTimeMillis
      const { payload } = yield* Effect.tryPromise({
        try: () =>
          jwtVerify(token, key, {
            issuer,
            algorithms: [...algorithms],
            clockTolerance: leewaySeconds,
            currentDate: new Date(now),
            requiredClaims: ["exp"],
            ...(options.type !== undefined ? { typ: options.type } : {})
          }),
        catch: refusal
      })
      if (!audienceIncludes(payload.aud, audience)) {
        return yield* new InvalidToken({ reason: "audience", message: "The access token is not for this resource" })
      }
      const subject = subjectOf(payload)
      if (subject === undefined) return yield* new InvalidToken({ reason: "claims", message: "The access token names no subject" })
      return {
        subject,
        clientId: clientOf(payload),
        scopes: scopesOf(payload),
        issuer,
        expiresAt: typeof payload.exp === "number" ? (payload.exp + leewaySeconds) * 1000 : undefined,
        claims: payload
      }
    })

  return TokenVerifier.of({ issuer, verify })
})

/**
 * The verifier as a Layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<TokenVerifier, never, HttpClient.HttpClient> =>
  Layer.effect(TokenVerifier, make(options))
