/**
 * The documents the OAuth client reads, as Schemas, and the URL rules it holds them to:
 * Protected Resource Metadata (RFC 9728), authorization server metadata (RFC 8414 / OpenID Connect
 * Discovery), token responses (RFC 6749 §5.1) and client information (RFC 7591 §3.2.1).
 *
 * Unknown members are kept out of the decoded values (the Schemas list what the client uses), and
 * every URL the client will send a secret, a code or a token to must be `https`, or `http` on a
 * loopback host (`localhost`, `127.0.0.1`, `[::1]`) for development.
 *
 * @example
 * ```ts
 * import * as Metadata from "@snodo/client/oauth/Metadata"
 *
 * Metadata.isSecureUrl("https://auth.example.com/token") // true
 * Metadata.isSecureUrl("http://127.0.0.1:9000/token") // true
 * Metadata.isSecureUrl("http://auth.example.com/token") // false
 * ```
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * RFC 9728 §2: the members of Protected Resource Metadata the client uses.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ProtectedResourceMetadata = Schema.Struct({
  resource: Schema.String,
  authorization_servers: Schema.optional(Schema.Array(Schema.String)),
  scopes_supported: Schema.optional(Schema.Array(Schema.String))
})

/**
 * @category models
 * @since 0.1.0
 */
export type ProtectedResourceMetadata = typeof ProtectedResourceMetadata.Type

/**
 * RFC 8414 §2 (and the OpenID Connect Discovery members it shares): what the client uses.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AuthorizationServerMetadata = Schema.Struct({
  issuer: Schema.String,
  authorization_endpoint: Schema.optional(Schema.String),
  token_endpoint: Schema.optional(Schema.String),
  registration_endpoint: Schema.optional(Schema.String),
  scopes_supported: Schema.optional(Schema.Array(Schema.String)),
  response_types_supported: Schema.optional(Schema.Array(Schema.String)),
  grant_types_supported: Schema.optional(Schema.Array(Schema.String)),
  token_endpoint_auth_methods_supported: Schema.optional(Schema.Array(Schema.String)),
  code_challenge_methods_supported: Schema.optional(Schema.Array(Schema.String)),
  client_id_metadata_document_supported: Schema.optional(Schema.Boolean),
  authorization_response_iss_parameter_supported: Schema.optional(Schema.Boolean)
})

/**
 * @category models
 * @since 0.1.0
 */
export type AuthorizationServerMetadata = typeof AuthorizationServerMetadata.Type

/**
 * RFC 6749 §5.1: a successful token response.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TokenResponse = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.String,
  expires_in: Schema.optional(Schema.Number),
  refresh_token: Schema.optional(Schema.String),
  scope: Schema.optional(Schema.String)
})

/**
 * @category models
 * @since 0.1.0
 */
export type TokenResponse = typeof TokenResponse.Type

/**
 * RFC 6749 §5.2: an error response of the token (or registration) endpoint.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ErrorResponse = Schema.Struct({
  error: Schema.String,
  error_description: Schema.optional(Schema.String)
})

/**
 * RFC 7591 §3.2.1: the registration response members the client keeps.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ClientInformation = Schema.Struct({
  client_id: Schema.String,
  client_secret: Schema.optional(Schema.String),
  token_endpoint_auth_method: Schema.optional(Schema.String)
})

/**
 * @category models
 * @since 0.1.0
 */
export type ClientInformation = typeof ClientInformation.Type

const loopbackHosts: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"])

/**
 * Whether `url` is absolute and `https`, or `http` on a loopback host.
 *
 * @category guards
 * @since 0.1.0
 */
export const isSecureUrl = (url: string): boolean => {
  if (!URL.canParse(url)) return false
  const parsed = new URL(url)
  return parsed.protocol === "https:" || (parsed.protocol === "http:" && loopbackHosts.has(parsed.hostname))
}

/**
 * The resource URI of an MCP endpoint as the client names it before it has metadata: the URL
 * without query, fragment or trailing slash.
 *
 * @category combinators
 * @since 0.1.0
 */
export const resourceOf = (url: string | URL): string => {
  const parsed = new URL(url)
  const path = parsed.pathname.endsWith("/") ? parsed.pathname.slice(0, -1) : parsed.pathname
  return `${parsed.protocol}//${parsed.host}${path}`
}

/**
 * Whether the `resource` a metadata document names covers `serverUrl`: the same origin, and a path
 * that is the server's path or one of its parent paths (a root document names the origin).
 *
 * @category guards
 * @since 0.1.0
 */
export const resourceCovers = (resource: string, serverUrl: string): boolean => {
  if (!URL.canParse(resource)) return false
  const claimed = new URL(resource)
  const actual = new URL(serverUrl)
  if (claimed.origin !== actual.origin || claimed.search !== "" || claimed.hash !== "") return false
  const claimedPath = claimed.pathname.endsWith("/") ? claimed.pathname : `${claimed.pathname}/`
  const actualPath = actual.pathname.endsWith("/") ? actual.pathname : `${actual.pathname}/`
  return actualPath.startsWith(claimedPath)
}
