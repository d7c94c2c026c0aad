/**
 * How the client gets a `client_id` at an authorization server, in the order the MCP spec
 * (2026-07-28, "Client Registration") recommends:
 *
 * 1. **pre-registered** credentials the application holds for this issuer (an entry without an
 *    `issuer` is used with any authorization server; one with an `issuer` only with that one);
 * 2. a **Client ID Metadata Document**: the application's `https` URL is the `client_id`, when the
 *    server advertises `client_id_metadata_document_supported`;
 * 3. a registration this client made before with the same issuer (from the `TokenStore`);
 * 4. **Dynamic Client Registration** (RFC 7591) when the server has a `registration_endpoint`: the
 *    client's metadata with `application_type` (`native` for a loopback redirect, else `web`), the
 *    grant types of its flow, and the token endpoint authentication method it will use. The result
 *    is stored under the issuer, never reused with another.
 *
 * @example
 * ```ts
 * import * as Registration from "@snodo/client/oauth/Registration"
 *
 * const options: Registration.Options = {
 *   clientName: "my-agent",
 *   clientMetadataUrl: "https://agent.example.com/oauth/client.json",
 *   preRegistered: [{ issuer: "https://auth.example.com", clientId: "agent", clientSecret: "s3cret" }]
 * }
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import * as Metadata from "./Metadata.ts"
import type { SigningKey } from "./ClientAssertion.ts"
import { type OAuthError, RegistrationError } from "./OAuthError.ts"
import { type ClientRegistration, TokenStore } from "./TokenStore.ts"

/**
 * Credentials registered out of band.
 *
 * @category models
 * @since 0.1.0
 */
export interface PreRegistered {
  /** The issuer these credentials belong to; without it they are used with any server. */
  readonly issuer?: string | undefined
  readonly clientId: string
  readonly clientSecret?: string | undefined
  /**
   * Defaults to `private_key_jwt` with a `signingKey`, else to what the server supports
   * (`client_secret_basic` first), or `none` without a secret.
   */
  readonly authMethod?: "client_secret_basic" | "client_secret_post" | "private_key_jwt" | "none" | undefined
  /** The client's key for `private_key_jwt` (RFC 7523 §2.2); see `ClientAssertion`. */
  readonly signingKey?: SigningKey | undefined
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly clientName: string
  readonly preRegistered?: ReadonlyArray<PreRegistered> | undefined
  /** The `https` URL of the client's metadata document (its `client_id` where CIMD is supported). */
  readonly clientMetadataUrl?: string | undefined
  /** More RFC 7591 members for dynamic registration (`client_uri`, `logo_uri`, `contacts`…). */
  readonly clientMetadata?: Readonly<Record<string, unknown>> | undefined
}

/**
 * What the flow needs from a registration.
 *
 * @category models
 * @since 0.1.0
 */
export type Flow =
  | { readonly grant: "authorization_code"; readonly redirectUri: string }
  | { readonly grant: "client_credentials" }
  | JwtBearerFlow

/**
 * The JWT bearer grant (RFC 7523 §2.1): the client presents an assertion someone else issued. The
 * workload identity of a cloud platform (SEP-1933: a Kubernetes service account token, a GitHub
 * Actions OIDC token…), or the ID-JAG an enterprise identity provider issues by token exchange
 * (SEP-990, see `TokenExchange`). `assertion` is asked for each time a token is needed, so it can
 * read a rotated file or run an exchange.
 *
 * @category models
 * @since 0.1.0
 */
export interface JwtBearerFlow {
  readonly grant: "jwt_bearer"
  readonly assertion: (target: AssertionTarget) => Effect.Effect<string, OAuthError>
}

/**
 * What an assertion is for: the authorization server (its issuer is the assertion's audience),
 * the MCP server's resource identifier, the scopes about to be asked for, and the flow's
 * unauthenticated `HttpClient` for an assertion that needs a request of its own.
 *
 * @category models
 * @since 0.1.0
 */
export interface AssertionTarget {
  readonly issuer: string
  readonly tokenEndpoint: string
  readonly resource: string
  readonly scope: ReadonlyArray<string>
  readonly http: HttpClient.HttpClient
}

/**
 * The JWT bearer grant's `grant_type`.
 *
 * @category constants
 * @since 0.1.0
 */
export const jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

/**
 * Whether `url` can be a Client ID Metadata Document URL: `https` with a path.
 *
 * @category guards
 * @since 0.1.0
 */
export const isClientIdUrl = (url: string): boolean =>
  URL.canParse(url) && new URL(url).protocol === "https:" && new URL(url).pathname.length > 1

/** RFC 8414 §2: without the member, `client_secret_basic` is the default. */
const supportedMethods = (server: Metadata.AuthorizationServerMetadata): ReadonlyArray<string> =>
  server.token_endpoint_auth_methods_supported ?? ["client_secret_basic"]

/** A confidential method the server supports, `client_secret_basic` first. */
const secretMethod = (server: Metadata.AuthorizationServerMetadata): string => {
  const methods = supportedMethods(server)
  return methods.includes("client_secret_basic") || !methods.includes("client_secret_post") ? "client_secret_basic" : "client_secret_post"
}

/** The method to ask for at registration: a public client where allowed (the user-facing flow). */
const registrationMethod = (server: Metadata.AuthorizationServerMetadata, flow: Flow): string =>
  flow.grant === "authorization_code" && supportedMethods(server).includes("none") ? "none" : secretMethod(server)

const isLoopback = (url: string) => URL.canParse(url) && ["localhost", "127.0.0.1", "[::1]"].includes(new URL(url).hostname)

const decodeClient = Schema.decodeUnknownOption(Metadata.ClientInformation)
const decodeError = Schema.decodeUnknownOption(Metadata.ErrorResponse)

/**
 * The RFC 7591 metadata this client registers with.
 *
 * @category combinators
 * @since 0.1.0
 */
export const clientMetadata = (options: Options, flow: Flow, authMethod: string): Record<string, unknown> => ({
  client_name: options.clientName,
  ...(flow.grant === "authorization_code"
    ? {
      redirect_uris: [flow.redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      application_type: isLoopback(flow.redirectUri) ? "native" : "web"
    }
    : { grant_types: [flow.grant === "jwt_bearer" ? jwtBearerGrantType : "client_credentials"], response_types: [] }),
  token_endpoint_auth_method: authMethod,
  ...options.clientMetadata
})

/**
 * The client's registration at `server`, found or made as the module header says.
 *
 * @category registration
 * @since 0.1.0
 */
export const resolve = (
  http: HttpClient.HttpClient,
  server: Metadata.AuthorizationServerMetadata,
  options: Options,
  flow: Flow
): Effect.Effect<ClientRegistration, RegistrationError, TokenStore> =>
  Effect.gen(function*() {
    const issuer = server.issuer
    const fail = (message: string) => Effect.fail(new RegistrationError({ issuer, message }))
    const preRegistered = options.preRegistered?.find((entry) => entry.issuer === issuer) ??
      options.preRegistered?.find((entry) => entry.issuer === undefined)
    if (preRegistered !== undefined) {
      return {
        clientId: preRegistered.clientId,
        clientSecret: preRegistered.clientSecret,
        authMethod: preRegistered.authMethod ??
          (preRegistered.signingKey !== undefined ? "private_key_jwt" : preRegistered.clientSecret === undefined ? "none" : secretMethod(server)),
        signingKey: preRegistered.signingKey
      }
    }
    if (options.clientMetadataUrl !== undefined && server.client_id_metadata_document_supported === true) {
      return { clientId: options.clientMetadataUrl, authMethod: "none" }
    }
    const store = yield* TokenStore
    const stored = yield* store.getClient(issuer)
    if (stored !== undefined) return stored
    const endpoint = server.registration_endpoint
    if (endpoint === undefined) {
      return yield* fail("The authorization server offers no registration and no pre-registered client is configured for it")
    }
    const method = registrationMethod(server, flow)
    const response = yield* http.execute(
      HttpClientRequest.post(endpoint, { acceptJson: true }).pipe(HttpClientRequest.bodyJsonUnsafe(clientMetadata(options, flow, method)))
    ).pipe(Effect.catch((error) => fail(`The registration endpoint could not be reached: ${error.message}`)))
    const body = yield* response.json.pipe(Effect.orElseSucceed((): unknown => undefined))
    if (response.status !== 201 && response.status !== 200) {
      const error = decodeError(body)
      return yield* fail(
        error._tag === "Some"
          ? `Registration refused: ${error.value.error}${error.value.error_description === undefined ? "" : ` (${error.value.error_description})`}`
          : `Registration answered ${response.status}`
      )
    }
    const information = decodeClient(body)
    if (information._tag === "None") return yield* fail("The registration response has no client_id")
    const registration: ClientRegistration = {
      clientId: information.value.client_id,
      clientSecret: information.value.client_secret,
      authMethod: information.value.token_endpoint_auth_method ??
        (information.value.client_secret === undefined ? "none" : method)
    }
    yield* store.setClient(issuer, registration)
    return registration
  })
