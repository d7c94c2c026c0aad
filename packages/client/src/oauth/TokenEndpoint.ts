/**
 * Token requests (RFC 6749 §3.2, OAuth 2.1 §4): the authorization code, refresh token and client
 * credentials grants, each carrying the RFC 8707 `resource`, with the client authenticated by the
 * method its registration names (`client_secret_basic`, `client_secret_post`, or `none` for a
 * public client, which sends only its `client_id`).
 *
 * Only `Bearer` tokens are accepted: a `DPoP` (or other) token type fails the request, since this
 * client cannot present it.
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
import * as Metadata from "./Metadata.ts"
import { TokenRequestError } from "./OAuthError.ts"
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
}

/** RFC 6749 §2.3.1: the id and secret are form-urlencoded before Basic encoding. */
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+")

const decodeToken = Schema.decodeUnknownOption(Metadata.TokenResponse)
const decodeError = Schema.decodeUnknownOption(Metadata.ErrorResponse)

/**
 * Sends a token request; succeeds with the token response.
 *
 * @category requests
 * @since 0.1.0
 */
export const request = (
  http: HttpClient.HttpClient,
  { client, params, tokenEndpoint }: Request
): Effect.Effect<Metadata.TokenResponse, TokenRequestError> => {
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
    default:
      form["client_id"] = client.clientId
  }
  const fail = (message: string, extra: { readonly error?: string; readonly status?: number } = {}) =>
    Effect.fail(new TokenRequestError({ grantType, message, ...extra }))
  return http.execute(HttpClientRequest.bodyUrlParams(outgoing, form)).pipe(
    Effect.catch((error) => fail(`The token endpoint could not be reached: ${error.message}`)),
    Effect.flatMap((response) =>
      response.json.pipe(
        Effect.orElseSucceed((): unknown => undefined),
        Effect.map((body) => ({ status: response.status, body }))
      )
    ),
    Effect.flatMap(({ body, status }) => {
      if (status !== 200) {
        const oauth = decodeError(body)
        return oauth._tag === "Some"
          ? fail(oauth.value.error_description ?? `The token endpoint refused the ${grantType} grant`, { error: oauth.value.error, status })
          : fail(`The token endpoint answered ${status}`, { status })
      }
      const token = decodeToken(body)
      if (token._tag === "None") return fail("The token endpoint's answer is not a token response", { status })
      if (token.value.token_type.toLowerCase() !== "bearer") {
        return fail(`The token type ${token.value.token_type} is not Bearer`, { status })
      }
      return Effect.succeed(token.value)
    })
  )
}
