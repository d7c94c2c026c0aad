/**
 * `Host` and `Origin` validation: the transport's defence against DNS rebinding and cross-site
 * requests.
 *
 * A browser tricked into resolving `evil.example` to `127.0.0.1` still sends `Host: evil.example`
 * and `Origin: http://evil.example`; a local server that only accepts loopback names refuses it.
 * The defaults accept exactly `localhost`, `127.0.0.1` and `[::1]` (any port) for both headers. A
 * server reachable under other names lists them, or passes a predicate. A request without `Origin`
 * (not sent by a browser) is judged by its `Host` alone.
 *
 * @example
 * ```ts
 * import * as Security from "@snodo/http/Security"
 *
 * Security.checkHost(["mcp.example.com"], "mcp.example.com:443") // undefined: accepted
 * Security.checkOrigin("loopback", "http://evil.example", "localhost:3000") // a reason: refused
 * ```
 *
 * @since 0.1.0
 */

/**
 * Which `Host` values are accepted: `"loopback"` (the default), `"any"`, a list of host names
 * (compared without the port, case-insensitively), or a predicate of the host name.
 *
 * @category models
 * @since 0.1.0
 */
export type HostPolicy = "loopback" | "any" | ReadonlyArray<string> | ((hostname: string) => boolean)

/**
 * Which `Origin` values are accepted when the header is present: `"loopback"` (the default: any
 * `http(s)` origin on a loopback name), `"same-origin"` (the origin's authority equals `Host`),
 * `"any"`, a list of origins (`https://app.example.com`, compared case-insensitively), or a
 * predicate of the origin.
 *
 * @category models
 * @since 0.1.0
 */
export type OriginPolicy = "loopback" | "same-origin" | "any" | ReadonlyArray<string> | ((origin: string) => boolean)

const loopbackNames = new Set(["localhost", "127.0.0.1", "[::1]"])

/**
 * Whether a listen address binds loopback only (`127.0.0.1`, `::1`, `localhost`, `127.x.y.z`).
 *
 * @category guards
 * @since 0.1.0
 */
export const isLoopbackAddress = (address: string): boolean =>
  address === "localhost" || address === "::1" || address === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address)

/**
 * The host name of an authority (`Host` value), lower-cased and without the port; IPv6 literals
 * keep their brackets. `undefined` when it is not a valid authority.
 *
 * @category combinators
 * @since 0.1.0
 */
export const hostnameOf = (authority: string): string | undefined => {
  const value = authority.trim().toLowerCase()
  if (value.length === 0) return undefined
  if (value.startsWith("[")) {
    const end = value.indexOf("]")
    if (end < 0) return undefined
    const rest = value.slice(end + 1)
    if (rest !== "" && !/^:\d{1,5}$/.test(rest)) return undefined
    return value.slice(0, end + 1)
  }
  const colon = value.indexOf(":")
  const name = colon < 0 ? value : value.slice(0, colon)
  if (colon >= 0 && !/^\d{1,5}$/.test(value.slice(colon + 1))) return undefined
  return /^[a-z0-9.\-_~%!$&'()*+,;=]+$/.test(name) ? name : undefined
}

const originPattern = /^(https?):\/\/([^/?#@]+)$/i

// A client sends the same `Host` with every request: the last one's name is kept (one entry, so
// no sequence of hosts can grow it).
let lastHost = ""
let lastHostname: string | undefined = undefined

const hostnameOfHost = (host: string): string | undefined => {
  if (host !== lastHost) {
    lastHostname = hostnameOf(host)
    lastHost = host
  }
  return lastHostname
}

/**
 * Checks `Host`; returns the reason for refusing it, or `undefined` when it is accepted.
 *
 * @category combinators
 * @since 0.1.0
 */
export const checkHost = (policy: HostPolicy, host: string | undefined): string | undefined => {
  if (policy === "any") return undefined
  if (host === undefined) return "Forbidden: missing Host header"
  const hostname = hostnameOfHost(host)
  if (hostname === undefined) return "Forbidden: invalid Host header"
  const accepted = policy === "loopback"
    ? loopbackNames.has(hostname)
    : typeof policy === "function"
    ? policy(hostname)
    : policy.some((name) => name.toLowerCase() === hostname)
  if (accepted) return undefined
  // The name is safe to echo: `hostnameOf` admits only URI host characters; long ones are cut.
  const named = JSON.stringify(hostname.length > 64 ? `${hostname.slice(0, 64)}…` : hostname)
  return policy === "loopback"
    ? `Forbidden: Host ${named} is not allowed: by default only localhost, 127.0.0.1 and [::1] are; ` +
      "accept other names with the allowedHosts option"
    : `Forbidden: Host ${named} is not allowed by the allowedHosts option`
}

/**
 * Checks `Origin` (when present); returns the reason for refusing it, or `undefined` when it is
 * accepted.
 *
 * @category combinators
 * @since 0.1.0
 */
export const checkOrigin = (policy: OriginPolicy, origin: string | undefined, host: string | undefined): string | undefined => {
  if (origin === undefined || policy === "any") return undefined
  const value = origin.trim()
  let accepted: boolean
  if (typeof policy === "function") {
    accepted = policy(value)
  } else if (typeof policy !== "string") {
    const lower = value.toLowerCase()
    accepted = policy.some((allowed) => allowed.toLowerCase() === lower)
  } else {
    const match = originPattern.exec(value)
    const authority = match?.[2]
    if (authority === undefined) {
      accepted = false
    } else if (policy === "loopback") {
      const hostname = hostnameOf(authority)
      accepted = hostname !== undefined && loopbackNames.has(hostname)
    } else {
      accepted = host !== undefined && authority.toLowerCase() === host.trim().toLowerCase()
    }
  }
  return accepted ? undefined : "Forbidden: Origin not allowed (see the allowedOrigins option)"
}
