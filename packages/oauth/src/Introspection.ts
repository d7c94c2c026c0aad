/**
 * A {@link TokenVerifier} for opaque access tokens: OAuth 2.0 Token Introspection (RFC 7662).
 *
 * Each token is POSTed (`token=…&token_type_hint=access_token`) to the authorization server's
 * introspection endpoint (its metadata's `introspection_endpoint`, unless `endpoint` is given),
 * authenticated as the resource server's own client (`client_secret_basic`). A token is accepted
 * when the answer says `active: true`, its `iss` (if present) is exactly the issuer, its `exp` (if
 * present) is not past and its `nbf` has come (with `leeway`), its `aud` names the resource
 * server's canonical URI (RFC 8707; an answer without `aud` is refused, so configure the server
 * to include it), and it names a subject.
 *
 * Active answers are cached for `cacheTtl` (default 30 s, never past the token's `exp`; `0`
 * disables it), at most `maxCached` tokens (default 1,024, least recently used first out), keyed
 * by the token's SHA-256: a revoked token may be accepted for up to `cacheTtl`.
 *
 * @example
 * ```ts
 * import { Layer, Redacted } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import * as Introspection from "@snodo/oauth/Introspection"
 *
 * const Verifier = Introspection.layer({
 *   issuer: "https://auth.example.com",
 *   clientId: "mcp-server",
 *   clientSecret: Redacted.make(process.env["INTROSPECTION_SECRET"] ?? "")
 * }).pipe(Layer.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect, Layer, Redacted, Schema } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { createHash } from "node:crypto"
import * as AuthorizationServer from "./AuthorizationServer.ts"
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
 * How tokens are introspected.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The authorization server's issuer identifier. */
  readonly issuer: string
  /** The introspection endpoint, to skip metadata discovery. */
  readonly endpoint?: string | undefined
  /** The resource server's client id at the authorization server. */
  readonly clientId: string
  /** Its secret. */
  readonly clientSecret: Redacted.Redacted<string>
  /** Clock skew tolerated on `exp` and `nbf` (default 30 s). */
  readonly leeway?: Duration.Input | undefined
  /** How long an active answer is reused (default 30 s; 0 for never). */
  readonly cacheTtl?: Duration.Input | undefined
  /** How many answers are kept at most (default 1,024). */
  readonly maxCached?: number | undefined
  /** How long one request may take (default 5 s). */
  readonly timeout?: Duration.Input | undefined
}

/** The members of an introspection answer (RFC 7662 §2.2) that are checked. */
const Answer = Schema.Struct({
  active: Schema.Boolean,
  iss: Schema.optional(Schema.String),
  exp: Schema.optional(Schema.Number),
  nbf: Schema.optional(Schema.Number)
})

const decodeAnswer = Schema.decodeUnknownOption(Answer)

const millis = (input: Duration.Input | undefined, fallback: number): number =>
  input === undefined ? fallback : Duration.toMillis(Duration.fromInputUnsafe(input))

const digest = (token: string): string => createHash("sha256").update(token).digest("base64url")

interface Cached {
  readonly token: AccessToken
  readonly audience: string
  readonly until: number
}

/**
 * Builds the verifier; the endpoint is discovered on first use.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options): Effect.fn.Return<TokenVerifier["Service"], never, HttpClient.HttpClient> {
  const client = yield* HttpClient.HttpClient
  const context = yield* Effect.context<HttpClient.HttpClient>()
  const issuer = options.issuer
  const timeout = options.timeout ?? "5 seconds"
  const leeway = millis(options.leeway, 30_000)
  const cacheTtl = millis(options.cacheTtl, 30_000)
  const maxCached = options.maxCached ?? 1024
  const cache = new Map<string, Cached>()

  const discovered = yield* Effect.cachedInvalidateWithTTL(
    options.endpoint !== undefined
      ? Effect.succeed(options.endpoint)
      : Effect.flatMap(AuthorizationServer.discover(issuer, { timeout }), (metadata) =>
        metadata.introspection_endpoint === undefined
          ? Effect.fail(new VerifierUnavailable({ message: `The metadata of ${issuer} names no introspection_endpoint` }))
          : Effect.succeed(metadata.introspection_endpoint)).pipe(Effect.provideContext(context)),
    "10 minutes"
  )
  const [endpoint, forget] = discovered

  const introspect = (token: string) =>
    Effect.gen(function*() {
      const url = yield* Effect.tapError(endpoint, () => forget)
      const request = HttpClientRequest.post(url).pipe(
        HttpClientRequest.basicAuth(options.clientId, Redacted.value(options.clientSecret)),
        HttpClientRequest.acceptJson,
        HttpClientRequest.bodyUrlParams({ token, token_type_hint: "access_token" })
      )
      const response = yield* client.execute(request)
      if (response.status !== 200) {
        yield* Effect.ignore(response.text)
        return yield* new VerifierUnavailable({ message: `POST ${url}: ${response.status}` })
      }
      return yield* response.json
    }).pipe(
      Effect.timeout(timeout),
      Effect.catchTags({
        TimeoutError: () => Effect.fail(new VerifierUnavailable({ message: "Token introspection timed out" })),
        HttpClientError: () => Effect.fail(new VerifierUnavailable({ message: "Token introspection failed" }))
      })
    )

  const check = (json: unknown, audience: string, now: number): Effect.Effect<AccessToken, InvalidToken | VerifierUnavailable> => {
    const answer = decodeAnswer(json)
    if (answer._tag === "None") return Effect.fail(new VerifierUnavailable({ message: "Not an introspection answer" }))
    const claims = json as Readonly<Record<string, unknown>>
    const { active, exp, iss, nbf } = answer.value
    if (!active) return Effect.fail(new InvalidToken({ reason: "inactive", message: "The access token is not active" }))
    if (iss !== undefined && iss !== issuer) return Effect.fail(new InvalidToken({ reason: "issuer", message: "The access token is from another issuer" }))
    if (exp !== undefined && exp * 1000 + leeway <= now) return Effect.fail(new InvalidToken({ reason: "expired", message: "The access token expired" }))
    if (nbf !== undefined && nbf * 1000 - leeway > now) return Effect.fail(new InvalidToken({ reason: "not_yet_valid", message: "The access token is not valid yet" }))
    if (!audienceIncludes(claims["aud"], audience)) return Effect.fail(new InvalidToken({ reason: "audience", message: "The access token is not for this resource" }))
    const subject = subjectOf(claims)
    if (subject === undefined) return Effect.fail(new InvalidToken({ reason: "claims", message: "The access token names no subject" }))
    return Effect.succeed({
      subject,
      clientId: clientOf(claims),
      scopes: scopesOf(claims),
      issuer,
      expiresAt: exp === undefined ? undefined : exp * 1000 + leeway,
      claims
    })
  }

  const remember = (key: string, entry: Cached) => {
    if (cacheTtl <= 0) return
    cache.delete(key)
    cache.set(key, entry)
    if (cache.size > maxCached) {
      const oldest = cache.keys().next()
      if (oldest.done !== true) cache.delete(oldest.value)
    }
  }

  const verify = (token: string, audience: string): Effect.Effect<AccessToken, InvalidToken | VerifierUnavailable> =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const key = cacheTtl > 0 ? digest(token) : ""
      const hit = cacheTtl > 0 ? cache.get(key) : undefined
      if (hit !== undefined && hit.until > now && hit.audience === audience) {
        cache.delete(key)
        cache.set(key, hit)
        return hit.token
      }
      if (hit !== undefined) cache.delete(key)
      const verified = yield* check(yield* introspect(token), audience, now)
      const until = Math.min(now + cacheTtl, verified.expiresAt ?? Number.POSITIVE_INFINITY)
      remember(key, { token: verified, audience, until })
      return verified
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
