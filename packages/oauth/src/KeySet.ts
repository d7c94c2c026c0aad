/**
 * The authorization server's signing keys (its JWKS), cached and refreshed without a fetch storm.
 *
 * - The set is fetched on first use (not at start-up, so a resource server starts while its
 *   authorization server is away) and kept for `ttl` (default 10 minutes); after that the next
 *   use fetches it again.
 * - A token signed with a key the set does not have (an unknown `kid`: the server rotated its
 *   keys) triggers one refresh, but at most one fetch per `minRefreshInterval` (default 30 s)
 *   whatever the number of such tokens: a flood of tokens with made-up key ids costs one fetch.
 * - Fetches are single-flight: callers that need a refresh while one is running wait for it and
 *   use its result.
 * - A fetch has `timeout` (default 5 s). When it fails, the keys already held are kept (a stale
 *   set keeps verifying); without any, verification fails with `VerifierUnavailable` (503).
 *
 * Where the set lives is asked of `locate` (the `jwks_uri` of the discovered metadata) each time a
 * fetch is due, so a changed `jwks_uri` is followed.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as KeySet from "@snodo/oauth/KeySet"
 *
 * const keys = KeySet.make({ locate: Effect.succeed("https://auth.example.com/jwks") })
 * // Effect<KeySet, never, HttpClient>; keys.keyFor(protectedHeader): Effect<CryptoKey, InvalidToken | VerifierUnavailable>
 * ```
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect, Semaphore } from "effect"
import type { HttpClient } from "effect/http"
import { createLocalJWKSet, type JSONWebKeySet, type JWSHeaderParameters } from "jose"
import { getJson } from "./AuthorizationServer.ts"
import { InvalidToken, VerifierUnavailable } from "./TokenVerifier.ts"

/**
 * A public key, as WebCrypto holds it.
 *
 * @category models
 * @since 0.1.0
 */
export type VerificationKey = Awaited<ReturnType<ReturnType<typeof createLocalJWKSet>>>

/**
 * How the set is kept.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Where the JWKS is (asked each time a fetch is due). */
  readonly locate: Effect.Effect<string, VerifierUnavailable, HttpClient.HttpClient>
  /** How long a fetched set is used before it is fetched again (default 10 minutes). */
  readonly ttl?: Duration.Input | undefined
  /** The least time between two fetches prompted by unknown keys or failures (default 30 s). */
  readonly minRefreshInterval?: Duration.Input | undefined
  /** How long one fetch may take (default 5 s). */
  readonly timeout?: Duration.Input | undefined
}

/**
 * The keys of one authorization server.
 *
 * @category models
 * @since 0.1.0
 */
export interface KeySet {
  /** The key that verifies a token with this protected header. */
  readonly keyFor: (header: JWSHeaderParameters) => Effect.Effect<VerificationKey, InvalidToken | VerifierUnavailable>
  /** Fetches started so far (for metrics). */
  readonly fetches: () => number
}

interface Held {
  readonly select: ReturnType<typeof createLocalJWKSet>
  readonly fetchedAt: number
  readonly generation: number
}

const millis = (input: Duration.Input | undefined, fallback: number): number =>
  input === undefined ? fallback : Duration.toMillis(Duration.fromInputUnsafe(input))

const joseCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : undefined

/**
 * A key set; nothing is fetched until a key is asked for.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options): Effect.fn.Return<KeySet, never, HttpClient.HttpClient> {
  const context = yield* Effect.context<HttpClient.HttpClient>()
  const ttl = millis(options.ttl, 10 * 60_000)
  const minInterval = millis(options.minRefreshInterval, 30_000)
  const timeout = millis(options.timeout, 5_000)
  const lock = yield* Semaphore.make(1)
  let held: Held | undefined
  let generation = 0
  let lastAttempt = Number.NEGATIVE_INFINITY
  let fetches = 0

  const fetchSet = Effect.gen(function*() {
    fetches++
    const url = yield* options.locate
    const { status, json } = yield* getJson(url, timeout)
    if (status !== 200) return yield* new VerifierUnavailable({ message: `GET ${url}: ${status}` })
    const select = yield* Effect.try({
      try: () => createLocalJWKSet(json as JSONWebKeySet),
      catch: () => new VerifierUnavailable({ message: `GET ${url}: not a JSON Web Key Set` })
    })
    return select
  }).pipe(Effect.provideContext(context))

  /**
   * Fetches the set unless another caller did since `seen` (the generation the caller looked at),
   * or unless the last attempt was less than `minInterval` ago (then the current set, if any).
   * One at a time.
   */
  const refresh = (seen: number, due: "expired" | "unknown-key") =>
    lock.withPermit(Effect.gen(function*() {
      if (held !== undefined && held.generation !== seen) return held
      const now = yield* Clock.currentTimeMillis
      if (held !== undefined && due === "expired" && now - held.fetchedAt < ttl) return held
      if (now - lastAttempt < minInterval) {
        if (held !== undefined) return held
        return yield* new VerifierUnavailable({ message: "The authorization server's keys could not be fetched recently" })
      }
      lastAttempt = now
      const fetched = yield* Effect.result(fetchSet)
      if (fetched._tag === "Failure") {
        if (held !== undefined) {
          yield* Effect.logWarning("OAuth: keeping the previous JWKS", fetched.failure.message)
          return held
        }
        return yield* fetched.failure
      }
      held = { select: fetched.success, fetchedAt: yield* Clock.currentTimeMillis, generation: ++generation }
      return held
    }))

  const select = (current: Held, header: JWSHeaderParameters) =>
    Effect.tryPromise({ try: () => current.select(header), catch: (error) => error })

  const keyFor = (header: JWSHeaderParameters): Effect.Effect<VerificationKey, InvalidToken | VerifierUnavailable> =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      let current = held
      if (current === undefined || now - current.fetchedAt >= ttl) current = yield* refresh(current?.generation ?? 0, "expired")
      const first = yield* Effect.result(select(current, header))
      if (first._tag === "Success") return first.success
      if (joseCode(first.failure) !== "ERR_JWKS_NO_MATCHING_KEY") return yield* refusal(first.failure)
      // An unknown key: the server may have rotated. One refresh (rate-limited), then one more try.
      const refreshed = yield* refresh(current.generation, "unknown-key")
      if (refreshed === current) return yield* new InvalidToken({ reason: "unknown_key", message: "No key of the authorization server matches the token" })
      return yield* Effect.mapError(select(refreshed, header), refusal)
    })

  return { keyFor, fetches: () => fetches }
})

const refusal = (error: unknown): InvalidToken =>
  joseCode(error) === "ERR_JWKS_NO_MATCHING_KEY"
    ? new InvalidToken({ reason: "unknown_key", message: "No key of the authorization server matches the token" })
    : joseCode(error) === "ERR_JWKS_MULTIPLE_MATCHING_KEYS"
    ? new InvalidToken({ reason: "unknown_key", message: "Several keys match the token" })
    : new InvalidToken({ reason: "algorithm", message: "The token's algorithm does not fit the authorization server's keys" })
