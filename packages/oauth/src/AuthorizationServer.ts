/**
 * Authorization server metadata discovery: RFC 8414 (`/.well-known/oauth-authorization-server`)
 * and OpenID Connect Discovery 1.0 (`/.well-known/openid-configuration`), tried in the order the
 * MCP spec (2026-07-28) gives clients, with the issuer check both specs require: a document whose
 * `issuer` is not exactly the issuer it was fetched for is never used.
 *
 * For `https://auth.example.com/tenant1` the candidates are
 * `https://auth.example.com/.well-known/oauth-authorization-server/tenant1`,
 * `https://auth.example.com/.well-known/openid-configuration/tenant1` and
 * `https://auth.example.com/tenant1/.well-known/openid-configuration`; without a path, the first two.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import * as AuthorizationServer from "@snodo/oauth/AuthorizationServer"
 *
 * const jwksUri = AuthorizationServer.discover("https://auth.example.com", { timeout: "5 seconds" }).pipe(
 *   Effect.map((metadata) => metadata.jwks_uri),
 *   Effect.provide(FetchHttpClient.layer)
 * )
 * ```
 *
 * @since 0.1.0
 */
import { type Duration, Effect, Schema } from "effect"
import { HttpClient, type HttpClientError, HttpClientRequest } from "effect/http"
import { VerifierUnavailable } from "./TokenVerifier.ts"

/**
 * The fields of an authorization server's metadata a resource server uses.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Metadata = Schema.Struct({
  issuer: Schema.String,
  jwks_uri: Schema.optional(Schema.String),
  introspection_endpoint: Schema.optional(Schema.String),
  scopes_supported: Schema.optional(Schema.Array(Schema.String))
})

/**
 * @category models
 * @since 0.1.0
 */
export type Metadata = typeof Metadata.Type

/**
 * The metadata URLs of an issuer, in the order they are tried.
 *
 * @category combinators
 * @since 0.1.0
 */
export const metadataUrls = (issuer: string): ReadonlyArray<string> => {
  const url = new URL(issuer)
  const path = url.pathname.endsWith("/") ? url.pathname.slice(0, -1) : url.pathname
  if (path === "") {
    return [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`]
  }
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}/.well-known/openid-configuration${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`
  ]
}

/**
 * GETs a JSON document: its status and body, or `VerifierUnavailable` when the server cannot be
 * reached in time or the body is not JSON.
 *
 * @category combinators
 * @since 0.1.0
 */
export const getJson = (url: string, timeout: Duration.Input): Effect.Effect<{ readonly status: number; readonly json: unknown }, VerifierUnavailable, HttpClient.HttpClient> =>
  HttpClient.execute(HttpClientRequest.get(url).pipe(HttpClientRequest.acceptJson)).pipe(
      Effect.flatMap((response): Effect.Effect<{ readonly status: number; readonly json: unknown }, HttpClientError.HttpClientError> =>
        response.status === 200
          ? Effect.map(response.json, (json) => ({ status: 200, json }))
          : Effect.as(Effect.ignore(response.text), { status: response.status, json: undefined })
      ),
      Effect.timeout(timeout),
      Effect.mapError((error) => new VerifierUnavailable({ message: `GET ${url} failed: ${error._tag}` }))
    )

const decodeMetadata = Schema.decodeUnknownOption(Metadata)

/**
 * Discovers an issuer's metadata: the first candidate URL that answers 200 with a document for
 * exactly this issuer.
 *
 * @category combinators
 * @since 0.1.0
 */
export const discover = (
  issuer: string,
  options: { readonly timeout: Duration.Input }
): Effect.Effect<Metadata, VerifierUnavailable, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const tried: Array<string> = []
    for (const url of metadataUrls(issuer)) {
      const { status, json } = yield* getJson(url, options.timeout)
      if (status !== 200) {
        tried.push(`${url}: ${status}`)
        continue
      }
      const metadata = decodeMetadata(json)
      if (metadata._tag === "None") {
        tried.push(`${url}: not authorization server metadata`)
        continue
      }
      // RFC 8414 §3.3, OpenID Connect Discovery §4.3: identical, no normalization.
      if (metadata.value.issuer !== issuer) {
        tried.push(`${url}: issuer ${JSON.stringify(metadata.value.issuer)} is not ${JSON.stringify(issuer)}`)
        continue
      }
      return metadata.value
    }
    return yield* new VerifierUnavailable({ message: `No metadata for issuer ${issuer} (${tried.join("; ")})` })
  })
