/**
 * The two discovery steps of the MCP authorization spec (2026-07-28, "Authorization Server
 * Discovery"), each with the validation the spec asks of a client:
 *
 * 1. `protectedResource`: Protected Resource Metadata (RFC 9728) from the `resource_metadata` URL of
 *    the challenge when there is one, else from the well-known URIs in the spec's order (path-suffixed
 *    first, then the root). The document's `resource` must name the server the client talks to (its
 *    URL or a parent path on the same origin), and it must list at least one authorization server,
 *    each an `https` (or loopback) URL.
 * 2. `authorizationServer`: metadata of an issuer from RFC 8414 and OpenID Connect Discovery
 *    well-known URLs in the spec's order (path insertion, then OIDC path insertion, then OIDC path
 *    appending for an issuer with a path; the two root forms otherwise). A document whose `issuer` is
 *    not identical to the issuer the URL was built from is not used (RFC 8414 §3.3); every endpoint
 *    must be `https` (or loopback).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpClient } from "effect/http"
 * import * as Discovery from "@snodo/client/oauth/Discovery"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* HttpClient.HttpClient
 *   const resource = yield* Discovery.protectedResource(client, "https://mcp.example.com/mcp")
 *   return yield* Discovery.authorizationServer(client, resource.metadata.authorization_servers![0]!)
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import * as Metadata from "./Metadata.ts"
import { AuthorizationServerMetadataError, ResourceMetadataError } from "./OAuthError.ts"

/**
 * A Protected Resource Metadata document and where it was found.
 *
 * @category models
 * @since 0.1.0
 */
export interface ProtectedResource {
  readonly url: string
  readonly metadata: Metadata.ProtectedResourceMetadata
  /** The first authorization server listed: the one the client uses. */
  readonly issuer: string
}

/** GET a JSON document: `undefined` when the server has none there (any non-2xx, or no connection). */
const getJson = (client: HttpClient.HttpClient, url: string) =>
  client.execute(HttpClientRequest.get(url, { acceptJson: true })).pipe(
    Effect.flatMap((response) => response.status >= 200 && response.status < 300 ? response.json : Effect.succeed(undefined)),
    Effect.orElseSucceed(() => undefined)
  )

/**
 * The well-known Protected Resource Metadata URLs of a server URL, in the order the spec gives.
 *
 * @category combinators
 * @since 0.1.0
 */
export const protectedResourceUrls = (serverUrl: string): ReadonlyArray<string> => {
  const url = new URL(serverUrl)
  const path = url.pathname.endsWith("/") ? url.pathname.slice(0, -1) : url.pathname
  const root = `${url.origin}/.well-known/oauth-protected-resource`
  return path === "" ? [root] : [`${root}${path}`, root]
}

/**
 * The well-known authorization server metadata URLs of an issuer, in the order the spec gives.
 *
 * @category combinators
 * @since 0.1.0
 */
export const authorizationServerUrls = (issuer: string): ReadonlyArray<string> => {
  const url = new URL(issuer)
  const path = url.pathname.endsWith("/") ? url.pathname.slice(0, -1) : url.pathname
  return path === ""
    ? [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`]
    : [
      `${url.origin}/.well-known/oauth-authorization-server${path}`,
      `${url.origin}/.well-known/openid-configuration${path}`,
      `${url.origin}${path}/.well-known/openid-configuration`
    ]
}

const decodeResource = Schema.decodeUnknownOption(Metadata.ProtectedResourceMetadata)
const decodeServer = Schema.decodeUnknownOption(Metadata.AuthorizationServerMetadata)

/**
 * Finds and validates the Protected Resource Metadata of `serverUrl`.
 *
 * @category discovery
 * @since 0.1.0
 */
export const protectedResource = (
  client: HttpClient.HttpClient,
  serverUrl: string,
  resourceMetadataUrl?: string | undefined
): Effect.Effect<ProtectedResource, ResourceMetadataError> =>
  Effect.gen(function*() {
    const candidates = resourceMetadataUrl !== undefined ? [resourceMetadataUrl] : protectedResourceUrls(serverUrl)
    const tried: Array<string> = []
    const fail = (message: string) => Effect.fail(new ResourceMetadataError({ serverUrl, tried, message }))
    for (const url of candidates) {
      if (!Metadata.isSecureUrl(url)) return yield* fail(`The resource metadata URL ${url} is neither https nor loopback`)
      tried.push(url)
      const body = yield* getJson(client, url)
      if (body === undefined) continue
      const decoded = decodeResource(body)
      if (decoded._tag === "None") return yield* fail(`The document at ${url} is not Protected Resource Metadata`)
      const metadata = decoded.value
      if (!Metadata.resourceCovers(metadata.resource, serverUrl)) {
        return yield* fail(`The metadata names the resource ${metadata.resource}, not ${serverUrl}`)
      }
      const issuer = metadata.authorization_servers?.[0]
      if (issuer === undefined) return yield* fail(`The metadata at ${url} lists no authorization server`)
      if (!Metadata.isSecureUrl(issuer)) return yield* fail(`The authorization server ${issuer} is neither https nor loopback`)
      return { url, metadata, issuer }
    }
    return yield* fail("No Protected Resource Metadata was found")
  })

const endpoints = [
  "authorization_endpoint",
  "token_endpoint",
  "registration_endpoint"
] as const

/**
 * Finds and validates the metadata of the authorization server `issuer`.
 *
 * @category discovery
 * @since 0.1.0
 */
export const authorizationServer = (
  client: HttpClient.HttpClient,
  issuer: string
): Effect.Effect<Metadata.AuthorizationServerMetadata, AuthorizationServerMetadataError> =>
  Effect.gen(function*() {
    const tried: Array<string> = []
    const problems: Array<string> = []
    const fail = (message: string) => Effect.fail(new AuthorizationServerMetadataError({ issuer, tried, message }))
    for (const url of authorizationServerUrls(issuer)) {
      tried.push(url)
      const body = yield* getJson(client, url)
      if (body === undefined) continue
      const decoded = decodeServer(body)
      if (decoded._tag === "None") {
        problems.push(`${url} is not authorization server metadata`)
        continue
      }
      const metadata = decoded.value
      // RFC 8414 §3.3: simple string comparison, no normalization.
      if (metadata.issuer !== issuer) {
        problems.push(`${url} names the issuer ${metadata.issuer}`)
        continue
      }
      for (const name of endpoints) {
        const endpoint = metadata[name]
        if (endpoint !== undefined && !Metadata.isSecureUrl(endpoint)) {
          return yield* fail(`The ${name} ${endpoint} is neither https nor loopback`)
        }
      }
      return metadata
    }
    return yield* fail(
      problems.length === 0 ? "No authorization server metadata was found" : `No usable metadata: ${problems.join("; ")}`
    )
  })
