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
 *   the challenged ones, and retries once. Each distinct scope set is authorized at most once per
 *   step-up window (`stepUp.windowMs`, 5 minutes): a server that still refuses a set the client
 *   was just authorized for fails the request with `StepUpError` (`repeated`) instead of sending
 *   the user through the flow again, and a set larger than `stepUp.maxScopes` (32) fails with
 *   `StepUpError` (`too_many_scopes`), so a hostile server cannot grow the request without bound.
 * - An access token past its `expires_in` is refreshed before it is sent.
 *
 * The grants: the authorization code grant (with PKCE, for a user), the client credentials grant
 * (a machine client, authenticated by a secret or by `private_key_jwt`, see `ClientAssertion`),
 * and the JWT bearer grant (RFC 7523) with an assertion the application supplies: a workload
 * identity token, or an enterprise IdP's ID-JAG (see `TokenExchange`). With a `dpop` key (RFC
 * 9449, see `Dpop`) every token request and every MCP request carries a fresh proof, a `DPoP`
 * token is sent as `Authorization: DPoP …`, and servers' `use_dpop_nonce` challenges are answered.
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
import * as Dpop from "./Dpop.ts"
import { type OAuthError, RegistrationError, StepUpError, TokenRequestError } from "./OAuthError.ts"
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
  /**
   * Sender-constrain tokens with this DPoP key (RFC 9449). The application chooses the key (see
   * `Dpop.generate` and `Dpop.fromKeyPair`); without it tokens are Bearer tokens.
   */
  readonly dpop?: Dpop.DpopKey | undefined
  /** Bounds of step-up authorization (403 `insufficient_scope`). */
  readonly stepUp?: StepUpOptions | undefined
}

/**
 * @category models
 * @since 0.1.0
 */
export interface StepUpOptions {
  /** A scope set authorized within this window is not authorized again on a 403 (default 5 minutes). */
  readonly windowMs?: number | undefined
  /** The most scopes a step-up asks for (default 32). */
  readonly maxScopes?: number | undefined
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
    const dpop = options.dpop === undefined ? undefined : { key: options.dpop, nonces: Dpop.makeNonceCache() }
    const stepUpWindow = options.stepUp?.windowMs ?? 300_000
    const maxScopes = options.stepUp?.maxScopes ?? 32
    /** When each scope set (by server) was last authorized: step-up asks for a set once per window. */
    const authorizedAt = new Map<string, number>()
    const scopeKey = (serverUrl: string, scope: ReadonlyArray<string>) => `${serverUrl} ${[...scope].toSorted().join(" ")}`
    const remember = (key: string, now: number) => {
      for (const [entry, at] of authorizedAt) if (now - at >= stepUpWindow) authorizedAt.delete(entry)
      authorizedAt.delete(key)
      authorizedAt.set(key, now)
      if (authorizedAt.size > 1024) authorizedAt.delete(authorizedAt.keys().next().value!)
    }

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
          resource,
          tokenType: response.token_type.toLowerCase() === "dpop" ? "DPoP" : "Bearer"
        }))

      const refresh = (serverUrl: string, tokens: Tokens) =>
        Effect.gen(function*() {
          const server = yield* serverMetadata(tokens.issuer)
          const registration = yield* Registration.resolve(http, server, options, flow)
          const response = yield* TokenEndpoint.request(http, {
            tokenEndpoint: yield* tokenEndpointOf(server),
            client: registration,
            issuer: server.issuer,
            dpop,
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
          if (registration.authMethod === "none") {
            return yield* new RegistrationError({
              issuer: server.issuer,
              message: "The client credentials grant needs client authentication: a client secret or a private_key_jwt signing key"
            })
          }
          return yield* TokenEndpoint.request(http, {
            tokenEndpoint: yield* tokenEndpointOf(server),
            client: registration,
            issuer: server.issuer,
            dpop,
            params: {
              grant_type: "client_credentials",
              resource,
              ...(scope.length > 0 ? { scope: scope.join(" ") } : {})
            }
          })
        })

      const jwtBearer = (
        server: Metadata.AuthorizationServerMetadata,
        registration: ClientRegistration,
        scope: ReadonlyArray<string>,
        resource: string,
        grant: Registration.JwtBearerFlow
      ) =>
        Effect.gen(function*() {
          const tokenEndpoint = yield* tokenEndpointOf(server)
          const assertion = yield* grant.assertion({ issuer: server.issuer, tokenEndpoint, resource, scope, http })
          return yield* TokenEndpoint.request(http, {
            tokenEndpoint,
            client: registration,
            issuer: server.issuer,
            dpop,
            params: {
              grant_type: Registration.jwtBearerGrantType,
              assertion,
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
          const now = yield* Clock.currentTimeMillis
          const key = scopeKey(serverUrl, scope)
          if (stepUp) {
            if (scope.length > maxScopes) {
              return yield* new StepUpError({
                reason: "too_many_scopes",
                serverUrl,
                scope,
                message: `Step-up for ${serverUrl} would ask for ${scope.length} scopes, more than the bound of ${maxScopes}`
              })
            }
            const last = authorizedAt.get(key)
            if (last !== undefined && now - last < stepUpWindow) {
              return yield* new StepUpError({
                reason: "repeated",
                serverUrl,
                scope,
                message: `${serverUrl} still answers 403 insufficient_scope${
                  challenge.scope === undefined ? "" : ` (scope "${challenge.scope.join(" ")}")`
                } although this client was authorized for "${scope.join(" ")}" ${Math.round((now - last) / 1000)} s ago`
              })
            }
          }
          remember(key, now)
          const registration = yield* Registration.resolve(http, server, options, flow)
          const response = flow.grant === "authorization_code"
            ? yield* AuthorizationCode.run(http, { server, client: registration, redirectUri: flow.redirectUri, scope, resource: canonical, dpop }).pipe(
              Effect.provide(prompt)
            )
            : flow.grant === "jwt_bearer"
            ? yield* jwtBearer(server, registration, scope, canonical, flow)
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

      /** The request with its credentials: a Bearer token, or a DPoP-bound token and a fresh proof. */
      const authenticate = (request: HttpClientRequest.HttpClientRequest, tokens: Tokens | undefined) =>
        Effect.gen(function*() {
          if (tokens === undefined) return request
          if (tokens.tokenType !== "DPoP" || dpop === undefined) return HttpClientRequest.bearerToken(request, tokens.accessToken)
          const proof = yield* Dpop.proof(dpop.key, {
            method: request.method,
            url: request.url,
            accessToken: tokens.accessToken,
            nonce: dpop.nonces.get(request.url)
          })
          return HttpClientRequest.setHeaders(request, { authorization: `DPoP ${tokens.accessToken}`, dpop: proof })
        })

      /** Sends once; a resource server's DPoP nonce (on any answer) is kept for the next proofs. */
      const sendOnce = (request: HttpClientRequest.HttpClientRequest, tokens: Tokens | undefined) =>
        Effect.gen(function*() {
          const response = yield* client.execute(yield* authenticate(request, tokens))
          const nonce = response.headers["dpop-nonce"]
          if (dpop !== undefined && nonce !== undefined) dpop.nonces.set(request.url, nonce)
          return response
        })

      /** Sends, answering one `use_dpop_nonce` challenge (RFC 9449 §9) with a proof carrying the nonce. */
      const send = (request: HttpClientRequest.HttpClientRequest, tokens: Tokens | undefined) =>
        Effect.flatMap(sendOnce(request, tokens), (response) =>
          dpop !== undefined && tokens?.tokenType === "DPoP" && Dpop.isNonceChallenge(response.status, response.headers)
            ? sendOnce(request, tokens)
            : Effect.succeed(response))

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
            } else if (response.status === 403 && challenge.error === "insufficient_scope") {
              if (steppedUp) {
                return yield* new StepUpError({
                  reason: "repeated",
                  serverUrl,
                  scope: tokens?.scope ?? [],
                  message: `${serverUrl} still answers 403 insufficient_scope after step-up authorization for "${(tokens?.scope ?? []).join(" ")}"`
                })
              }
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
