/**
 * An MCP server as an OAuth 2.1 resource server (MCP 2026-07-28 `basic/authorization`).
 *
 * One service, given by Layer on top of a {@link TokenVerifier}, that:
 *
 * - serves its Protected Resource Metadata (RFC 9728) at the path-suffixed well-known URI and, by
 *   default, at the root one ({@link layerMetadata}, GET, readable cross-origin);
 * - answers a request without a token **401** with `WWW-Authenticate: Bearer
 *   resource_metadata="…", scope="…"`, and one whose token is not valid here (bad signature,
 *   another issuer, expired, another audience: no token passthrough) **401** with
 *   `error="invalid_token"`; tokens are read from the `Authorization` header only, never from a
 *   query;
 * - gives every accepted request the verified `Principal` (id: the token's subject; claims: the
 *   token's claims, with `scopes` the granted scopes and `client_id` the client) and a `Grant`:
 *   a request, SSE response or listen stream still open when the token expires is ended (401
 *   before its first event, a terminal JSON-RPC error {@link unauthorizedCode} after), and an
 *   insufficient scope refusal of the `Scopes` policy is answered **403** with
 *   `error="insufficient_scope", scope="…"`;
 * - answers **503** when the authorization server cannot be reached to check a token.
 *
 * On `NodeServe` the check runs before the body is read ({@link layerServe}, or
 * {@link layerNodeServe} with your own routes); on a mounted route it is {@link middleware}.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import { Authorization } from "@snodo/core"
 * import * as JwtVerifier from "@snodo/oauth/JwtVerifier"
 * import * as ResourceServer from "@snodo/oauth/ResourceServer"
 * import * as Scopes from "@snodo/oauth/Scopes"
 *
 * const OAuth = ResourceServer.layer({ resource: "https://mcp.example.com/mcp", scopesSupported: ["mcp"] }).pipe(
 *   Layer.provide(JwtVerifier.layer({ issuer: "https://auth.example.com" })),
 *   Layer.provide(FetchHttpClient.layer)
 * )
 *
 * const Main = ResourceServer.layerServe({ port: 3000, host: "0.0.0.0", allowedHosts: ["mcp.example.com"] }).pipe(
 *   Layer.provide(OAuth),
 *   Layer.provide(Server.layer.pipe(Layer.provide(Authorization.layer(Scopes.requireScopes({ default: ["mcp"] })))))
 * )
 * ```
 *
 * @since 0.1.0
 */
import { Principal } from "@snodo/core"
import type { ConfigurationError } from "@snodo/core/ConfigurationError"
import type { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import * as Authentication from "@snodo/http/Authentication"
import * as NodeServe from "@snodo/http/NodeServe"
import * as Replies from "@snodo/http/Replies"
import type { CheckedHeaders } from "@snodo/http/RequestChecks"
import { Context, Effect, Layer, Schema } from "effect"
import { HttpRouter, type HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import type { ServeError } from "effect/http/HttpServerError"
import * as Challenge from "./Challenge.ts"
import * as Dpop from "./Dpop.ts"
import * as ResourceMetadata from "./ResourceMetadata.ts"
import * as Scopes from "./Scopes.ts"
import { type AccessToken, type InvalidToken, TokenVerifier } from "./TokenVerifier.ts"

/**
 * The JSON-RPC code of a 401 answer's body, and of the terminal error of a stream whose token
 * expired (in the -32000..-32019 range left to implementations).
 *
 * @category constants
 * @since 0.1.0
 */
export const unauthorizedCode = -32001

/**
 * What the resource server says about itself.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The server's canonical URI (`https://mcp.example.com/mcp`): what tokens must be issued for. */
  readonly resource: string
  /**
   * The audience tokens must name, when the provider cannot use `resource` (Entra ID v2 tokens name
   * the application id); default, and wherever possible, `resource` itself.
   */
  readonly audience?: string | undefined
  /** The scopes a client asks for to use the server at all; listed in the metadata. */
  readonly scopesSupported?: ReadonlyArray<string> | undefined
  /** The scopes named by the 401 challenge (default `scopesSupported`). */
  readonly challengeScopes?: ReadonlyArray<string> | undefined
  /** The authorization servers listed in the metadata (default: the verifier's issuer). */
  readonly authorizationServers?: ReadonlyArray<string> | undefined
  readonly resourceName?: string | undefined
  readonly resourceDocumentation?: string | undefined
  /**
   * Serve the metadata at `/.well-known/oauth-protected-resource` too, not only at the
   * path-suffixed URI (default true; turn it off when several resources share a host).
   */
  readonly rootMetadata?: boolean | undefined
  /**
   * Accept DPoP-bound access tokens (RFC 9449): `Authorization: DPoP <token>` with a proof checked
   * as `Dpop` says, optionally with server nonces, or only such tokens (`required`). Without it,
   * only `Bearer` tokens are read.
   */
  readonly dpop?: Dpop.Options | undefined
}

/**
 * @category services
 * @since 0.1.0
 */
export class ResourceServer extends Context.Service<ResourceServer, {
  /** The canonical resource URI. */
  readonly resource: string
  /** Where the metadata is, as challenges say. */
  readonly metadataUrl: string
  /** The paths the metadata is served at. */
  readonly metadataPaths: ReadonlyArray<`/${string}`>
  readonly document: ResourceMetadata.Document
  /**
   * Verifies the access token of a request head: the caller, or the answer to send instead. A DPoP
   * proof is checked against `target` (without it, a DPoP-bound token is refused).
   */
  readonly authenticate: (headers: CheckedHeaders, target?: Authentication.RequestTarget) => Effect.Effect<Authentication.Authenticated, Replies.Reply>
  /** The same, as `NodeServe`'s hook. */
  readonly authenticator: Authentication.Authenticator
}>()("@snodo/oauth/ResourceServer") {}

/** `Bearer <token68>` (RFC 6750 §2.1), or `DPoP <token68>` (RFC 9449 §7.1) when DPoP is on. */
const bearer = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*) *$/i
const bearerScheme = /^Bearer(?: |$)/i
const eitherScheme = /^(?:Bearer|DPoP)(?: |$)/i

const description = (error: InvalidToken): string => {
  switch (error.reason) {
    case "expired":
      return "The access token expired"
    case "audience":
      return "The access token was not issued for this resource"
    case "inactive":
      return "The access token is not active"
    default:
      return "The access token is not valid"
  }
}

const decodeInsufficient = Schema.decodeUnknownOption(Scopes.InsufficientScope)

/** The `error.data` of an encoded JSON-RPC error response. */
const errorData = (frame: string): unknown => {
  try {
    const parsed: unknown = JSON.parse(frame)
    if (typeof parsed !== "object" || parsed === null || !("error" in parsed)) return undefined
    const error = parsed.error
    return typeof error === "object" && error !== null && "data" in error ? error.data : undefined
  } catch {
    return undefined
  }
}

const checkScopes = (name: string, scopes: ReadonlyArray<string> | undefined) => {
  for (const scope of scopes ?? []) {
    if (!Challenge.isScopeToken(scope)) throw new TypeError(`${name}: not an OAuth scope: ${JSON.stringify(scope)}`)
  }
}

/**
 * Whom a verified token speaks for: a `user` (a resource owner, its `sub`), or a `client` acting
 * on its own behalf (no `sub`, or a `sub` that is the client itself, as client-credentials tokens
 * carry it: RFC 9068 §2.2).
 *
 * @category combinators
 * @since 0.1.0
 */
export const kindOf = (token: AccessToken): "user" | "client" => {
  const sub = token.claims["sub"]
  return typeof sub === "string" && sub !== "" && sub !== token.clientId ? "user" : "client"
}

/**
 * The principal id of a verified token: `<kind>:<issuer>#<subject>`, so that a client named like
 * a user is not that user, two issuers' subjects never meet, and no token is ever the
 * unauthenticated principal (`anonymous`, which has no `:`). In the issuer, `%` and `#` are
 * percent-encoded, so the id reads back unambiguously.
 *
 * @example
 * ```ts
 * import * as ResourceServer from "@snodo/oauth/ResourceServer"
 *
 * ResourceServer.principalId("user", "https://auth.example.com", "alice")   // "user:https://auth.example.com#alice"
 * ResourceServer.principalId("client", "https://auth.example.com", "alice") // "client:https://auth.example.com#alice"
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const principalId = (kind: "user" | "client", issuer: string, subject: string): string =>
  `${kind}:${issuer.replaceAll("%", "%25").replaceAll("#", "%23")}#${subject}`

/**
 * The principal of a verified token: its id namespaced by kind and issuer ({@link principalId}),
 * its claims the verified ones with `scopes` (and `client_id`).
 *
 * @category combinators
 * @since 0.1.0
 */
export const principalOf = (token: AccessToken): Principal.Principal["Service"] =>
  Principal.Principal.of({
    id: principalId(kindOf(token), token.issuer, token.subject),
    claims: token.clientId === undefined
      ? { ...token.claims, scopes: token.scopes }
      : { ...token.claims, client_id: token.clientId, scopes: token.scopes }
  })

/**
 * Builds the resource server on the `TokenVerifier` in context; throws a `TypeError` for a
 * resource that cannot be a canonical URI or a scope that is not a scope token.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(options: Options): Effect.fn.Return<ResourceServer["Service"], never, TokenVerifier> {
  const verifier = yield* TokenVerifier
  checkScopes("scopesSupported", options.scopesSupported)
  checkScopes("challengeScopes", options.challengeScopes)
  const resource = ResourceMetadata.canonical(options.resource)
  const metadataUrl = ResourceMetadata.metadataUrl(resource)
  const suffixed = ResourceMetadata.metadataPath(resource)
  const metadataPaths: ReadonlyArray<`/${string}`> = options.rootMetadata === false || suffixed === ResourceMetadata.wellKnown
    ? [suffixed]
    : [suffixed, ResourceMetadata.wellKnown]
  const document = ResourceMetadata.document({
    resource,
    authorizationServers: options.authorizationServers ?? [verifier.issuer],
    scopesSupported: options.scopesSupported,
    resourceName: options.resourceName,
    resourceDocumentation: options.resourceDocumentation
  })
  const challengeScopes = options.challengeScopes ?? options.scopesSupported
  const audience = options.audience ?? resource

  const dpop = options.dpop === undefined ? undefined : yield* Dpop.make(options.dpop)
  /** Challenges name DPoP (with its algorithms) when only DPoP-bound tokens are accepted. */
  const scheme = dpop?.required === true ? { scheme: "DPoP" as const, algs: dpop.algorithms } : {}
  const schemePattern = dpop === undefined ? bearerScheme : eitherScheme
  const origin = new URL(resource).origin

  const unauthorized = (message: string, challenge: Challenge.Challenge, headers: Record<string, string> = {}): Replies.Reply =>
    Replies.refuse(401, unauthorizedCode, `Unauthorized: ${message}`, { ...headers, "www-authenticate": Challenge.format(challenge) })
  const missing = unauthorized("this server needs an OAuth access token", { ...scheme, resourceMetadata: metadataUrl, scope: challengeScopes })
  const malformed = unauthorized("the access token is not valid", {
    ...scheme,
    resourceMetadata: metadataUrl,
    error: "invalid_token",
    errorDescription: "The access token is not valid"
  })
  const invalid = (error: InvalidToken) =>
    unauthorized(error.message, { ...scheme, resourceMetadata: metadataUrl, error: "invalid_token", errorDescription: description(error) })
  const misbound = (errorDescription: string) =>
    unauthorized(errorDescription, { ...scheme, resourceMetadata: metadataUrl, error: "invalid_token", errorDescription })
  const proofRefused = (refusal: Dpop.Refusal, nonce: string | undefined) =>
    unauthorized(
      refusal.description,
      { scheme: "DPoP", algs: dpop?.algorithms, resourceMetadata: metadataUrl, error: refusal.error, errorDescription: refusal.description },
      nonce === undefined ? {} : { "dpop-nonce": nonce }
    )
  const unavailable = Replies.refuse(503, -32603, "Authorization server unavailable: the access token cannot be checked now", { "retry-after": "5" })

  const lapse: Authentication.Lapse = {
    status: 401,
    headers: {
      "www-authenticate": Challenge.format({ ...scheme, resourceMetadata: metadataUrl, error: "invalid_token", errorDescription: "The access token expired" })
    },
    error: { code: unauthorizedCode, message: "Unauthorized: the access token expired" }
  }

  const answer = (outcome: Authentication.ErrorOutcome): Replies.Reply | undefined => {
    if (outcome.code !== Scopes.insufficientScopeCode) return undefined
    const data = decodeInsufficient(errorData(outcome.frame))
    if (data._tag === "None") return undefined
    const challenge = Challenge.format({
      ...scheme,
      resourceMetadata: metadataUrl,
      error: "insufficient_scope",
      scope: data.value.scope.split(" ").filter((scope) => scope !== ""),
      errorDescription: "The access token lacks a scope this operation needs"
    })
    return Replies.json(outcome.frame, 403, { "www-authenticate": challenge })
  }

  /** A DPoP checker's verdict on a verified token: it succeeds to accept it, fails with the answer. */
  const checkBinding = (
    checker: Dpop.Checker,
    headers: CheckedHeaders,
    target: Authentication.RequestTarget | undefined,
    presented: { readonly scheme: string; readonly token: string },
    token: AccessToken
  ): Effect.Effect<void, Replies.Reply> => {
    const jkt = Dpop.boundThumbprint(token.claims)
    if (presented.scheme.toLowerCase() === "bearer") {
      if (jkt !== undefined) return Effect.fail(misbound("The access token is DPoP-bound: present it with the DPoP scheme and a proof"))
      return checker.required ? Effect.fail(misbound("This server accepts DPoP-bound access tokens only")) : Effect.void
    }
    if (jkt === undefined) return Effect.fail(misbound("The access token is not DPoP-bound: present it with the Bearer scheme"))
    if (target === undefined) return Effect.fail(proofRefused({ error: "invalid_dpop_proof", description: "The request's URI is unknown" }, undefined))
    const path = URL.canParse(target.path) ? new URL(target.path).pathname : target.path
    return checker.verify(headers["dpop"], { method: target.method, url: `${origin}${path}`, accessToken: presented.token, jkt }).pipe(
      Effect.catch((refusal) =>
        Effect.flatMap(
          refusal.error === "use_dpop_nonce" ? checker.currentNonce : Effect.succeed(undefined),
          (nonce) => Effect.fail(proofRefused(refusal, nonce))
        )
      )
    )
  }

  const authenticate = (headers: CheckedHeaders, target?: Authentication.RequestTarget): Effect.Effect<Authentication.Authenticated, Replies.Reply> => {
    const header = headers["authorization"]
    if (header === undefined || (typeof header === "string" && !schemePattern.test(header))) return Effect.fail(missing)
    const match = typeof header === "string" ? bearer.exec(header) : null
    if (match === null || (dpop === undefined && match[1]!.toLowerCase() !== "bearer")) return Effect.fail(malformed)
    const presented = { scheme: match[1]!, token: match[2]! }
    return verifier.verify(presented.token, audience).pipe(
      Effect.catchTags({
        InvalidToken: (error) => Effect.fail(invalid(error)),
        VerifierUnavailable: (error) =>
          Effect.andThen(Effect.logWarning("OAuth: cannot verify an access token", error.message), Effect.fail(unavailable))
      }),
      Effect.tap((token) => dpop === undefined ? Effect.void : checkBinding(dpop, headers, target, presented, token)),
      Effect.map((token): Authentication.Authenticated => ({
        principal: principalOf(token),
        grant: { expiresAt: token.expiresAt, lapse, answer }
      }))
    )
  }

  return ResourceServer.of({ resource, metadataUrl, metadataPaths, document, authenticate, authenticator: { authenticate } })
})

/**
 * The resource server as a Layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<ResourceServer, never, TokenVerifier> => Layer.effect(ResourceServer, make(options))

/**
 * The Effect HTTP middleware of a mounted MCP route: it answers a request without a valid token
 * (before the route reads anything) and provides the `Principal` and `Grant` of an accepted one.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import * as McpHttp from "@snodo/http/McpHttp"
 * import * as ResourceServer from "@snodo/oauth/ResourceServer"
 *
 * const Routes = Layer.mergeAll(
 *   McpHttp.layerRoute({ path: "/mcp" }).pipe(Layer.provide(ResourceServer.middleware.layer)),
 *   ResourceServer.layerMetadata
 * )
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const middleware = HttpRouter.middleware<{ provides: Principal.Principal | Authentication.Grant }>()(
  Effect.map(Effect.service(ResourceServer), (server) => (httpEffect) =>
    Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) =>
      Effect.matchEffect(server.authenticate(request.headers, { method: request.method, path: request.originalUrl }), {
        onFailure: (reply) => Effect.succeed(Replies.toResponse(reply)),
        onSuccess: ({ grant, principal }) => {
          const authenticated = Effect.provideService(httpEffect, Principal.Principal, principal)
          return grant === undefined
            ? Effect.provideService(authenticated, Authentication.Grant, Authentication.Grant.of(noGrant))
            : Effect.provideService(authenticated, Authentication.Grant, grant)
        }
      })))
)

/** A grant that never lapses and maps nothing (a verifier that says nothing about expiry). */
const noGrant: Authentication.Grant["Service"] = {
  expiresAt: undefined,
  lapse: { status: 401, headers: {}, error: { code: unauthorizedCode, message: "Unauthorized" } },
  answer: () => undefined
}

/**
 * The metadata routes (`GET`, and `OPTIONS` for browsers' preflight) for your `HttpRouter`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMetadata: Layer.Layer<never, never, HttpRouter.HttpRouter | ResourceServer> = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const server = yield* ResourceServer
    const cors = { "access-control-allow-origin": "*" }
    const document = HttpServerResponse.text(JSON.stringify(server.document), { contentType: "application/json", headers: cors })
    const preflight = HttpServerResponse.empty({
      status: 204,
      headers: { ...cors, "access-control-allow-methods": "GET", "access-control-allow-headers": "mcp-protocol-version" }
    })
    for (const path of server.metadataPaths) {
      yield* router.add("GET", path, document)
      yield* router.add("OPTIONS", path, preflight)
    }
  })
)

/**
 * `NodeServe` with the resource server's check before every request body; serve your own routes
 * on it (with {@link layerMetadata} among them).
 *
 * @category layers
 * @since 0.1.0
 */
export const layerNodeServe = (
  options?: NodeServe.ServeOptions
): Layer.Layer<HttpServer.HttpServer, ServeError | ConfigurationError, ServerRuntime | ResourceServer> =>
  Layer.unwrap(Effect.map(Effect.service(ResourceServer), (server) => NodeServe.layer({ ...options, authenticate: server.authenticator })))

/**
 * `NodeServe` with the resource server's check before every request body, and its metadata
 * served next to the MCP endpoint.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerServe = (
  options?: NodeServe.ServeOptions
): Layer.Layer<HttpServer.HttpServer, ServeError | ConfigurationError, ServerRuntime | ResourceServer> =>
  HttpRouter.serve(layerMetadata, { disableLogger: true, disableListenLog: true }).pipe(Layer.provideMerge(layerNodeServe(options)))
