/**
 * Reads the `Bearer` challenge of a `WWW-Authenticate` header (RFC 6750 §3, RFC 9728 §5.1): the
 * `resource_metadata` URL, the `scope` the operation needs, and the `error` code that tells a
 * missing token (401) from an insufficient scope (403 `insufficient_scope`).
 *
 * Parameter values are RFC 9110 tokens or quoted strings (with `\` escapes); other schemes in the
 * same header are skipped.
 *
 * @example
 * ```ts
 * import * as WwwAuthenticate from "@snodo/client/oauth/WwwAuthenticate"
 *
 * WwwAuthenticate.parse('Bearer error="insufficient_scope", scope="files:read files:write"')
 * // { error: "insufficient_scope", scope: ["files:read", "files:write"], resourceMetadata: undefined, ... }
 * ```
 *
 * @since 0.1.0
 */

/**
 * A parsed Bearer challenge.
 *
 * @category models
 * @since 0.1.0
 */
export interface BearerChallenge {
  readonly resourceMetadata: string | undefined
  readonly scope: ReadonlyArray<string> | undefined
  readonly error: string | undefined
  readonly errorDescription: string | undefined
}

const empty: BearerChallenge = { resourceMetadata: undefined, scope: undefined, error: undefined, errorDescription: undefined }

/** `name=value` where value is a token or a quoted string; or a bare scheme name. */
const item = /\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([!#$%&'*+.^_`|~0-9A-Za-z/=-]+)))?\s*,?/gy

/**
 * The Bearer (or DPoP) challenge of a header value (`undefined` or no such challenge gives every
 * member `undefined`).
 *
 * @category parsing
 * @since 0.1.0
 */
export const parse = (header: string | undefined): BearerChallenge => {
  if (header === undefined) return empty
  const bearer = new Map<string, string>()
  const dpop = new Map<string, string>()
  let current: Map<string, string> | undefined
  item.lastIndex = 0
  for (let match = item.exec(header); match !== null && match[0] !== ""; match = item.exec(header)) {
    const [, name, quoted, token] = match
    const value = quoted !== undefined ? quoted.replace(/\\(.)/g, "$1") : token
    if (value === undefined) {
      // A bare word starts a new challenge (`Bearer`, `Basic`, `DPoP`…). A DPoP challenge (RFC 9449
      // §7.1) carries the same parameters; it is read when the header has no Bearer challenge.
      const scheme = name!.toLowerCase()
      current = scheme === "bearer" ? bearer : scheme === "dpop" ? dpop : undefined
      continue
    }
    current?.set(name!.toLowerCase(), value)
  }
  const params = bearer.size > 0 || dpop.size === 0 ? bearer : dpop
  const scope = params.get("scope")?.split(" ").filter((s) => s !== "")
  return {
    resourceMetadata: params.get("resource_metadata"),
    scope: scope === undefined || scope.length === 0 ? undefined : scope,
    error: params.get("error"),
    errorDescription: params.get("error_description")
  }
}
