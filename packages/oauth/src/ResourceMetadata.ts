/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) of an MCP server, and its canonical URI.
 *
 * The canonical URI (RFC 8707 §2, MCP 2026-07-28 "Canonical Server URI") is the absolute `http(s)`
 * URI clients name as `resource` when they ask for a token, and the audience a token must carry:
 * lower-case scheme and host (the WHATWG URL parser does that), no default port, no fragment, no
 * query, no trailing slash. The document is served at the path-suffixed well-known URI
 * (`https://mcp.example.com/.well-known/oauth-protected-resource/mcp` for `https://mcp.example.com/mcp`),
 * which the challenges name, and by default at the root form too, which clients try next.
 *
 * @example
 * ```ts
 * import * as ResourceMetadata from "@snodo/oauth/ResourceMetadata"
 *
 * ResourceMetadata.canonical("HTTPS://MCP.Example.com:443/mcp/") // "https://mcp.example.com/mcp"
 * ResourceMetadata.metadataUrl("https://mcp.example.com/mcp")
 * // "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
 * ```
 *
 * @since 0.1.0
 */

/**
 * The well-known suffix of RFC 9728.
 *
 * @category constants
 * @since 0.1.0
 */
export const wellKnown = "/.well-known/oauth-protected-resource"

/**
 * The canonical form of a resource URI; throws a `TypeError` for anything that cannot be one (not
 * absolute, not `http(s)`, with a fragment, a query or credentials).
 *
 * @category combinators
 * @since 0.1.0
 */
export const canonical = (uri: string): string => {
  if (!URL.canParse(uri)) throw new TypeError(`Not an absolute URI: ${uri}`)
  const url = new URL(uri)
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new TypeError(`A resource URI is http(s): ${uri}`)
  if (uri.includes("#")) throw new TypeError(`A resource URI has no fragment: ${uri}`)
  if (url.search !== "" || uri.includes("?")) throw new TypeError(`A resource URI has no query: ${uri}`)
  if (url.username !== "" || url.password !== "") throw new TypeError(`A resource URI has no credentials: ${uri}`)
  const path = url.pathname.endsWith("/") ? url.pathname.slice(0, -1) : url.pathname
  return `${url.protocol}//${url.host}${path}`
}

/**
 * The canonical form of `uri`, or `undefined` when it cannot be a resource URI (for comparing an
 * audience a token names).
 *
 * @category combinators
 * @since 0.1.0
 */
export const canonicalOrUndefined = (uri: string): string | undefined => {
  try {
    return canonical(uri)
  } catch {
    return undefined
  }
}

/** The path of a canonical resource URI (`""` at the root). */
const pathOf = (resource: string): string => {
  const url = new URL(resource)
  return url.pathname === "/" ? "" : url.pathname
}

/**
 * The path-suffixed well-known path of a resource's metadata (RFC 9728 §3.1).
 *
 * @category combinators
 * @since 0.1.0
 */
export const metadataPath = (resource: string): `/${string}` => `${wellKnown}${pathOf(canonical(resource))}`

/**
 * The URL of a resource's metadata document, as challenges name it.
 *
 * @category combinators
 * @since 0.1.0
 */
export const metadataUrl = (resource: string): string => `${new URL(canonical(resource)).origin}${metadataPath(resource)}`

/**
 * The RFC 9728 fields snodo fills in.
 *
 * @category models
 * @since 0.1.0
 */
export interface Document {
  readonly resource: string
  readonly authorization_servers: ReadonlyArray<string>
  readonly scopes_supported?: ReadonlyArray<string>
  readonly bearer_methods_supported: ReadonlyArray<"header">
  readonly resource_name?: string
  readonly resource_documentation?: string
}

/**
 * What a document says.
 *
 * @category models
 * @since 0.1.0
 */
export interface DocumentOptions {
  /** The server's URI; it is canonicalized. */
  readonly resource: string
  /** Issuer identifiers of the authorization servers whose tokens are accepted. */
  readonly authorizationServers: ReadonlyArray<string>
  /** The scopes a client asks for to use the server at all (never `offline_access`). */
  readonly scopesSupported?: ReadonlyArray<string> | undefined
  /** A human-readable name. */
  readonly resourceName?: string | undefined
  /** A page for developers. */
  readonly resourceDocumentation?: string | undefined
}

/**
 * The metadata document. Tokens are only accepted from the `Authorization` header, so
 * `bearer_methods_supported` is `["header"]`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const document = (options: DocumentOptions): Document => ({
  resource: canonical(options.resource),
  authorization_servers: options.authorizationServers,
  ...(options.scopesSupported !== undefined && options.scopesSupported.length > 0 ? { scopes_supported: options.scopesSupported } : {}),
  bearer_methods_supported: ["header"],
  ...(options.resourceName !== undefined ? { resource_name: options.resourceName } : {}),
  ...(options.resourceDocumentation !== undefined ? { resource_documentation: options.resourceDocumentation } : {})
})
