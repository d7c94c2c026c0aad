/**
 * PKCE (RFC 7636) with the `S256` method, the one the MCP authorization spec requires, and the
 * random `state` of an authorization request: 32 random bytes each, base64url without padding
 * (a 43-character verifier, inside the 43..128 RFC 7636 allows).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Pkce from "@snodo/client/oauth/Pkce"
 *
 * const { verifier, challenge } = await Effect.runPromise(Pkce.make)
 * ```
 *
 * @since 0.1.0
 */
import { Effect } from "effect"

/**
 * A verifier and its S256 challenge.
 *
 * @category models
 * @since 0.1.0
 */
export interface Pkce {
  readonly verifier: string
  readonly challenge: string
}

const base64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url")

/**
 * A fresh random base64url string of 32 bytes (a verifier, a `state`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const randomString: Effect.Effect<string> = Effect.sync(() => base64url(crypto.getRandomValues(new Uint8Array(32))))

/**
 * `BASE64URL(SHA256(verifier))`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const challengeOf = (verifier: string): Effect.Effect<string> =>
  Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))).pipe(
    Effect.map((digest) => base64url(new Uint8Array(digest)))
  )

/**
 * A fresh verifier and its challenge.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: Effect.Effect<Pkce> = Effect.flatMap(randomString, (verifier) =>
  Effect.map(challengeOf(verifier), (challenge) => ({ verifier, challenge })))
