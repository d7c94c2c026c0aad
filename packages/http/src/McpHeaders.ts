/**
 * Request metadata headers checked against the body, before anything runs.
 *
 * Intermediaries may route on `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and the
 * `Mcp-Param-*` headers mirrored from `x-mcp-header` tool parameters, so the server refuses a
 * request whose headers and body disagree, or whose headers are missing, repeated or malformed:
 * 400 with a -32020 `HeaderMismatch` whose `data` names the header and the body field it was
 * compared with (`{ header: "Mcp-Name", body: "params.name" }`; values are never echoed).
 *
 * Integers compare numerically (`42.0` matches `42`), booleans as `true`/`false`, strings exactly
 * after decoding the `=?base64?…?=` sentinel. A parameter absent (or `null`) in the arguments must
 * have no header. Unknown `Mcp-Param-*` headers are ignored, as intermediaries forward them.
 *
 * @example
 * ```ts
 * import * as McpHeaders from "@snodo/http/McpHeaders"
 *
 * const refusal = McpHeaders.check(request, RequestHead.read(httpRequest), runtime)
 * // undefined, or the HeaderMismatch to answer with
 * ```
 *
 * @since 0.1.0
 */
import { Predicate } from "effect"
import type * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import { HeaderMismatch } from "@snodo/core/McpError"
import type * as Route from "@snodo/core/extension/Route"
import type * as RouteTable from "@snodo/core/extension/RouteTable"
import type { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import { ProtocolVersionKey } from "@snodo/protocol/wire/Meta"
import { decodeValue, Repeated, type RequestHead } from "./RequestHead.ts"

const mismatch = (header: string, body: string, message: string): HeaderMismatch =>
  new HeaderMismatch({ message, data: { header, body } })

/** Reads one header that must be present once and well-formed. */
const required = (
  head: RequestHead,
  lower: string,
  header: string,
  body: string,
  decode: boolean
): string | HeaderMismatch => {
  const raw = head.mcp.get(lower)
  if (raw === undefined) return mismatch(header, body, `Header mismatch: missing ${header} header`)
  if (raw === Repeated) return mismatch(header, body, `Header mismatch: ${header} header sent more than once`)
  const value = decode ? decodeValue(raw) : raw.trim()
  if (value === undefined) return mismatch(header, body, `Header mismatch: invalid ${header} header value`)
  return value
}

/** Where the body carries what `MCP-Protocol-Version` mirrors. */
const versionBody = `params._meta.${ProtocolVersionKey}`

const numeric = /^[+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/

const agrees = (value: unknown, header: string): boolean => {
  switch (typeof value) {
    case "string":
      return header === value
    case "number":
      return Number.isSafeInteger(value) && numeric.test(header) && Number(header) === value
    case "boolean":
      return header === (value ? "true" : "false")
    default:
      return false
  }
}


const checkMirrors = (mirrors: ReadonlyArray<Route.Mirror>, head: RequestHead): HeaderMismatch | undefined => {
  for (const mirror of mirrors) {
    const { body, header } = mirror
    if (mirror.value === undefined) {
      if (head.mcp.has(mirror.lower)) {
        return mismatch(header, body, `Header mismatch: ${header} header sent but ${body} is absent`)
      }
      continue
    }
    const decoded = required(head, mirror.lower, header, body, true)
    if (typeof decoded !== "string") return decoded
    if (!agrees(mirror.value, decoded)) return mismatch(header, body, `Header mismatch: ${header} does not match ${body}`)
  }
  return undefined
}

/**
 * Checks a notification's metadata headers: `MCP-Protocol-Version` and `Mcp-Method` are required
 * on every POST, notifications included, and `Mcp-Method` must equal `method`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const checkNotification = (notification: Envelope.Notification, head: RequestHead): HeaderMismatch | undefined => {
  const version = required(head, "mcp-protocol-version", "MCP-Protocol-Version", versionBody, false)
  if (typeof version !== "string") return version
  const method = required(head, "mcp-method", "Mcp-Method", "method", false)
  if (typeof method !== "string") return method
  return method === notification.method ? undefined : mismatch("Mcp-Method", "method", "Header mismatch: Mcp-Method does not match method")
}

/**
 * Checks a request's metadata headers against its body; `undefined` when they agree. Which param
 * is `Mcp-Name` and which are mirrored in `Mcp-Param-*` headers, the method's route says:
 * `resolved`, when the caller looked the method up already (`runtime.routes.resolve`).
 *
 * @category combinators
 * @since 0.1.0
 */
export const check = (
  request: Envelope.Request,
  head: RequestHead,
  runtime: ServerRuntime["Service"],
  resolved: RouteTable.Resolved | undefined = runtime.routes.resolve(request.method)
): HeaderMismatch | undefined => {
  const version = required(head, "mcp-protocol-version", "MCP-Protocol-Version", versionBody, false)
  if (typeof version !== "string") return version
  const meta = request.params["_meta"]
  const bodyVersion = Predicate.isObject(meta) ? meta[ProtocolVersionKey] : undefined
  // A body without a version is invalid params, refused by admission with a more precise error.
  if (typeof bodyVersion === "string" && bodyVersion !== version) {
    return mismatch("MCP-Protocol-Version", versionBody, `Header mismatch: MCP-Protocol-Version does not match ${versionBody}`)
  }
  const method = required(head, "mcp-method", "Mcp-Method", "method", false)
  if (typeof method !== "string") return method
  if (method !== request.method) return mismatch("Mcp-Method", "method", "Header mismatch: Mcp-Method does not match method")
  const route = resolved?.route
  if (route === undefined) return undefined
  const source = route.nameParam
  if (source !== undefined) {
    const bodyName = request.params[source]
    if (typeof bodyName === "string") {
      const name = required(head, "mcp-name", "Mcp-Name", `params.${source}`, true)
      if (typeof name !== "string") return name
      if (name !== bodyName) return mismatch("Mcp-Name", `params.${source}`, `Header mismatch: Mcp-Name does not match params.${source}`)
    }
  }
  return checkMirrors(route.mirrors(request.params, runtime.catalog), head)
}
