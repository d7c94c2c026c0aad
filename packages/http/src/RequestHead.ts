/**
 * One pass over a request's headers: the size of the head, and the `Mcp-*` headers with their
 * repetitions kept apart.
 *
 * HTTP servers join repeated headers into one comma-separated value, which would hide a repeated
 * `Mcp-Name` or `Mcp-Param-*` (a value may itself contain a comma). On Node the raw header list is
 * still there, so repetitions are seen; elsewhere the joined value is all there is.
 *
 * Values follow the spec's encoding: plain visible ASCII (spaces and tabs allowed inside), or the
 * sentinel `=?base64?…?=` around the strict Base64 of UTF-8 text.
 *
 * @example
 * ```ts
 * import * as RequestHead from "@snodo/http/RequestHead"
 *
 * RequestHead.decodeValue("=?base64?SGVsbG8sIOS4lueVjA==?=") // "Hello, 世界"
 * RequestHead.decodeValue("=?base64?SGVsbG8?=") // undefined: Base64 without its padding
 * ```
 *
 * @since 0.1.0
 */
import type { HttpServerRequest } from "effect/http"

/**
 * A header that was sent more than once.
 *
 * @category constants
 * @since 0.1.0
 */
export const Repeated: unique symbol = Symbol.for("@snodo/http/RequestHead/Repeated")

/**
 * What the transport reads of a request's head.
 *
 * @category models
 * @since 0.1.0
 */
export interface RequestHead {
  /** Bytes of the header names and values (plus separators), as an approximation of the head. */
  readonly bytes: number
  /** Every header whose name starts with `mcp-`, by lower-case name. */
  readonly mcp: ReadonlyMap<string, string | typeof Repeated>
  /** How many `Host` headers were sent (RFC 9112 §3.2: exactly one; a joined list counts as two). */
  readonly hosts: number
  /**
   * How many `Authorization` headers were sent: more than one is refused, as Node keeps only the
   * first and a gateway may have checked another (a joined list counts as one: it cannot be told apart).
   */
  readonly authorizations: number
  /** The W3C trace context headers, when a `traceparent` was sent (validated by the runtime). */
  readonly trace: Trace | undefined
  /**
   * The client's address where the platform knows it: the connection's peer, or, behind a trusted
   * proxy (`trustProxy`), the client that proxy reports.
   */
  readonly address?: string | undefined
}

/**
 * The raw `traceparent` and `tracestate` of a request: a repeated `traceparent` is kept as sent
 * twice (joined with `,`, which no valid one contains), repeated `tracestate` headers are one list.
 *
 * @category models
 * @since 0.1.0
 */
export interface Trace {
  readonly traceparent: string
  readonly tracestate: string | undefined
}

const traceOf = (traceparent: string | undefined, tracestate: string | undefined): Trace | undefined =>
  traceparent === undefined ? undefined : { traceparent, tracestate }

const joined = (previous: string | undefined, value: string): string => previous === undefined ? value : `${previous},${value}`

const add = (mcp: Map<string, string | typeof Repeated>, name: string, value: string) => {
  mcp.set(name, mcp.has(name) ? Repeated : value)
}

const isMcp = (lower: string): boolean =>
  lower.length > 4 && lower.charCodeAt(0) === 109 && lower.charCodeAt(1) === 99 && lower.charCodeAt(2) === 112 &&
  lower.charCodeAt(3) === 45

/**
 * Whether a header name of `length` (more than 4) whose first character, folded to lower case, is
 * `first` can be one read here: `mcp-*`, `traceparent`, `tracestate` or `authorization`. Node's
 * header names are ASCII tokens, so the other names are passed over without lower-casing them.
 */
const mayMatter = (first: number, length: number): boolean =>
  first === 109 || (first === 116 && (length === 10 || length === 11)) || (first === 97 && length === 13)

/** Whether a name of four characters is `host` in any case (`toLowerCase` spared). */
const isHost = (name: string): boolean =>
  (name.charCodeAt(0) | 0x20) === 104 && (name.charCodeAt(1) | 0x20) === 111 && (name.charCodeAt(2) | 0x20) === 115 &&
  (name.charCodeAt(3) | 0x20) === 116

/**
 * Reads a head from Node's raw header list (names and values alternating, repetitions kept), with
 * the client's address where the platform knows it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromRaw = (raw: ReadonlyArray<string>, address?: string): RequestHead => {
  const mcp = new Map<string, string | typeof Repeated>()
  let bytes = 0
  let hosts = 0
  let authorizations = 0
  let traceparent: string | undefined
  let tracestate: string | undefined
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!
    const value = raw[i + 1]!
    bytes += name.length + value.length + 4
    const length = name.length
    if (length > 4) {
      if (!mayMatter(name.charCodeAt(0) | 0x20, length)) continue
      const lower = name.toLowerCase()
      if (isMcp(lower)) add(mcp, lower, value)
      else if (lower === "traceparent") traceparent = joined(traceparent, value)
      else if (lower === "tracestate") tracestate = joined(tracestate, value)
      else if (lower === "authorization") authorizations++
    } else if (length === 4 && isHost(name)) hosts++
  }
  return { bytes, mcp, hosts, authorizations, trace: traceOf(traceparent, tracestate), address }
}

/**
 * Reads the head of a request: from the raw header list where the platform kept it (Node),
 * otherwise from the joined headers.
 *
 * @category combinators
 * @since 0.1.0
 */
export const read = (request: HttpServerRequest.HttpServerRequest): RequestHead => {
  const raw = (request.source as { readonly rawHeaders?: unknown }).rawHeaders
  const address = request.remoteAddress._tag === "Some" ? request.remoteAddress.value : undefined
  if (Array.isArray(raw)) return fromRaw(raw as ReadonlyArray<string>, address)
  const mcp = new Map<string, string | typeof Repeated>()
  let bytes = 0
  const headers = request.headers
  for (const name in headers) {
    const value = headers[name]!
    bytes += name.length + value.length + 4
    if (isMcp(name)) add(mcp, name, value)
  }
  const host = headers["host"]
  return {
    bytes,
    mcp,
    hosts: host === undefined ? 0 : host.includes(",") ? 2 : 1,
    authorizations: headers["authorization"] === undefined ? 0 : 1,
    trace: traceOf(headers["traceparent"], headers["tracestate"]),
    address
  }
}

const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const utf8 = new TextDecoder("utf-8", { fatal: true })
const prefix = "=?base64?"
const suffix = "?="

const isPlain = (value: string): boolean => {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if ((c < 0x20 && c !== 0x09) || c > 0x7e) return false
  }
  return true
}

const isBlank = (c: number): boolean => c === 0x20 || c === 0x09

/** Whether a value starts or ends with a space or tab (most have neither: nothing to trim). */
const hasOuterBlanks = (raw: string): boolean =>
  raw.length > 0 && (isBlank(raw.charCodeAt(0)) || isBlank(raw.charCodeAt(raw.length - 1)))

/**
 * Decodes one header value: the sentinel's Base64 (strict, padded, valid UTF-8) or the plain
 * value itself; `undefined` when the value is malformed. Surrounding spaces and tabs are not part
 * of the value (RFC 9110 §5.5).
 *
 * @category combinators
 * @since 0.1.0
 */
export const decodeValue = (raw: string): string | undefined => {
  const value = hasOuterBlanks(raw) ? raw.replace(/^[ \t]+|[ \t]+$/g, "") : raw
  if (!isPlain(value)) return undefined
  if (value.length < prefix.length + suffix.length || !value.startsWith(prefix) || !value.endsWith(suffix)) return value
  const inner = value.slice(prefix.length, value.length - suffix.length)
  if (!base64.test(inner)) return undefined
  try {
    return utf8.decode(Buffer.from(inner, "base64"))
  } catch {
    return undefined
  }
}
