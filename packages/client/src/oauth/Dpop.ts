/**
 * DPoP, sender-constrained tokens (RFC 9449; the MCP DPoP extension, SEP-1932): the client holds a
 * key pair, and every token request and every request to the MCP server carries a fresh proof
 * JWT in the `DPoP` header (`typ: dpop+jwt`, the public key as `jwk`, a unique `jti`, `htm` and
 * `htu` naming the request, `iat`; at the resource also `ath`, the access token's hash). The
 * authorization server binds the token to the key (`cnf.jkt`), so a stolen token is useless
 * without the private key.
 *
 * A server may demand a nonce: it answers `use_dpop_nonce` with a `DPoP-Nonce` header, and the
 * client signs a new proof carrying it (`OAuthClient` does so once per request, and keeps the
 * latest nonce of each server for the next proofs).
 *
 * The key is the application's choice: `fromKeyPair` wraps one it holds (a non-extractable
 * `CryptoKey` in a browser, a key from an HSM-backed store), `generate` makes a fresh one when the
 * application decides an ephemeral key per process is what it wants.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Dpop from "@snodo/client/oauth/Dpop"
 * import * as OAuthClient from "@snodo/client/oauth/OAuthClient"
 *
 * const options = Effect.map(Dpop.generate("ES256"), (dpop): OAuthClient.Options => ({
 *   clientName: "my-agent",
 *   flow: { grant: "authorization_code", redirectUri: "http://127.0.0.1:8765/callback" },
 *   dpop
 * }))
 * ```
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { base64url, calculateJwkThumbprint, type CryptoKey, exportJWK, generateKeyPair, type JWK, type KeyObject, SignJWT } from "jose"
import { SigningKeyError } from "./OAuthError.ts"

/**
 * A DPoP key: the private key that signs proofs, its public JWK (sent in every proof), and the
 * JWK SHA-256 thumbprint (RFC 7638) a bound token's `cnf.jkt` names.
 *
 * @category models
 * @since 0.1.0
 */
export interface DpopKey {
  readonly algorithm: string
  readonly privateKey: CryptoKey | KeyObject
  readonly publicJwk: JWK
  readonly thumbprint: string
}

/**
 * What a proof is for.
 *
 * @category models
 * @since 0.1.0
 */
export interface ProofTarget {
  readonly method: string
  readonly url: string
  /** The access token the request presents (at a resource server): its hash becomes `ath`. */
  readonly accessToken?: string | undefined
  /** The server's latest `DPoP-Nonce`. */
  readonly nonce?: string | undefined
}

const keyError = (algorithm: string, what: string) => (cause: unknown) =>
  new SigningKeyError({ purpose: "dpop", algorithm, message: `${what}: ${cause instanceof Error ? cause.message : String(cause)}` })

/**
 * A `DpopKey` from a key pair the application holds.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromKeyPair = (
  pair: { readonly privateKey: CryptoKey | KeyObject; readonly publicKey: CryptoKey | KeyObject },
  algorithm: string
): Effect.Effect<DpopKey, SigningKeyError> =>
  Effect.tryPromise({
    try: async (): Promise<DpopKey> => {
      const { crv, e, kty, n, x, y } = await exportJWK(pair.publicKey)
      // Only the public members: a proof's `jwk` must never carry private material.
      const publicJwk: JWK = Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, value]) => value !== undefined))
      return { algorithm, privateKey: pair.privateKey, publicJwk, thumbprint: await calculateJwkThumbprint(publicJwk, "sha256") }
    },
    catch: keyError(algorithm, "The DPoP public key cannot be exported as a JWK")
  })

/**
 * A fresh key pair for `algorithm` (`ES256` by default), its private half not extractable. Call it
 * where the application decides a per-process key is right; the OAuth client never makes one
 * itself.
 *
 * @category constructors
 * @since 0.1.0
 */
export const generate = (algorithm = "ES256"): Effect.Effect<DpopKey, SigningKeyError> =>
  Effect.tryPromise({
    try: () => generateKeyPair(algorithm),
    catch: keyError(algorithm, `A DPoP key pair for ${algorithm} cannot be generated`)
  }).pipe(Effect.flatMap((pair) => fromKeyPair(pair, algorithm)))

/**
 * RFC 9449 §4.2: `htu` is the request URI without its query and fragment.
 *
 * @category proofs
 * @since 0.1.0
 */
export const htu = (url: string): string => {
  const parsed = new URL(url)
  return `${parsed.origin}${parsed.pathname}`
}

/**
 * RFC 9449 §4.2: `ath`, the base64url SHA-256 of the access token's ASCII bytes.
 *
 * @category proofs
 * @since 0.1.0
 */
export const accessTokenHash = (accessToken: string): Effect.Effect<string> =>
  Effect.promise(() => crypto.subtle.digest("SHA-256", new TextEncoder().encode(accessToken))).pipe(
    Effect.map((digest) => base64url.encode(new Uint8Array(digest)))
  )

/**
 * A fresh proof for one request.
 *
 * @category proofs
 * @since 0.1.0
 */
export const proof = (key: DpopKey, target: ProofTarget): Effect.Effect<string, SigningKeyError> =>
  Effect.gen(function*() {
    const ath = target.accessToken === undefined ? undefined : yield* accessTokenHash(target.accessToken)
    return yield* Effect.tryPromise({
      try: () =>
        new SignJWT({
          htm: target.method.toUpperCase(),
          htu: htu(target.url),
          ...(ath === undefined ? {} : { ath }),
          ...(target.nonce === undefined ? {} : { nonce: target.nonce })
        })
          .setProtectedHeader({ typ: "dpop+jwt", alg: key.algorithm, jwk: key.publicJwk })
          .setJti(crypto.randomUUID())
          .setIssuedAt()
          .sign(key.privateKey),
      catch: keyError(key.algorithm, "The DPoP proof could not be signed")
    })
  })

/**
 * The latest `DPoP-Nonce` of each server (by origin), for the next proof sent there.
 *
 * @category models
 * @since 0.1.0
 */
export interface NonceCache {
  readonly get: (url: string) => string | undefined
  readonly set: (url: string, nonce: string) => void
}

/**
 * An in-memory `NonceCache`; it holds at most `capacity` servers (the oldest forgotten first).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeNonceCache = (capacity = 64): NonceCache => {
  const nonces = new Map<string, string>()
  return {
    get: (url) => nonces.get(new URL(url).origin),
    set: (url, nonce) => {
      const origin = new URL(url).origin
      nonces.delete(origin)
      nonces.set(origin, nonce)
      if (nonces.size > capacity) nonces.delete(nonces.keys().next().value!)
    }
  }
}

/**
 * Whether a response is a resource server's nonce challenge (RFC 9449 §9): 401 with
 * `WWW-Authenticate: DPoP error="use_dpop_nonce"` and a `DPoP-Nonce` header.
 *
 * @category proofs
 * @since 0.1.0
 */
export const isNonceChallenge = (status: number, headers: Readonly<Record<string, string | undefined>>): boolean =>
  status === 401 && headers["dpop-nonce"] !== undefined && /(^|[\s,])error\s*=\s*"?use_dpop_nonce"?/i.test(headers["www-authenticate"] ?? "")
