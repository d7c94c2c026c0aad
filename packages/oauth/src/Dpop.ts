/**
 * DPoP proofs at the resource server (RFC 9449 §4.3, §7, §9; the MCP DPoP extension, SEP-1932).
 * A DPoP-bound access token (its `cnf.jkt` names a key) is only accepted with
 * `Authorization: DPoP <token>` and a fresh proof in the `DPoP` header, signed by that key, made
 * for this request. `make` builds the checker `ResourceServer` runs when its `dpop` option is set:
 *
 * - exactly one `DPoP` header, a JWT with `typ: dpop+jwt`, an asymmetric `alg` of `algorithms`,
 *   a public `jwk` (no private members), and a signature that verifies with it;
 * - `htm` the request's method, `htu` the request's URI (the resource's origin and the request's
 *   path; query and fragment ignored), `iat` within `iatWindowSeconds` of now;
 * - `jti` not seen before within the window (a replayed proof is refused): remembered by the
 *   {@link DpopReplay} service when one is provided (one memory for every instance, e.g.
 *   `@snodo/postgres/PgDpopReplay`), else in the process, bounded by `replayCapacity`, the oldest
 *   forgotten first;
 * - `ath` the hash of the presented token, and the token's `cnf.jkt` the JWK SHA-256 thumbprint
 *   of the proof's key;
 * - with `nonce: true`, a `nonce` the server issued: a proof without one, or with a stale one, is
 *   answered 401 `WWW-Authenticate: DPoP error="use_dpop_nonce"` with a fresh `DPoP-Nonce`
 *   header. Nonces are stateless (an HMAC of the time step), valid for the current and the
 *   previous `nonceLifetimeSeconds`; their key is `nonceSecret` when given (every instance that
 *   shares it accepts the others' nonces), else made at start (one per process).
 *
 * A refusal is 401 with `WWW-Authenticate: DPoP error="invalid_dpop_proof"` (and `algs`); a
 * DPoP-bound token presented as `Bearer` is 401 `invalid_token`. With `required`, a Bearer token
 * without `cnf` is refused too, and the challenge to a request without a token names `DPoP`.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import * as JwtVerifier from "@snodo/oauth/JwtVerifier"
 * import * as ResourceServer from "@snodo/oauth/ResourceServer"
 *
 * const OAuth = ResourceServer.layer({
 *   resource: "https://mcp.example.com/mcp",
 *   scopesSupported: ["mcp"],
 *   dpop: { required: true, nonce: true }
 * }).pipe(Layer.provide(JwtVerifier.layer({ issuer: "https://auth.example.com" })), Layer.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option, Redacted } from "effect"
import { base64url, calculateJwkThumbprint, type CryptoKey, decodeProtectedHeader, importJWK, type JWK, jwtVerify } from "jose"
import { DpopReplay, makeMemory } from "./DpopReplay.ts"

/**
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Refuse tokens that are not DPoP-bound (default false: Bearer tokens stay accepted). */
  readonly required?: boolean | undefined
  /** Require server-issued nonces in proofs (default false). */
  readonly nonce?: boolean | undefined
  /** How long a nonce is current (default 300 s); the previous one is accepted as long again. */
  readonly nonceLifetimeSeconds?: number | undefined
  /**
   * The key nonces are made with, at least 32 characters: instances that share it accept each
   * other's nonces (behind a load balancer without sticky routing). Default: a random key per
   * process, so a nonce is good only on the instance that issued it.
   */
  readonly nonceSecret?: Redacted.Redacted<string> | undefined
  /** Accepted proof algorithms (default ES256, ES384, ES512, PS256, PS384, PS512, RS256, RS384, RS512, EdDSA). */
  readonly algorithms?: ReadonlyArray<string> | undefined
  /** How far a proof's `iat` may be from now (default 60 s). */
  readonly iatWindowSeconds?: number | undefined
  /** How many proof `jti`s the in-process memory keeps against replay (default 100,000; unused with a {@link DpopReplay} service). */
  readonly replayCapacity?: number | undefined
}

/**
 * Why a proof was refused: `use_dpop_nonce` (a nonce is needed) or `invalid_dpop_proof`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Refusal {
  readonly error: "invalid_dpop_proof" | "use_dpop_nonce"
  readonly description: string
}

/**
 * The request a proof must be for.
 *
 * @category models
 * @since 0.1.0
 */
export interface ProofRequest {
  readonly method: string
  /** The absolute URI the request was sent to. */
  readonly url: string
  readonly accessToken: string
  /** The thumbprint the token is bound to (`cnf.jkt`). */
  readonly jkt: string
}

/**
 * The checker.
 *
 * @category models
 * @since 0.1.0
 */
export interface Checker {
  readonly required: boolean
  readonly algorithms: ReadonlyArray<string>
  /** Checks the `DPoP` header value(s) of a request presenting a bound token. */
  readonly verify: (header: string | ReadonlyArray<string> | undefined, request: ProofRequest) => Effect.Effect<void, Refusal>
  /** The nonce to hand out now (`DPoP-Nonce`), when nonces are required. */
  readonly currentNonce: Effect.Effect<string | undefined>
}

/**
 * The default proof algorithms: asymmetric only (RFC 9449 §4.2 forbids `none` and MACs).
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultAlgorithms: ReadonlyArray<string> = ["ES256", "ES384", "ES512", "PS256", "PS384", "PS512", "RS256", "RS384", "RS512", "EdDSA"]

/** JWK members that only a private key has. */
const privateMembers = ["d", "p", "q", "dp", "dq", "qi", "k", "oth"]

/** `origin` + `pathname` of an absolute URI; `undefined` for anything else. */
const withoutQuery = (url: string): string | undefined => {
  if (!URL.canParse(url)) return undefined
  const parsed = new URL(url)
  return `${parsed.origin}${parsed.pathname}`
}

const sha256 = (text: string) =>
  Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).pipe(
    Effect.map((digest) => base64url.encode(new Uint8Array(digest)))
  )

/**
 * The shortest `nonceSecret` accepted, in characters.
 *
 * @category constants
 * @since 0.1.0
 */
export const minNonceSecretLength = 32

/** The HMAC key nonces are made with: from the shared secret, or random for this process. */
const nonceKeyOf = (secret: Redacted.Redacted<string> | undefined): Effect.Effect<CryptoKey> => {
  if (secret === undefined) {
    return Effect.promise(() => crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]) as Promise<CryptoKey>)
  }
  const text = Redacted.value(secret)
  if (text.length < minNonceSecretLength) {
    throw new TypeError(`dpop.nonceSecret: at least ${minNonceSecretLength} characters are needed, got ${text.length}`)
  }
  return Effect.promise(() =>
    crypto.subtle.importKey("raw", new TextEncoder().encode(text), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]) as Promise<CryptoKey>
  )
}

/**
 * Builds a checker; its nonce key (unless `nonceSecret` gives it) and its in-process replay
 * memory (unless a {@link DpopReplay} service is provided) live as long as it does.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options = {}): Effect.Effect<Checker> =>
  Effect.gen(function*() {
    const algorithms = options.algorithms ?? defaultAlgorithms
    const window = (options.iatWindowSeconds ?? 60) * 1000
    const lifetime = (options.nonceLifetimeSeconds ?? 300) * 1000
    const nonceKey = options.nonce === true ? yield* nonceKeyOf(options.nonceSecret) : undefined
    const replay = Option.getOrElse(yield* Effect.serviceOption(DpopReplay), () => makeMemory(options.replayCapacity))

    const nonceAt = (step: number) =>
      Effect.promise(() => crypto.subtle.sign("HMAC", nonceKey!, new TextEncoder().encode(String(step)))).pipe(
        Effect.map((mac) => base64url.encode(new Uint8Array(mac)))
      )
    const currentNonce = nonceKey === undefined
      ? Effect.succeed(undefined)
      : Effect.flatMap(Clock.currentTimeMillis, (now) => nonceAt(Math.floor(now / lifetime)))

    const refuse = (description: string): Effect.Effect<never, Refusal> => Effect.fail({ error: "invalid_dpop_proof", description })

    const verify = (header: string | ReadonlyArray<string> | undefined, request: ProofRequest): Effect.Effect<void, Refusal> =>
      Effect.gen(function*() {
        if (header === undefined) return yield* refuse("A DPoP-bound token needs a DPoP proof")
        if (typeof header !== "string" || header.includes(",")) return yield* refuse("Exactly one DPoP proof is allowed")
        const protectedHeader = yield* Effect.try({ try: () => decodeProtectedHeader(header), catch: () => undefined }).pipe(
          Effect.orElseSucceed(() => undefined)
        )
        if (protectedHeader === undefined) return yield* refuse("The DPoP proof is not a JWT")
        if (protectedHeader.typ !== "dpop+jwt") return yield* refuse("The DPoP proof's typ is not dpop+jwt")
        const alg = protectedHeader.alg
        if (alg === undefined || !algorithms.includes(alg)) return yield* refuse("The DPoP proof's alg is not accepted")
        const jwk = protectedHeader.jwk as JWK | undefined
        if (jwk === undefined || typeof jwk !== "object") return yield* refuse("The DPoP proof has no jwk")
        if (privateMembers.some((member) => member in jwk)) return yield* refuse("The DPoP proof's jwk holds a private key")
        const payload = yield* Effect.tryPromise({
          try: async () => (await jwtVerify(header, await importJWK(jwk, alg), { algorithms: [alg], typ: "dpop+jwt" })).payload,
          catch: () => undefined
        }).pipe(Effect.orElseSucceed(() => undefined))
        if (payload === undefined) return yield* refuse("The DPoP proof's signature does not verify")
        const { ath, htm, htu, iat, jti, nonce } = payload as Record<string, unknown>
        if (typeof jti !== "string" || jti === "" || jti.length > 256) return yield* refuse("The DPoP proof has no jti")
        if (htm !== request.method.toUpperCase()) return yield* refuse("The DPoP proof's htm is not this request's method")
        if (typeof htu !== "string" || withoutQuery(htu) === undefined || withoutQuery(htu) !== withoutQuery(request.url)) {
          return yield* refuse("The DPoP proof's htu is not this request's URI")
        }
        const now = yield* Clock.currentTimeMillis
        if (typeof iat !== "number" || Math.abs(now - iat * 1000) > window) {
          return yield* refuse("The DPoP proof's iat is outside the accepted window")
        }
        if (ath !== (yield* sha256(request.accessToken))) return yield* refuse("The DPoP proof's ath is not the presented token's hash")
        const thumbprint = yield* Effect.promise(() => calculateJwkThumbprint(jwk, "sha256"))
        if (thumbprint !== request.jkt) return yield* refuse("The DPoP proof's key is not the key the token is bound to")
        if (nonceKey !== undefined) {
          const step = Math.floor(now / lifetime)
          if (typeof nonce !== "string" || (nonce !== (yield* nonceAt(step)) && nonce !== (yield* nonceAt(step - 1)))) {
            return yield* Effect.fail<Refusal>({ error: "use_dpop_nonce", description: "The resource server requires a fresh DPoP nonce" })
          }
        }
        // Replay: remembered for twice the window (a proof is acceptable from iat - window to iat + window).
        const fresh = yield* replay.claim(`${thumbprint}.${jti}`, now, now + 2 * window).pipe(
          Effect.catchTag("ReplayUnavailable", (error) =>
            Effect.as(Effect.logWarning("a DPoP proof was refused: its replay memory did not answer", error), undefined))
        )
        if (fresh === undefined) return yield* refuse("The DPoP proof could not be checked against replay; retry with a fresh proof")
        if (!fresh) return yield* refuse("The DPoP proof was used before (jti replay)")
      })

    return { required: options.required === true, algorithms, verify, currentNonce }
  })

/**
 * The `cnf.jkt` of a token's claims, if it is DPoP-bound.
 *
 * @category combinators
 * @since 0.1.0
 */
export const boundThumbprint = (claims: Readonly<Record<string, unknown>>): string | undefined => {
  const cnf = claims["cnf"]
  if (typeof cnf !== "object" || cnf === null || !("jkt" in cnf)) return undefined
  return typeof cnf.jkt === "string" ? cnf.jkt : undefined
}
