/**
 * The authorization code grant with PKCE (OAuth 2.1 §4.1, RFC 7636) as the MCP spec (2026-07-28)
 * asks a client to run it:
 *
 * 1. the server must advertise `S256` in `code_challenge_methods_supported` (no PKCE, no flow);
 * 2. the authorization URL carries `response_type=code`, the `client_id`, the `redirect_uri`, the
 *    S256 `code_challenge`, a random `state`, the RFC 8707 `resource` and the `scope` (left out when
 *    empty);
 * 3. the `AuthorizationPrompt` takes the user there and brings back the redirect's parameters;
 * 4. the response is checked before the code goes anywhere (`validateResponse`): `iss` first
 *    (RFC 9207 §2.4, simple string comparison, no normalization; a response without `iss` is
 *    refused when the server advertises `authorization_response_iss_parameter_supported`), then
 *    `state`, then an `error`, then the `code`;
 * 5. the code is exchanged with the `code_verifier`, the same `redirect_uri` and the `resource`.
 *
 * @example
 * ```ts
 * import * as AuthorizationCode from "@snodo/client/oauth/AuthorizationCode"
 *
 * AuthorizationCode.validateResponse(new URLSearchParams("code=c&state=s&iss=https%3A%2F%2Fauth.example.com"), {
 *   issuer: "https://auth.example.com",
 *   issParameterSupported: true,
 *   state: "s"
 * }) // Effect succeeding with "c"
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Option } from "effect"
import type { HttpClient } from "effect/http"
import { AuthorizationPrompt } from "./AuthorizationPrompt.ts"
import type * as Metadata from "./Metadata.ts"
import { AuthorizationResponseError, AuthorizationServerMetadataError, type SigningKeyError, type TokenRequestError } from "./OAuthError.ts"
import * as Pkce from "./Pkce.ts"
import * as TokenEndpoint from "./TokenEndpoint.ts"
import type { ClientRegistration } from "./TokenStore.ts"

/**
 * One authorization.
 *
 * @category models
 * @since 0.1.0
 */
export interface Request {
  readonly server: Metadata.AuthorizationServerMetadata
  readonly client: ClientRegistration
  readonly redirectUri: string
  readonly scope: ReadonlyArray<string>
  /** The canonical resource (RFC 8707) the token is for. */
  readonly resource: string
  /** Bind the token to a DPoP key (RFC 9449 §5): the code is exchanged with a proof. */
  readonly dpop?: TokenEndpoint.DpopOptions | undefined
}

/**
 * The authorization URL of a request.
 *
 * @category combinators
 * @since 0.1.0
 */
export const authorizationUrl = (
  request: Request & { readonly authorizationEndpoint: string },
  pkce: Pkce.Pkce,
  state: string
): URL => {
  const url = new URL(request.authorizationEndpoint)
  url.searchParams.set("response_type", "code")
  url.searchParams.set("client_id", request.client.clientId)
  url.searchParams.set("redirect_uri", request.redirectUri)
  url.searchParams.set("code_challenge", pkce.challenge)
  url.searchParams.set("code_challenge_method", "S256")
  url.searchParams.set("state", state)
  url.searchParams.set("resource", request.resource)
  if (request.scope.length > 0) url.searchParams.set("scope", request.scope.join(" "))
  return url
}

/**
 * What an authorization response is checked against.
 *
 * @category models
 * @since 0.1.0
 */
export interface Expected {
  /** The `issuer` of the validated metadata, recorded before the user was sent away. */
  readonly issuer: string
  readonly issParameterSupported: boolean
  readonly state: string
}

/**
 * The code of an authorization response, or why it is refused.
 *
 * @category validation
 * @since 0.1.0
 */
export const validateResponse = (answer: URLSearchParams, expected: Expected): Effect.Effect<string, AuthorizationResponseError> => {
  const iss = answer.get("iss")
  if (iss !== null ? iss !== expected.issuer : expected.issParameterSupported) {
    return Effect.fail(
      new AuthorizationResponseError({
        reason: "issuer",
        message: iss === null
          ? "The authorization response has no iss although the server advertises it"
          : `The authorization response comes from ${iss}, not ${expected.issuer}`
      })
    )
  }
  if (answer.get("state") !== expected.state) {
    return Effect.fail(new AuthorizationResponseError({ reason: "state", message: "The authorization response's state does not match" }))
  }
  const error = answer.get("error")
  if (error !== null) {
    return Effect.fail(
      new AuthorizationResponseError({
        reason: "denied",
        error,
        message: answer.get("error_description") ?? `The authorization server answered ${error}`
      })
    )
  }
  const code = answer.get("code")
  return code === null
    ? Effect.fail(new AuthorizationResponseError({ reason: "no_code", message: "The authorization response has no code" }))
    : Effect.succeed(code)
}

/**
 * Runs the grant: succeeds with the token response. An `AuthorizationPrompt` must be in the
 * context when it runs, else the prompt step fails.
 *
 * @category flows
 * @since 0.1.0
 */
export const run = (
  http: HttpClient.HttpClient,
  request: Request
): Effect.Effect<
  Metadata.TokenResponse,
  AuthorizationServerMetadataError | AuthorizationResponseError | TokenRequestError | SigningKeyError
> =>
  Effect.gen(function*() {
    const { server } = request
    const refuse = (message: string) => new AuthorizationServerMetadataError({ issuer: server.issuer, tried: [], message })
    if (server.authorization_endpoint === undefined) return yield* refuse("The metadata has no authorization_endpoint")
    if (server.token_endpoint === undefined) return yield* refuse("The metadata has no token_endpoint")
    if (server.code_challenge_methods_supported?.includes("S256") !== true) {
      return yield* refuse("The authorization server does not advertise PKCE S256 (code_challenge_methods_supported)")
    }
    if (server.response_types_supported !== undefined && !server.response_types_supported.includes("code")) {
      return yield* refuse("The authorization server does not support the code response type")
    }
    const prompt = yield* Effect.serviceOption(AuthorizationPrompt)
    if (Option.isNone(prompt)) {
      return yield* new AuthorizationResponseError({ reason: "prompt", message: "No AuthorizationPrompt was provided for the user's step" })
    }
    const pkce = yield* Pkce.make
    const state = yield* Pkce.randomString
    const answer = yield* prompt.value.authorize(authorizationUrl({ ...request, authorizationEndpoint: server.authorization_endpoint }, pkce, state)).pipe(
      Effect.mapError((error) => new AuthorizationResponseError({ reason: "prompt", message: error.message }))
    )
    const code = yield* validateResponse(answer, {
      issuer: server.issuer,
      issParameterSupported: server.authorization_response_iss_parameter_supported === true,
      state
    })
    return yield* TokenEndpoint.request(http, {
      tokenEndpoint: server.token_endpoint,
      client: request.client,
      issuer: server.issuer,
      dpop: request.dpop,
      params: { grant_type: "authorization_code", code, redirect_uri: request.redirectUri, code_verifier: pkce.verifier, resource: request.resource }
    })
  })
