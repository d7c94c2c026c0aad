/**
 * `private_key_jwt` client authentication (RFC 7523 §2.2, OpenID Connect Core §9): instead of a
 * secret, the client proves who it is with a short-lived JWT signed by its own key (`iss` and
 * `sub` its `client_id`, `aud` the authorization server's issuer, a fresh `jti`), sent as
 * `client_assertion` with `client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer`.
 *
 * The key is the application's: registered with the authorization server out of band (its public
 * half in the client's JWKS), handed here as a `SigningKey`. Nothing is generated.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as ClientAssertion from "@snodo/client/oauth/ClientAssertion"
 * import * as OAuthClient from "@snodo/client/oauth/OAuthClient"
 *
 * declare const pem: string // the client's PKCS #8 private key, from a secret store
 *
 * const options = Effect.map(ClientAssertion.fromPkcs8(pem, "ES256"), (signingKey): OAuthClient.Options => ({
 *   clientName: "billing-agent",
 *   flow: { grant: "client_credentials" },
 *   preRegistered: [{ clientId: "billing-agent", authMethod: "private_key_jwt", signingKey }]
 * }))
 * ```
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { type CryptoKey, importPKCS8, type JWK, type KeyObject, SignJWT } from "jose"
import { SigningKeyError } from "./OAuthError.ts"

/**
 * The RFC 7523 `client_assertion_type`.
 *
 * @category constants
 * @since 0.1.0
 */
export const assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

/**
 * A private key and the JWS algorithm it signs with (`ES256`, `RS256`, `EdDSA`…).
 *
 * @category models
 * @since 0.1.0
 */
export interface SigningKey {
  readonly algorithm: string
  readonly key: CryptoKey | KeyObject | JWK
  /** The `kid` header, when the authorization server picks the key from a JWKS by id. */
  readonly keyId?: string | undefined
}

/**
 * A `SigningKey` from a PKCS #8 PEM (`-----BEGIN PRIVATE KEY-----`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromPkcs8 = (pem: string, algorithm: string, keyId?: string): Effect.Effect<SigningKey, SigningKeyError> =>
  Effect.tryPromise({
    try: () => importPKCS8(pem, algorithm),
    catch: (cause) =>
      new SigningKeyError({
        purpose: "client_assertion",
        algorithm,
        message: `The private key is not a PKCS #8 ${algorithm} key: ${cause instanceof Error ? cause.message : String(cause)}`
      })
  }).pipe(Effect.map((key): SigningKey => ({ algorithm, key, keyId })))

/** How long an assertion is valid: long enough to reach the token endpoint, no longer. */
const lifetimeSeconds = 60

/**
 * Signs a client assertion for `clientId` to present at the authorization server `audience`
 * (its issuer identifier).
 *
 * @category signing
 * @since 0.1.0
 */
export const sign = (
  signingKey: SigningKey,
  { audience, clientId }: { readonly clientId: string; readonly audience: string }
): Effect.Effect<string, SigningKeyError> =>
  Effect.tryPromise({
    try: () =>
      new SignJWT({})
        .setProtectedHeader({ alg: signingKey.algorithm, typ: "JWT", ...(signingKey.keyId === undefined ? {} : { kid: signingKey.keyId }) })
        .setIssuer(clientId)
        .setSubject(clientId)
        .setAudience(audience)
        .setJti(crypto.randomUUID())
        .setIssuedAt()
        .setExpirationTime(`${lifetimeSeconds}s`)
        .sign(signingKey.key),
    catch: (cause) =>
      new SigningKeyError({
        purpose: "client_assertion",
        algorithm: signingKey.algorithm,
        message: `The client assertion could not be signed with ${signingKey.algorithm}: ${cause instanceof Error ? cause.message : String(cause)}`
      })
  })
