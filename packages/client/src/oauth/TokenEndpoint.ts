/**
 * Token requests (RFC 6749 §3.2, OAuth 2.1 §4): the authorization code, refresh token, client
 * credentials and JWT bearer (RFC 7523) grants, each carrying the RFC 8707 `resource`, with the
 * client authenticated by the method its registration names (`client_secret_basic`,
 * `client_secret_post`, `private_key_jwt` with a fresh signed assertion (RFC 7523 §2.2), or `none`
 * for a public client, which sends only its `client_id`).
 *
 * With a DPoP key (RFC 9449 §5) the request carries a proof; an answer `use_dpop_nonce` with a
 * `DPoP-Nonce` header is retried once with a proof carrying the nonce, which is kept for the
 * server's next requests. A `DPoP` token type is accepted only when a proof was sent; any other
 * type but `Bearer` fails the request, since this client cannot present it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpClient } from "effect/http"
 * import * as TokenEndpoint from "@snodo/client/oauth/TokenEndpoint"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* HttpClient.HttpClient
 *   return yield* TokenEndpoint.request(client, {
 *     tokenEndpoint: "https://auth.example.com/token",
 *     client: { clientId: "agent", clientSecret: "s3cret", authMethod: "client_secret_basic" },
 *     params: { grant_type: "client_credentials", resource: "https://mcp.example.com/mcp", scope: "mcp" }
 *   })
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import * as ClientAssertion from "./ClientAssertion.ts"
import * as Dpop from "./Dpop.ts"
import * as Metadata from "./Metadata.ts"
import { type SigningKeyError, TokenRequestError } from "./OAuthError.ts"
import type { ClientRegistration } from "./TokenStore.ts"

/**
 * A token request.
 *
 * @category models
 * @since 0.1.0
 */
export interface Request {
  readonly tokenEndpoint: string
  readonly client: ClientRegistration
  /** The grant's form parameters, `grant_type` and `resource` included. */
  readonly params: Readonly<Record<string, string>> & { readonly grant_type: string }
  /** The authorization server's issuer: the audience of a `private_key_jwt` assertion. */
  readonly issuer?: string | undefined
  /** Sender-constrain the token to this key (RFC 9449). */
  readonly dpop?: DpopOptions | undefined
}

/**
 * A DPoP key and where the servers' nonces are kept.
 *
 * @category models
 * @since 0.1.0
 */
export interface DpopOptions {
  readonly key: Dpop.DpopKey
  readonly nonces: Dpop.NonceCache
}

/** RFC 6749 §2.3.1: the id and secret are form-urlencoded before Basic encoding. */
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+")

const decodeToken = Schema.decodeUnknownOption(Metadata.TokenResponse)
const decodeError = Schema.decodeUnknownOption(Metadata.ErrorResponse)

/**
 * Sends a token request with the client authenticated (and a DPoP proof); succeeds with the body
 * of a 200 answer, for a grant whose answer is not an access token response (RFC 8693's token
 * exchange). `request` is this with the answer decoded.
 *
 * @category requests
 * @since 0.1.0
 */
export const post = (
  http: HttpClient.HttpClient,
  { client, dpop, issuer, params, tokenEndpoint }: Request
): Effect.Effect<unknown, TokenRequestError | SigningKeyError> =>
  Effect.gen(function*() {
    const grantType = params.grant_type
    const form: Record<string, string> = { ...params }
    let outgoing = HttpClientRequest.post(tokenEndpoint, { acceptJson: true })
    switch (client.authMethod) {
      case "client_secret_basic":
        outgoing = HttpClientRequest.basicAuth(outgoing, formEncode(client.clientId), formEncode(client.clientSecret ?? ""))
        break
      case "client_secret_post":
        form["client_id"] = client.clientId
        form["client_secret"] = client.clientSecret ?? ""
        break
      case "private_key_jwt":
        if (client.signingKey === undefined) {
          return yield* new TokenRequestError({ grantType, message: `The client ${client.clientId} uses private_key_jwt but no signing key is configured` })
        }
        form["client_id"] = client.clientId
        form["client_assertion_type"] = ClientAssertion.assertionType
        form["client_assertion"] = yield* ClientAssertion.sign(client.signingKey, { clientId: client.clientId, audience: issuer ?? tokenEndpoint })
        break
      default:
        form["client_id"] = client.clientId
    }
    const fail = (message: string, extra: { readonly error?: string; readonly status?: number } = {}) =>
      Effect.fail(new TokenRequestError({ grantType, message, ...extra }))
    const send = (nonce: string | undefined) =>
      Effect.gen(function*() {
        const proof = dpop === undefined ? undefined : yield* Dpop.proof(dpop.key, { method: "POST", url: tokenEndpoint, nonce })
        const signed = proof === undefined ? outgoing : HttpClientRequest.setHeader(outgoing, "DPoP", proof)
        const response = yield* http.execute(HttpClientRequest.bodyUrlParams(signed, form)).pipe(
          Effect.catch((error) => fail(`The token endpoint could not be reached: ${error.message}`))
        )
        const fresh = response.headers["dpop-nonce"]
        if (dpop !== undefined && fresh !== undefined) dpop.nonces.set(tokenEndpoint, fresh)
        const body = yield* response.json.pipe(Effect.orElseSucceed((): unknown => undefined))
        return { status: response.status, body, nonce: fresh }
      })
    let answer = yield* send(dpop?.nonces.get(tokenEndpoint))
    if (dpop !== undefined && answer.status === 400 && answer.nonce !== undefined) {
      const refused = decodeError(answer.body)
      if (refused._tag === "Some" && refused.value.error === "use_dpop_nonce") answer = yield* send(answer.nonce)
    }
    const { body, status } = answer
    if (status !== 200) {
      const oauth = decodeError(body)
      return yield* oauth._tag === "Some"
        ? fail(oauth.value.error_description ?? `The token endpoint refused the ${grantType} grant`, { error: oauth.value.error, status })
        : fail(`The token endpoint answered ${status}`, { status })
    }
    return body
  })

/**
 * Sends a token request; succeeds with the token response.
 *
 * @category requests
 * @since 0.1.0
 */
export const request = (
  http: HttpClient.HttpClient,
  options: Request
): Effect.Effect<Metadata.TokenResponse, TokenRequestError | SigningKeyError> =>
  Effect.gen(function*() {
    const grantType = options.params.grant_type
    const status = 200
    const fail = (message: string) => Effect.fail(new TokenRequestError({ grantType, message, status }))
    const body = yield* post(http, options)
    const dpop = options.dpop
    const token = decodeToken(body)
    if (token._tag === "None") return yield* fail("The token endpoint's answer is not a token response")
    const type = token.value.token_type.toLowerCase()
    if (type !== "bearer" && !(type === "dpop" && dpop !== undefined)) {
      return yield* fail(`The token type ${token.value.token_type} is not ${dpop === undefined ? "Bearer" : "Bearer or DPoP"}`)
    }
    return token.value
  })
