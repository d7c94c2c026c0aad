/**
 * The checks a request passes before its body is read, and the refusals of a body that could not
 * be read: the same for every adapter (`McpHttp` on Effect's HTTP server, `NodeServe` on Node's).
 *
 * In order: the method (405), the head size (431), one `Host` and at most one `Authorization` (400), the host addressed (the
 * authority of an absolute-form target, else `Host`) and `Origin` (403), capacity (503),
 * `Content-Type` and `Content-Encoding` (415), `Accept` (406). Each refusal names its reason and carries a JSON-RPC error
 * without an `id`.
 *
 * @example
 * ```ts
 * import * as RequestChecks from "@snodo/http/RequestChecks"
 * import * as Options from "@snodo/http/Options"
 *
 * const refusal = RequestChecks.beforeBody("GET", {}, 0, Options.resolve(undefined), 0)
 * refusal?.status // 405
 * ```
 *
 * @since 0.1.0
 */
import type { Body } from "./BodyReader.ts"
import * as Negotiation from "./Negotiation.ts"
import type { Settings } from "./Options.ts"
import * as Reply from "./Reply.ts"
import * as Security from "./Security.ts"

/**
 * The request headers by lower-case name, as both platforms give them.
 *
 * @category models
 * @since 0.1.0
 */
export interface CheckedHeaders {
  readonly [name: string]: string | ReadonlyArray<string> | undefined
}

/** A header that must be a single value (Node lists only `set-cookie` and the like). */
const single = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : undefined

const closeHeaders = { connection: "close" }
const busyHeaders = { "retry-after": "1" }
const busyCloseHeaders = { "retry-after": "1", connection: "close" }

/**
 * What the platform tells of a request's framing: its request target as sent (`/mcp`, or the
 * absolute form `http://host/mcp`) and how many `Host` headers it had.
 *
 * @category models
 * @since 0.1.0
 */
export interface Framing {
  readonly target: string
  readonly hosts: number
  /** How many `Authorization` headers it had, where the platform kept them apart (Node). */
  readonly authorizations?: number
}

/**
 * The authority a request is addressed to: that of an absolute-form target (RFC 9112 §3.2.2: the
 * server then ignores `Host`), else the `Host` header.
 *
 * @category combinators
 * @since 0.1.0
 */
export const authorityOf = (target: string | undefined, host: string | undefined): string | undefined => {
  if (target === undefined || target.startsWith("/") || !URL.canParse(target)) return host
  const url = new URL(target)
  return url.protocol === "http:" || url.protocol === "https:" ? url.host : host
}

const codings = (value: string | ReadonlyArray<string> | undefined): boolean => {
  if (value === undefined) return false
  const joined = typeof value === "string" ? value : value.join(",")
  return joined.split(",").some((coding) => {
    const name = coding.trim().toLowerCase()
    return name !== "" && name !== "identity"
  })
}

const encodingHeaders = { "accept-encoding": "identity" }

/**
 * The checks of the head every request passes first, or `undefined`: the head size (431), one
 * `Host` and at most one `Authorization` (400), `Host` and `Origin` (403). All a GET or DELETE of an initialize-era session
 * (sessions on) is checked for; a POST goes on with {@link beforeBody}'s.
 *
 * @category combinators
 * @since 0.1.0
 */
export const beforeSession = (
  headers: CheckedHeaders,
  headBytes: number,
  settings: Settings,
  framing?: Framing
): Reply.Reply | undefined => {
  if (headBytes > settings.maxHeaderBytes) {
    return Reply.refuse(431, -32600, `Request headers larger than ${settings.maxHeaderBytes} bytes`, closeHeaders)
  }
  if (framing !== undefined && framing.hosts > 1) {
    return Reply.refuse(400, -32600, "Bad Request: more than one Host header", closeHeaders)
  }
  // Node keeps the first of two `Authorization` headers; a proxy in front may have checked the other.
  if (framing?.authorizations !== undefined && framing.authorizations > 1) {
    return Reply.refuse(400, -32600, "Bad Request: more than one Authorization header", closeHeaders)
  }
  const host = authorityOf(framing?.target, single(headers["host"]))
  const forbidden = Security.checkHost(settings.allowedHosts, host) ??
    Security.checkOrigin(settings.allowedOrigins, single(headers["origin"]), host)
  return forbidden === undefined ? undefined : Reply.refuse(403, -32600, forbidden)
}

/**
 * The refusal of a request before its body is read, or `undefined` when it may proceed.
 * `headBytes` is the size of its head; `inFlight` the requests being answered right now;
 * `framing`, where the platform knows it, its target and `Host` count.
 *
 * @category combinators
 * @since 0.1.0
 */
export const beforeBody = (
  method: string,
  headers: CheckedHeaders,
  headBytes: number,
  settings: Settings,
  inFlight: number,
  framing?: Framing
): Reply.Reply | undefined => {
  if (method !== "POST") return Reply.methodNotAllowed
  const head = beforeSession(headers, headBytes, settings, framing)
  if (head !== undefined) return head
  if (inFlight >= settings.maxConcurrent) {
    return Reply.refuse(503, -32603, "Server busy: too many requests in flight", busyHeaders)
  }
  if (!Negotiation.isJson(single(headers["content-type"]))) {
    return Reply.refuse(415, -32600, "Unsupported Media Type: the body must be application/json")
  }
  // A coded body read as plain text would be misread: no coding is decoded (RFC 9110 §8.4.1).
  if (codings(headers["content-encoding"])) {
    return Reply.refuse(415, -32600, "Unsupported Media Type: Content-Encoding is not supported", encodingHeaders)
  }
  if (!Negotiation.acceptsBoth(single(headers["accept"]))) {
    return Reply.refuse(406, -32600, "Not Acceptable: Accept must allow application/json and text/event-stream")
  }
  return undefined
}


/**
 * The answer to a body that was not read whole as UTF-8 text.
 *
 * @category combinators
 * @since 0.1.0
 */
export const bodyRefusal = (body: Exclude<Body, { readonly _tag: "Text" }>, settings: Settings): Reply.Reply => {
  switch (body._tag) {
    case "TooLarge":
      return Reply.refuse(413, -32600, `Request body larger than ${settings.maxBodyBytes} bytes`, closeHeaders)
    case "Timeout":
      return Reply.refuse(408, -32600, "Request body not received within the deadline", closeHeaders)
    case "Malformed":
      return Reply.json(Reply.errorFrame(-32700, "Parse error: invalid UTF-8"), 400)
    case "Failed":
      return Reply.refuse(400, -32600, "Request body could not be read", closeHeaders)
    case "OverBudget":
      return Reply.refuseWith(503, {
        code: -32603,
        message: "Server busy: request bodies being read are over their memory budget",
        data: { retryable: true, limit: settings.maxBufferedBodyBytes }
      }, busyCloseHeaders)
  }
}
