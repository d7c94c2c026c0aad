/**
 * The HTTP status of a JSON-RPC error: the Streamable HTTP transport's matter, by the era of the
 * dialect that answered (the core's `Outcome` carries its code and that dialect's version).
 *
 * - 2026-07-28 (and any stateless revision built from it): -32700, -32600, -32602 and the MCP codes
 *   -32020..-32022 are 400, -32601 is 404, -32603 is 500; any other (application) code travels in
 *   a 200.
 * - 2025-11-25: 400 for a frame that is not a valid request (-32700, -32600), 200 for any error
 *   answering a request.
 * - A refusal by a bound is 503 (busy) or 429 (rate limited), in either era (`Reply.refusal` adds
 *   `Retry-After`).
 *
 * @example
 * ```ts
 * import * as Status from "@snodo/http/Status"
 *
 * Status.ofCode("2026-07-28", -32601) // 404
 * Status.ofCode("2025-11-25", -32601) // 200
 * ```
 *
 * @since 0.1.0
 */
import type { Outcome } from "@snodo/core/transport/Outcome"

/**
 * The initialize-era revision, whose errors answering a request travel in a 200.
 *
 * @category constants
 * @since 0.1.0
 */
export const initializeEra = "2025-11-25"

const stateless = (code: number): number => {
  switch (code) {
    case -32700:
    case -32600:
    case -32602:
    case -32020:
    case -32021:
    case -32022:
      return 400
    case -32601:
      return 404
    case -32603:
      return 500
    default:
      return 200
  }
}

const initialize = (code: number): number => code === -32700 || code === -32600 ? 400 : 200

/**
 * The status of an error code answered by the dialect of `version`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const ofCode = (version: string, code: number): number => version === initializeEra ? initialize(code) : stateless(code)

/**
 * The status of an error outcome: a refusal's (503 busy, 429 rate limited), else its code's.
 *
 * @category combinators
 * @since 0.1.0
 */
export const of = (outcome: Extract<Outcome, { readonly _tag: "Error" }>): number => {
  if (outcome.refusal !== undefined) return outcome.refusal.reason === "busy" ? 503 : 429
  return ofCode(outcome.version, outcome.code)
}
