/**
 * The typed failures of the OAuth 2.1 client, one class per step of the MCP authorization flow, so
 * an application can tell "the server's metadata is wrong" from "the user closed the browser" from
 * "the authorization server refused the code" without reading messages. A step whose server cannot
 * be reached fails with that step's error (its message says so); the MCP request itself keeps the
 * wrapped client's own error type.
 *
 * Through `OAuthClient.layer` (which must keep `HttpClient`'s error type) each of these travels as
 * the `cause` of an `HttpClientError` whose reason is a `TransportError`; `OAuthError.fromCause`
 * finds it again.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as OAuthError from "@snodo/client/oauth/OAuthError"
 *
 * declare const call: Effect.Effect<string, OAuthError.OAuthError>
 * call.pipe(Effect.catchTag("TokenRequestError", (error) => Effect.succeed(`refused: ${error.error}`)))
 * ```
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * Protected Resource Metadata (RFC 9728) could not be found, fetched or trusted: no document at the
 * URLs tried, not JSON, a `resource` that is not the server the client talks to, no authorization
 * server, or an insecure URL.
 *
 * @category errors
 * @since 0.1.0
 */
export class ResourceMetadataError extends Schema.TaggedError<ResourceMetadataError>()("ResourceMetadataError", {
  /** The MCP server URL the client was talking to. */
  serverUrl: Schema.String,
  /** The metadata URLs tried, in order. */
  tried: Schema.Array(Schema.String),
  message: Schema.String
}) {}

/**
 * Authorization server metadata (RFC 8414 / OpenID Connect Discovery) could not be found or fails
 * validation: issuer not identical to the one the well-known URL was built from, an insecure
 * endpoint, no PKCE `S256`, no endpoint for the grant.
 *
 * @category errors
 * @since 0.1.0
 */
export class AuthorizationServerMetadataError extends Schema.TaggedError<AuthorizationServerMetadataError>()(
  "AuthorizationServerMetadataError",
  {
    issuer: Schema.String,
    tried: Schema.Array(Schema.String),
    message: Schema.String
  }
) {}

/**
 * No client identity for this authorization server: no pre-registered credentials for its issuer,
 * no Client ID Metadata Document it accepts, and dynamic registration refused or not offered; or
 * the client credentials grant without a secret.
 *
 * @category errors
 * @since 0.1.0
 */
export class RegistrationError extends Schema.TaggedError<RegistrationError>()("RegistrationError", {
  issuer: Schema.String,
  message: Schema.String
}) {}

/**
 * The user's authorization step did not give a usable code: the prompt failed, the response's
 * `state` or `iss` (RFC 9207) does not match, the server answered an error, or no code came back.
 * When `iss` does not match, `error` is never filled in: the spec forbids acting on an error from
 * an unauthenticated response.
 *
 * @category errors
 * @since 0.1.0
 */
export class AuthorizationResponseError extends Schema.TaggedError<AuthorizationResponseError>()(
  "AuthorizationResponseError",
  {
    reason: Schema.Literals(["prompt", "state", "issuer", "denied", "no_code"]),
    /** The `error` code of an authorization error response (only when `iss` checked out). */
    error: Schema.optional(Schema.String),
    message: Schema.String
  }
) {}

/**
 * The token endpoint refused a grant (authorization code, refresh token, client credentials) or
 * answered something that is not a token response.
 *
 * @category errors
 * @since 0.1.0
 */
export class TokenRequestError extends Schema.TaggedError<TokenRequestError>()("TokenRequestError", {
  grantType: Schema.String,
  /** The OAuth `error` code, when the server sent one. */
  error: Schema.optional(Schema.String),
  status: Schema.optional(Schema.Number),
  message: Schema.String
}) {}

/**
 * A key the application gave for signing (a `private_key_jwt` client assertion, a DPoP proof)
 * could not be imported or could not sign: a PEM that is not PKCS #8, an algorithm the key does
 * not fit.
 *
 * @category errors
 * @since 0.1.0
 */
export class SigningKeyError extends Schema.TaggedError<SigningKeyError>()("SigningKeyError", {
  /** What the key was for: `client_assertion` or `dpop`. */
  purpose: Schema.Literals(["client_assertion", "dpop"]),
  algorithm: Schema.String,
  message: Schema.String
}) {}

/**
 * Step-up authorization (a 403 `insufficient_scope` answer) cannot satisfy the server: it still
 * refuses the scope set this client was just authorized for (`repeated`: no new authorization is
 * run for the same set within the step-up window), or the set it asks for would pass the
 * client's bound on requested scopes (`too_many_scopes`).
 *
 * @category errors
 * @since 0.1.0
 */
export class StepUpError extends Schema.TaggedError<StepUpError>()("StepUpError", {
  reason: Schema.Literals(["repeated", "too_many_scopes"]),
  /** The MCP server URL that answered 403. */
  serverUrl: Schema.String,
  /** The scopes the client held or would have asked for. */
  scope: Schema.Array(Schema.String),
  message: Schema.String
}) {}

/**
 * Any failure of the OAuth client.
 *
 * @category models
 * @since 0.1.0
 */
export type OAuthError =
  | ResourceMetadataError
  | AuthorizationServerMetadataError
  | RegistrationError
  | AuthorizationResponseError
  | TokenRequestError
  | SigningKeyError
  | StepUpError

const tags: ReadonlySet<string> = new Set([
  "ResourceMetadataError",
  "AuthorizationServerMetadataError",
  "RegistrationError",
  "AuthorizationResponseError",
  "TokenRequestError",
  "SigningKeyError",
  "StepUpError"
])

/**
 * Whether `u` is one of the OAuth client's errors.
 *
 * @category guards
 * @since 0.1.0
 */
export const isOAuthError = (u: unknown): u is OAuthError =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string" && tags.has(u._tag)

/**
 * The OAuth error inside an `HttpClientError` raised by `OAuthClient.layer` (or anything whose
 * `cause` chain holds one), if any.
 *
 * @category combinators
 * @since 0.1.0
 */
export const fromCause = (u: unknown): OAuthError | undefined => {
  for (let current = u, depth = 0; typeof current === "object" && current !== null && depth < 4; depth++) {
    if (isOAuthError(current)) return current
    current = "cause" in current ? current.cause : undefined
  }
  return undefined
}
