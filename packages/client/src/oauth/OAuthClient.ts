/**
 * The OAuth 2.1 client of the MCP authorization spec (2026-07-28) as a wrapper of an `effect/http`
 * `HttpClient`: every request to the MCP server carries `Authorization: Bearer …`, and the wrapper
 * answers the server's challenges itself.
 *
 * - **401**: reads `WWW-Authenticate` (`resource_metadata`, `scope`), discovers the Protected
 *   Resource Metadata and the authorization server's metadata (see `Discovery`), refreshes the
 *   token when the server is the one that issued it and a refresh token is held, else registers
 *   (see `Registration`) and runs the flow: the authorization code grant with PKCE `S256`, the
 *   user's step through the `AuthorizationPrompt` service, `state` and RFC 9207 `iss` checked; or
 *   the client credentials grant. Then the request is sent once more.
 * - **403 `insufficient_scope`**: step-up: authorizes again for the union of the scopes held and
 *   the challenged ones, and retries once; a second refusal is returned as it is.
 * - An access token past its `expires_in` is refreshed before it is sent.
 *
 * Scopes follow the spec's selection strategy: the challenge's `scope`, else the resource's
 * `scopes_supported`, else the `scope` option, else none; `offline_access` is added to the
 * authorization code flow when the authorization server lists it. Every authorization and token
 * request names the resource (RFC 8707) from the validated metadata. Authorizations of one wrapper
 * run one at a time, so concurrent 401s share one flow.
 *
 * `wrap` keeps the OAuth errors in the error channel; `layer` replaces the context's `HttpClient`
 * (for a transport that reads it) and carries them as the `cause` of an `HttpClientError`.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import * as AuthorizationPrompt from "@snodo/client/oauth/AuthorizationPrompt"
 * import * as OAuthClient from "@snodo/client/oauth/OAuthClient"
 * import * as TokenStore from "@snodo/client/oauth/TokenStore"
 *
 * declare const Browser: Layer.Layer<AuthorizationPrompt.AuthorizationPrompt>
 *
 * const Authorized = OAuthClient.layer({
 *   clientName: "my-agent",
 *   flow: { grant: "authorization_code", redirectUri: "http://127.0.0.1:8765/callback" },
 *   clientMetadataUrl: "https://agent.example.com/oauth/client.json"
 * }).pipe(Layer.provide([FetchHttpClient.layer, TokenStore.layerMemory, Browser]))
 * ```
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer, Option, Schema, Semaphore } from "effect"
import { HttpClient, HttpClientError, HttpClientRequest, type HttpClientResponse } from "effect/http"
import { AuthorizationPrompt } from "./AuthorizationPrompt.ts"
import * as Discovery from "./Discovery.ts"
import * as Metadata from "./Metadata.ts"
import * as AuthorizationCode from "./AuthorizationCode.ts"
import { type OAuthError, RegistrationError, TokenRequestError } from "./OAuthError.ts"
import * as Registration from "./Registration.ts"
import * as TokenEndpoint from "./TokenEndpoint.ts"
import * as WwwAuthenticate from "./WwwAuthenticate.ts"
import { type ClientRegistration, type Tokens, TokenStore } from "./TokenStore.ts"

/**
 * @category models
 * @since 0.1.0
 */
export interface Options extends Registration.Options {
  readonly flow: Registration.Flow
  /** Scopes to ask for when neither the challenge nor the resource metadata names any. */
  readonly scope?: ReadonlyArray<string> | undefined
  /** Add `offline_access` when the authorization server lists it (default `true`). */
  readonly offlineAccess?: boolean | undefined
  /** Refresh a token this long before it expires (default 30 seconds). */
  readonly refreshLeewayMs?: number | undefined
}

/**
 * The options do not describe a client that can work (a CIMD URL that is not `https` with a path,
 * a redirect URI that is not absolute).
 *
 * @category errors
 * @since 0.1.0
 */
export class OAuthConfigError extends Schema.TaggedError<OAuthConfigError>()("OAuthConfigError", {
  message: Schema.String
}) {}

/**
 * @category models
 * @since 0.1.0
 */
export interface OAuthClient {
  /** `client` with authorization: its requests carry tokens, its 401/403 answers run the flow. */
  readonly wrap: <E>(client: HttpClient.HttpClient.With<E>) => HttpClient.HttpClient.With<E | OAuthError>
}

const union = (a: ReadonlyArray<string>, b: ReadonlyArray<string> | undefined): ReadonlyArray<string> => [
  ...new Set([...a, ...(b ?? [])])
]

/**
 * Builds the OAuth client. The `TokenStore` is required; an `AuthorizationPrompt` is used when the
 * flow is the authorization code grant (its absence fails that step with a typed error).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options): Effect.Effect<OAuthClient, OAuthConfigError, TokenStore> =>
  Effect.gen(function*() {
    if (options.clientMetadataUrl !== undefined && !Registration.isClientIdUrl(options.clientMetadataUrl)) {
      return yield* new OAuthConfigError({ message: `A client metadata URL is https with a path: ${options.clientMetadataUrl}` })
    }
    if (options.flow.grant === "authorization_code" && !URL.canParse(options.flow.redirectUri)) {
      return yield* new OAuthConfigError({ message: `The redirect URI is not an absolute URL: ${options.flow.redirectUri}` })
    }
    const store = yield* TokenStore
    // The prompt is looked up once, when the client is built, and handed to each authorization.
    const prompt = Option.match(yield* Effect.serviceOption(AuthorizationPrompt), {
      onNone: () => Context.empty(),
      onSome: (service) => Context.make(AuthorizationPrompt, service)
    })
    const context = Context.make(TokenStore, store)
    const lock = yield* Semaphore.make(1)
    const servers = new Map<string, Metadata.AuthorizationServerMetadata>()
    const leeway = options.refreshLeewayMs ?? 30_000
    const flow = options.flow

    const wrap = <E>(client: HttpClient.HttpClient.With<E>): HttpClient.HttpClient.With<E | OAuthError> => {
      // The flow's own requests (metadata, registration, tokens) go out through the same client,
      // without authorization; their failures are the flow's typed errors.
      const http = HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
        (request) =>
          Effect.flatMap(request, (req) =>
            Effect.mapError(client.execute(req), (cause) =>
              HttpClientError.isHttpClientError(cause)
                ? cause
                : new HttpClientError.HttpClientError({ reason: new HttpClientError.TransportError({ request: req, cause }) }))),
        Effect.succeed
      )

      const serverMetadata = (issuer: string) =>
        Effect.suspend(() => {
          const cached = servers.get(issuer)
          if (cached !== undefined) return Effect.succeed(cached)
          return Effect.tap(Discovery.authorizationServer(http, issuer), (metadata) => Effect.sync(() => servers.set(issuer, metadata)))
        })

      const toTokens = (
        response: Metadata.TokenResponse,
        issuer: string,
        resource: string,
        requested: ReadonlyArray<string>,
        previous?: Tokens
      ) =>
        Effect.map(Clock.currentTimeMillis, (now): Tokens => ({
          accessToken: response.access_token,
          refreshToken: response.refresh_token ?? previous?.refreshToken,
          expiresAt: response.expires_in === undefined ? undefined : now + response.expires_in * 1000,
          scope: union(requested, response.scope?.split(" ").filter((s) => s !== "")),
          issuer,
          resource
        }))

      const refresh = (serverUrl: string, tokens: Tokens) =>
        Effect.gen(function*() {
          const server = yield* serverMetadata(tokens.issuer)
          const registration = yield* Registration.resolve(http, server, options, flow)
          const response = yield* TokenEndpoint.request(http, {
            tokenEndpoint: yield* tokenEndpointOf(server),
            client: registration,
            params: { grant_type: "refresh_token", refresh_token: tokens.refreshToken ?? "", resource: tokens.resource }
          })
          const refreshed = yield* toTokens(response, tokens.issuer, tokens.resource, tokens.scope, tokens)
          yield* store.setTokens(serverUrl, refreshed)
          return refreshed
        })

      const clientCredentials = (
        server: Metadata.AuthorizationServerMetadata,
        registration: ClientRegistration,
        scope: ReadonlyArray<string>,
        resource: string
      ) =>
        Effect.gen(function*() {
          if (registration.clientSecret === undefined) {
            return yield* new RegistrationError({ issuer: server.issuer, message: "The client credentials grant needs a client secret" })
          }
          return yield* TokenEndpoint.request(http, {
            tokenEndpoint: yield* tokenEndpointOf(server),
            client: registration,
            params: {
              grant_type: "client_credentials",
              resource,
              ...(scope.length > 0 ? { scope: scope.join(" ") } : {})
            }
          })
        })

      /** The 401/403 path: discovery, then refresh or a new grant; stores and returns the tokens. */
      const authorize = (
        serverUrl: string,
        challenge: WwwAuthenticate.BearerChallenge,
        held: Tokens | undefined,
        stepUp: boolean
      ) =>
        Effect.gen(function*() {
          const resource = yield* Discovery.protectedResource(http, serverUrl, challenge.resourceMetadata)
          const server = yield* Discovery.authorizationServer(http, resource.issuer)
          servers.set(server.issuer, server)
          const canonical = resource.metadata.resource
          const sameServer = held !== undefined && held.issuer === server.issuer
          if (!stepUp && sameServer && held.refreshToken !== undefined && held.resource === canonical) {
            const refreshed = yield* refresh(serverUrl, held).pipe(Effect.option)
            if (Option.isSome(refreshed)) return refreshed.value
          }
          const selected = challenge.scope ?? resource.metadata.scopes_supported ?? options.scope ?? []
          const base = stepUp && sameServer ? union(held.scope, selected) : selected
          const scope = flow.grant === "authorization_code" && options.offlineAccess !== false &&
              server.scopes_supported?.includes("offline_access") === true
            ? union(base, ["offline_access"])
            : base
          const registration = yield* Registration.resolve(http, server, options, flow)
          const response = flow.grant === "authorization_code"
            ? yield* AuthorizationCode.run(http, { server, client: registration, redirectUri: flow.redirectUri, scope, resource: canonical }).pipe(
              Effect.provide(prompt)
            )
            : yield* clientCredentials(server, registration, scope, canonical)
          const tokens = yield* toTokens(response, server.issuer, canonical, scope)
          yield* store.setTokens(serverUrl, tokens)
          return tokens
        })

      /** Tokens to send now: the stored ones, refreshed first when they are about to expire. */
      const current = (serverUrl: string) =>
        Effect.gen(function*() {
          const tokens = yield* store.getTokens(serverUrl)
          if (tokens === undefined || tokens.expiresAt === undefined) return tokens
          const now = yield* Clock.currentTimeMillis
          if (tokens.expiresAt - leeway > now) return tokens
          if (tokens.refreshToken === undefined) {
            yield* store.removeTokens(serverUrl)
            return undefined
          }
          const refreshed = yield* lock.withPermits(1)(
            refresh(serverUrl, tokens).pipe(Effect.option)
          )
          if (Option.isSome(refreshed)) return refreshed.value
          yield* store.removeTokens(serverUrl)
          return undefined
        })

      /** Runs `authorize` unless another fiber stored new tokens while this one waited. */
      const reauthorize = (serverUrl: string, challenge: WwwAuthenticate.BearerChallenge, used: Tokens | undefined, stepUp: boolean) =>
        lock.withPermits(1)(
          Effect.gen(function*() {
            const stored = yield* store.getTokens(serverUrl)
            if (stored !== undefined && stored.accessToken !== used?.accessToken) {
              const covers = !stepUp || (challenge.scope ?? []).every((scope) => stored.scope.includes(scope))
              if (covers) return stored
            }
            return yield* authorize(serverUrl, challenge, used ?? stored, stepUp)
          })
        )

      const send = (request: HttpClientRequest.HttpClientRequest, tokens: Tokens | undefined) =>
        client.execute(tokens === undefined ? request : HttpClientRequest.bearerToken(request, tokens.accessToken))

      const handle = (request: HttpClientRequest.HttpClientRequest) =>
        Effect.gen(function*() {
          const serverUrl = Metadata.resourceOf(request.url)
          let tokens = yield* current(serverUrl)
          let response: HttpClientResponse.HttpClientResponse = yield* send(request, tokens)
          let authorized = false
          let steppedUp = false
          for (;;) {
            const challenge = WwwAuthenticate.parse(response.headers["www-authenticate"])
            if (response.status === 401 && !authorized) {
              authorized = true
              tokens = yield* reauthorize(serverUrl, challenge, tokens, false)
            } else if (response.status === 403 && challenge.error === "insufficient_scope" && !steppedUp) {
              steppedUp = true
              tokens = yield* reauthorize(serverUrl, challenge, tokens, true)
            } else {
              return response
            }
            response = yield* send(request, tokens)
          }
        }).pipe(Effect.provide(context))

      return HttpClient.makeWith<never, never, E | OAuthError, never>((request) => Effect.flatMap(request, handle), Effect.succeed)
    }

    return { wrap }
  })

const tokenEndpointOf = (server: Metadata.AuthorizationServerMetadata) =>
  server.token_endpoint === undefined
    ? Effect.fail(new TokenRequestError({ grantType: "any", message: `${server.issuer} advertises no token_endpoint` }))
    : Effect.succeed(server.token_endpoint)

/**
 * The context's `HttpClient`, replaced by itself wrapped with `options`. OAuth failures become
 * `HttpClientError`s (a `TransportError` whose `cause` is the OAuth error; see
 * `OAuthError.fromCause`), as the service's type requires.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<HttpClient.HttpClient, OAuthConfigError, HttpClient.HttpClient | TokenStore> =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.gen(function*() {
      const inner = yield* HttpClient.HttpClient
      const oauth = yield* make(options)
      const wrapped = oauth.wrap(inner)
      return HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
        (request) =>
          Effect.flatMap(request, (req) =>
            wrapped.execute(req).pipe(
              Effect.catchIf(
                (error): error is OAuthError => !HttpClientError.isHttpClientError(error),
                (error) =>
                  Effect.fail(
                    new HttpClientError.HttpClientError({
                      reason: new HttpClientError.TransportError({ request: req, cause: error, description: error.message })
                    })
                  )
              )
            )),
        Effect.succeed
      )
    })
  )
