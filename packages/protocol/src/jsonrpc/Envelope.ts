/**
 * The JSON-RPC envelope: from one strict JSON frame to a classified message.
 *
 * This stage knows JSON-RPC 2.0 as MCP restricts it (no batches, no `null` ids, ids that are a
 * string of at most 256 UTF-8 bytes or an integer in int64 range, `params` an object) and nothing
 * of MCP methods. A bad id is never echoed: the error carries `"id": null`.
 *
 * @example
 * ```ts
 * import { decode } from "@snodo/protocol/jsonrpc/Envelope"
 *
 * const message = decode('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}')
 * // message._tag === "Request"
 * ```
 *
 * @since 0.1.0
 */
import { InvalidParams, InvalidRequest, type McpError, ParseError } from "./McpError.ts"
import * as StrictJson from "./StrictJson.ts"
import { isObject } from "../wire/internal/IsObject.ts"

/**
 * A JSON-RPC request id as MCP allows it. Integers beyond `Number.MAX_SAFE_INTEGER` (but within
 * int64) are kept exactly as `bigint` so that they are echoed byte for byte.
 *
 * @category models
 * @since 0.1.0
 */
export type RequestId = string | number | bigint

/**
 * A request: it gets exactly one response.
 *
 * @category models
 * @since 0.1.0
 */
export interface Request {
  readonly _tag: "Request"
  readonly id: RequestId
  readonly method: string
  readonly params: Readonly<Record<string, unknown>>
}

/**
 * A notification: it never gets a response.
 *
 * @category models
 * @since 0.1.0
 */
export interface Notification {
  readonly _tag: "Notification"
  readonly method: string
  readonly params: Readonly<Record<string, unknown>>
}

/**
 * A response object sent to the server: it gets no answer. The initialize-era dialects route it to
 * the server-to-client request it answers (see runtime/OutgoingRequests).
 *
 * @category models
 * @since 0.1.0
 */
export interface Response {
  readonly _tag: "Response"
  /** The id of the request it answers (`undefined` when absent or not a valid id). */
  readonly id: RequestId | undefined
  /** The `result` member, when it answers with one. */
  readonly result: unknown
  /** The `error` member, when it answers with one. */
  readonly error: unknown
}

/**
 * A frame that must be answered with an error (`id` is `null` when it could not be read).
 *
 * @category models
 * @since 0.1.0
 */
export interface Invalid {
  readonly _tag: "Invalid"
  readonly id: RequestId | null
  readonly error: McpError
}

/**
 * A frame that is invalid but was a notification, so nothing may be written.
 *
 * @category models
 * @since 0.1.0
 */
export interface Ignored {
  readonly _tag: "Ignored"
  readonly reason: string
}

/**
 * @category models
 * @since 0.1.0
 */
export type Incoming = Request | Notification | Response | Invalid | Ignored

/**
 * Longest string id, in UTF-8 bytes.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxIdBytes = 256

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const integerLexeme = /^-?(?:0|[1-9][0-9]*)$/

const invalid = (id: RequestId | null, error: McpError): Invalid => ({ _tag: "Invalid", id, error })


/**
 * Reads an id, or returns `undefined` when it is not an id MCP accepts.
 *
 * @category combinators
 * @since 0.1.0
 */
export const readId = (value: unknown, lexeme: string | undefined): RequestId | undefined => {
  if (typeof value === "string") {
    return Buffer.byteLength(value, "utf8") <= maxIdBytes ? value : undefined
  }
  if (typeof value === "number") {
    if (lexeme === undefined || !integerLexeme.test(lexeme)) return undefined
    if (Number.isSafeInteger(value)) return value
    const big = BigInt(lexeme)
    return big >= INT64_MIN && big <= INT64_MAX ? big : undefined
  }
  return undefined
}

const parseErrorMessage: Record<StrictJson.StrictJsonErrorReason, string> = {
  "syntax": "Parse error: invalid JSON",
  "duplicate-key": "Parse error: duplicate object key",
  "trailing-data": "Parse error: trailing data after the JSON value",
  "integer-too-long": "Parse error: integer literal longer than 64 digits",
  "depth": "Parse error: nesting too deep",
  "invalid-string": "Parse error: invalid string"
}

/**
 * Classifies one already-parsed JSON value.
 *
 * @category combinators
 * @since 0.1.0
 */
export const classify = (value: unknown, idLexeme: string | undefined): Incoming => {
  if (Array.isArray(value)) {
    return invalid(null, new InvalidRequest({ message: "Invalid request: batches are not supported" }))
  }
  if (!isObject(value)) {
    return invalid(null, new InvalidRequest({ message: "Invalid request: expected a JSON-RPC object" }))
  }
  const hasId = Object.hasOwn(value, "id")
  const id = hasId ? readId(value["id"], idLexeme) : undefined
  const method = value["method"]
  if (method === undefined && (Object.hasOwn(value, "result") || Object.hasOwn(value, "error"))) {
    return { _tag: "Response", id: hasId ? readId(value["id"], idLexeme) : undefined, result: value["result"], error: value["error"] }
  }
  if (hasId && id === undefined) {
    return invalid(null, new InvalidRequest({ message: "Invalid request: id must be a string of at most 256 bytes or an int64 integer" }))
  }
  if (value["jsonrpc"] !== "2.0") {
    return hasId
      ? invalid(id!, new InvalidRequest({ message: "Invalid request: jsonrpc must be \"2.0\"" }))
      : { _tag: "Ignored", reason: "jsonrpc must be \"2.0\"" }
  }
  if (typeof method !== "string") {
    return hasId
      ? invalid(id!, new InvalidRequest({ message: "Invalid request: method must be a string" }))
      : invalid(null, new InvalidRequest({ message: "Invalid request: method must be a string" }))
  }
  const params = value["params"]
  if (params !== undefined && !isObject(params)) {
    return hasId
      ? invalid(id!, new InvalidParams({ message: "Invalid params: params must be an object" }))
      : { _tag: "Ignored", reason: "params must be an object" }
  }
  const body = params ?? {}
  return hasId
    ? { _tag: "Request", id: id!, method, params: body }
    : { _tag: "Notification", method, params: body }
}

/**
 * Decodes one frame of text (one stdio line, one HTTP body).
 *
 * @category combinators
 * @since 0.1.0
 */
export const decode = (text: string): Incoming => {
  const parsed = StrictJson.parse(text)
  if (parsed._tag === "Error") {
    return invalid(null, new ParseError({ message: parseErrorMessage[parsed.reason] }))
  }
  return classify(parsed.value, parsed.idLexeme)
}

/**
 * A string with the same characters that shares no memory with the one it was cut from. A
 * substring (what the parser makes of every string in a frame) may be a view into the whole frame
 * in V8, keeping all of it alive for as long as the substring is; concatenating and cutting again
 * copies the characters into a string of their own.
 */
const ownString = (text: string): string => text.length === 0 ? text : (" " + text).slice(1)

const ownValue = (value: unknown): unknown => {
  if (typeof value === "string") return ownString(value)
  if (typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) return value.map(ownValue)
  const copy: Record<string, unknown> = {}
  // Object keys are interned by the engine (never views into the frame); the values are copied.
  for (const key of Object.keys(value)) {
    const member = ownValue((value as Record<string, unknown>)[key])
    // A member named "__proto__" is an own data property (as the parser made it), never the prototype.
    if (key === "__proto__") Object.defineProperty(copy, key, { value: member, writable: true, enumerable: true, configurable: true })
    else copy[key] = member
  }
  return copy
}

/**
 * The same request, holding no memory of the frame it was decoded from: its method, a string id
 * and every string in its params are copied. Decoded strings may be views into the frame's text,
 * so a request kept for long (a `subscriptions/listen` stream lives as long as its client wants)
 * would otherwise keep the whole frame, however much of it was whitespace or members nothing
 * reads. Costs one walk of the params; meant for requests that outlive their frame by far, not
 * for every request.
 *
 * @category combinators
 * @since 0.1.0
 */
export const detach = (request: Request): Request => ({
  _tag: "Request",
  id: typeof request.id === "string" ? ownString(request.id) : request.id,
  method: ownString(request.method),
  params: ownValue(request.params) as Readonly<Record<string, unknown>>
})
