/**
 * The writer's side of the envelope: JSON-RPC messages to text.
 *
 * Ids are written exactly as they were read (an int64 beyond the safe range is a `bigint`).
 *
 * @example
 * ```ts
 * import { result } from "@snodo/protocol/jsonrpc/Encoder"
 *
 * result(7, { resultType: "complete" }) // '{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete"}}'
 * ```
 *
 * @since 0.1.0
 */
import type { RequestId } from "./Envelope.ts"
import type { WireError } from "./McpError.ts"

const encodeId = (id: RequestId): string =>
  typeof id === "bigint" ? id.toString() : JSON.stringify(id)

/**
 * Whether `value` serializes through a `toJSON` of its own, which `JSON.stringify` calls with the
 * member's name (`"result"` inside the message, `""` alone): such a value is written alone, as
 * it always was.
 */
const writtenAlone = (value: unknown): boolean =>
  typeof value !== "object" || value === null || typeof (value as { readonly toJSON?: unknown }).toJSON === "function"

/**
 * A result response whose whole result is already serialized (`json`): for results that are the
 * same on every request (list pages), serialized once, so that only the id is written per request.
 *
 * @category combinators
 * @since 0.1.0
 */
export const resultJson = (id: RequestId, json: string): string => `${resultHead(id)}${json}}`

/**
 * What a result response has before its result: `resultHead(id) + json + "}"` is
 * {@link resultJson}`(id, json)`, for a transport that writes the result's bytes kept encoded.
 *
 * @category combinators
 * @since 0.1.0
 */
export const resultHead = (id: RequestId): string => `{"jsonrpc":"2.0","id":${encodeId(id)},"result":`

/**
 * A result response.
 *
 * @category combinators
 * @since 0.1.0
 */
export const result = (id: RequestId, value: unknown): string =>
  typeof id === "bigint" || writtenAlone(value)
    ? resultJson(id, JSON.stringify(value))
    // One `JSON.stringify` of the whole message: a flat string, where `resultJson`'s template is a
    // concatenation that the socket's write (or `Buffer.byteLength`) copies again to flatten it.
    : JSON.stringify({ jsonrpc: "2.0", id, result: value })

/**
 * An error response. `null` stands for a request id that could not be read (a parse error, a batch,
 * a bad id): the response then has no `id` member, as MCP's `JSONRPCErrorResponse` (`id?: RequestId`)
 * has it, where base JSON-RPC 2.0 would write `"id": null`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const error = (id: RequestId | null, value: WireError): string =>
  id === null
    ? `{"jsonrpc":"2.0","error":${JSON.stringify(value)}}`
    : `{"jsonrpc":"2.0","id":${encodeId(id)},"error":${JSON.stringify(value)}}`

/**
 * A request (server to client, in the initialize-era dialects).
 *
 * @category combinators
 * @since 0.1.0
 */
export const request = (id: RequestId, method: string, params: unknown): string =>
  `{"jsonrpc":"2.0","id":${encodeId(id)},"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`

/**
 * A notification.
 *
 * @category combinators
 * @since 0.1.0
 */
export const notification = (method: string, params: unknown): string =>
  `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`

/**
 * Ids compare by value whatever their representation.
 *
 * @category combinators
 * @since 0.1.0
 */
export const idKey = (id: RequestId): string => typeof id === "string" ? `s:${id}` : `n:${id.toString()}`

/**
 * The JSON text of `value` with one more member, `key`, first, whose value is already serialized
 * (`json`): for a result whose bulk is the same on every request (a list page's items), so that it
 * is not serialized again.
 *
 * @example
 * ```ts
 * import * as Encoder from "@snodo/protocol/jsonrpc/Encoder"
 *
 * Encoder.objectWithEncoded({ nextCursor: "2" }, "tools", "[]") // '{"tools":[],"nextCursor":"2"}'
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const objectWithEncoded = (value: object, key: string, json: string): string => {
  const rest = JSON.stringify(value)
  return `{${JSON.stringify(key)}:${json}${rest === "{}" ? "}" : "," + rest.slice(1)}`
}
