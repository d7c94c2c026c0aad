/**
 * Enterprise-managed authorization (SEP-990, the MCP extension
 * `io.modelcontextprotocol/enterprise-managed-authorization`): the user signed in to the
 * enterprise's identity provider once; to reach an MCP server the client exchanges that
 * identity (the ID token) at the IdP for an Identity Assertion JWT Authorization Grant (an
 * ID-JAG, RFC 8693 token exchange with `requested_token_type=urn:ietf:params:oauth:token-type:id-jag`,
 * `audience` the MCP server's authorization server, `resource` the MCP server), then presents the
 * ID-JAG at that authorization server with the JWT bearer grant (RFC 7523). No browser, no
 * consent screen: the enterprise's policy at its IdP decides.
 *
 * `idJag` is the JWT bearer flow's `assertion` that does the exchange each time a token is needed.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type * as OAuthClient from "@snodo/client/oauth/OAuthClient"
 * import * as TokenExchange from "@snodo/client/oauth/TokenExchange"
 *
 * declare const idToken: Effect.Effect<string> // the user's ID token from the enterprise IdP's sign-in
 *
 * const options: OAuthClient.Options = {
 *   clientName: "my-agent",
 *   flow: {
 *     grant: "jwt_bearer",
 *     assertion: TokenExchange.idJag({
 *       tokenEndpoint: "https://idp.example.com/oauth2/token",
 *       client: { clientId: "my-agent-at-idp", authMethod: "none" },
 *       subjectToken: idToken
 *     })
 *   },
 *   // the client's credentials at the MCP server's authorization server
 *   preRegistered: [{ clientId: "my-agent", clientSecret: "s3cret" }]
 * }
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import type { OAuthError } from "./OAuthError.ts"
import { TokenRequestError } from "./OAuthError.ts"
import type { AssertionTarget } from "./Registration.ts"
import * as TokenEndpoint from "./TokenEndpoint.ts"
import type { ClientRegistration } from "./TokenStore.ts"

/**
 * RFC 8693's grant type and the token types of SEP-990.
 *
 * @category constants
 * @since 0.1.0
 */
export const tokenTypes = {
  grant: "urn:ietf:params:oauth:grant-type:token-exchange",
  idToken: "urn:ietf:params:oauth:token-type:id_token",
  idJag: "urn:ietf:params:oauth:token-type:id-jag"
} as const

/**
 * @category models
 * @since 0.1.0
 */
export interface IdJagOptions {
  /** The identity provider's token endpoint. */
  readonly tokenEndpoint: string
  /** The client's registration at the identity provider. */
  readonly client: ClientRegistration
  /** The identity provider's issuer, when it authenticates the client with `private_key_jwt`. */
  readonly issuer?: string | undefined
  /** The subject token (the user's ID token), read each time an exchange runs. */
  readonly subjectToken: Effect.Effect<string, OAuthError> | string
  /** Default `urn:ietf:params:oauth:token-type:id_token`. */
  readonly subjectTokenType?: string | undefined
}

/** RFC 8693 §2.2.1: the exchange's answer. */
const ExchangeResponse = Schema.Struct({ access_token: Schema.String, issued_token_type: Schema.String })
const decodeExchange = Schema.decodeUnknownOption(ExchangeResponse)

/**
 * The JWT bearer flow's assertion: an ID-JAG for the target's authorization server and resource,
 * from a token exchange at the identity provider.
 *
 * @category assertions
 * @since 0.1.0
 */
export const idJag = (options: IdJagOptions) => (target: AssertionTarget): Effect.Effect<string, OAuthError> =>
  Effect.gen(function*() {
    const subjectToken = typeof options.subjectToken === "string" ? options.subjectToken : yield* options.subjectToken
    const body = yield* TokenEndpoint.post(target.http, {
      tokenEndpoint: options.tokenEndpoint,
      client: options.client,
      issuer: options.issuer,
      params: {
        grant_type: tokenTypes.grant,
        requested_token_type: tokenTypes.idJag,
        audience: target.issuer,
        resource: target.resource,
        subject_token: subjectToken,
        subject_token_type: options.subjectTokenType ?? tokenTypes.idToken,
        ...(target.scope.length > 0 ? { scope: target.scope.join(" ") } : {})
      }
    })
    const exchanged = decodeExchange(body)
    if (exchanged._tag === "None" || exchanged.value.issued_token_type !== tokenTypes.idJag) {
      return yield* new TokenRequestError({
        grantType: tokenTypes.grant,
        status: 200,
        message: `The identity provider's token exchange did not issue an ID-JAG (${tokenTypes.idJag})`
      })
    }
    return exchanged.value.access_token
  })
