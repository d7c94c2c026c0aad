/**
 * `WWW-Authenticate: Bearer …` challenges (RFC 6750 §3, RFC 9728 §5.1), as the MCP authorization
 * spec (2026-07-28) asks for them:
 *
 * - no token: `401`, `Bearer resource_metadata="…", scope="…"` (no `error`: RFC 6750 §3.1 says a
 *   request without credentials gets no error code);
 * - a token that is not valid here: `401`, `Bearer error="invalid_token", error_description="…",
 *   resource_metadata="…"`;
 * - a valid token without a scope the operation needs: `403`, `Bearer error="insufficient_scope",
 *   scope="…", resource_metadata="…", error_description="…"`;
 * - with DPoP (RFC 9449 §7.1) the scheme is `DPoP`, with `algs="…"`, and the errors
 *   `invalid_dpop_proof` and `use_dpop_nonce` (see `Dpop`).
 *
 * Values are quoted strings; the scopes a challenge names are checked to be RFC 6749 scope tokens
 * when the resource server is built, and descriptions are fixed texts, so nothing a caller sent is
 * ever echoed into a header.
 *
 * @example
 * ```ts
 * import * as Challenge from "@snodo/oauth/Challenge"
 *
 * Challenge.format({ resourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope: ["mcp"] })
 * // 'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp"'
 * ```
 *
 * @since 0.1.0
 */

/**
 * The error codes of RFC 6750 §3.1 a resource server sends.
 *
 * @category models
 * @since 0.1.0
 */
export type ErrorCode = "invalid_request" | "invalid_token" | "insufficient_scope" | "invalid_dpop_proof" | "use_dpop_nonce"

/**
 * One Bearer challenge.
 *
 * @category models
 * @since 0.1.0
 */
export interface Challenge {
  /** `Bearer` (the default) or `DPoP` (RFC 9449 §7.1). */
  readonly scheme?: "Bearer" | "DPoP" | undefined
  /** The proof algorithms a DPoP challenge accepts (`algs`). */
  readonly algs?: ReadonlyArray<string> | undefined
  /** The URL of the Protected Resource Metadata document. */
  readonly resourceMetadata: string
  readonly error?: ErrorCode | undefined
  readonly errorDescription?: string | undefined
  /** The scopes needed; omitted when empty. */
  readonly scope?: ReadonlyArray<string> | undefined
}

/** An RFC 6749 §3.3 scope token: printable ASCII but space, `"` and `\`. */
const scopeToken = /^[\x21\x23-\x5B\x5D-\x7E]+$/

/**
 * Whether `scope` is a valid scope token (RFC 6749 §3.3).
 *
 * @category guards
 * @since 0.1.0
 */
export const isScopeToken = (scope: string): boolean => scopeToken.test(scope)

/** A quoted-string (RFC 9110 §5.6.4). */
const quote = (value: string): string => `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`

/**
 * The header value of a challenge. The parameters come in the order of the spec's examples: the
 * error first when there is one, else the metadata first.
 *
 * @category combinators
 * @since 0.1.0
 */
export const format = (challenge: Challenge): string => {
  const params: Array<string> = []
  const scope = challenge.scope !== undefined && challenge.scope.length > 0 ? quote(challenge.scope.join(" ")) : undefined
  if (challenge.error !== undefined) {
    params.push(`error=${quote(challenge.error)}`)
    if (scope !== undefined) params.push(`scope=${scope}`)
    params.push(`resource_metadata=${quote(challenge.resourceMetadata)}`)
    if (challenge.errorDescription !== undefined) params.push(`error_description=${quote(challenge.errorDescription)}`)
  } else {
    params.push(`resource_metadata=${quote(challenge.resourceMetadata)}`)
    if (scope !== undefined) params.push(`scope=${scope}`)
  }
  if (challenge.algs !== undefined && challenge.algs.length > 0) params.push(`algs=${quote(challenge.algs.join(" "))}`)
  return `${challenge.scheme ?? "Bearer"} ${params.join(", ")}`
}
