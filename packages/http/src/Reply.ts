/**
 * The HTTP answers of the transport as plain data.
 *
 * A {@link Reply} is what every adapter writes the same way: a status, headers, and a JSON body
 * (or none). `NodeServe` writes it to Node's `ServerResponse` directly; `Replies` (the public
 * module, which re-exports this one) turns it into Effect's `HttpServerResponse` for `McpHttp`.
 * This module imports nothing of Effect's HTTP modules, so a server on Node's own HTTP server
 * never loads them.
 *
 * The HTTP status of a JSON-RPC error is its code's in the era of the dialect that answered
 * (`Status`; the runtime's `Outcome` carries the code and the dialect's version). A refusal that concerns no readable request carries a JSON-RPC error
 * without an `id`.
 *
 * @example
 * ```ts
 * import * as Replies from "@snodo/http/Replies"
 *
 * Replies.refuse(415, -32600, "Unsupported Media Type") // { status: 415, body: '{"jsonrpc":"2.0","error":…}', headers: {} }
 * ```
 *
 * @since 0.1.0
 */
import * as Encoder from "@snodo/protocol/jsonrpc/Encoder"
import type { WireError } from "@snodo/core/McpError"
import type { Outcome, Refusal } from "@snodo/core/transport/ServerRuntime"

/**
 * One complete answer: `body` is a JSON text (`application/json`), or `undefined` for none.
 *
 * @category models
 * @since 0.1.0
 */
export interface Reply {
  readonly status: number
  readonly body: string | undefined
  /**
   * The same body in three parts whose middle is UTF-8 bytes kept encoded (a list page): an
   * adapter that writes bytes may write these instead of `body`.
   */
  readonly encoded?: Extract<Outcome, { readonly _tag: "Result" }>["encoded"]
  readonly headers: Readonly<Record<string, string>>
}

/**
 * The headers of a reply that adds none of its own (its writer adds `Content-Type` and
 * `Content-Length`): one shared object, which a writer may recognize to skip copying it.
 *
 * @category constants
 * @since 0.1.0
 */
export const noHeaders: Readonly<Record<string, string>> = Object.freeze({})

/**
 * A JSON-RPC message as the whole answer.
 *
 * @category combinators
 * @since 0.1.0
 */
export const json = (frame: string, status: number, headers: Readonly<Record<string, string>> = noHeaders): Reply => ({
  status,
  body: frame,
  headers
})

/**
 * A JSON-RPC error response without an `id` (the request could not be read).
 *
 * @category combinators
 * @since 0.1.0
 */
export const errorFrame = (code: number, message: string): string => Encoder.error(null, { code, message })

/**
 * A refusal: the status, and a JSON-RPC error without an `id` explaining it.
 *
 * @category combinators
 * @since 0.1.0
 */
export const refuse = (status: number, code: number, message: string, headers?: Readonly<Record<string, string>>): Reply =>
  json(errorFrame(code, message), status, headers)

/**
 * A refusal whose JSON-RPC error (without an `id`) carries `data`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const refuseWith = (status: number, error: WireError, headers?: Readonly<Record<string, string>>): Reply =>
  json(Encoder.error(null, error), status, headers)

/**
 * The answer to a request the runtime refused by a bound: 503 (busy) or 429 (rate limited), with
 * `Retry-After` in whole seconds (at least 1).
 *
 * @category combinators
 * @since 0.1.0
 */
export const refusal = (frame: string, refused: Refusal): Reply =>
  json(frame, refused.reason === "busy" ? 503 : 429, { "retry-after": String(Math.max(1, Math.ceil(refused.retryAfterMillis / 1000))) })

/**
 * The answer to a defect of the transport (a bug, or an application's `allowedHosts` predicate
 * that throws): 500 with a -32603 that names nothing, and the connection closed.
 *
 * @category constants
 * @since 0.1.0
 */
export const internalError: Reply = refuse(500, -32603, "Internal error", { connection: "close" })

/**
 * A notification accepted: 202, no body.
 *
 * @category constants
 * @since 0.1.0
 */
export const accepted: Reply = { status: 202, body: undefined, headers: noHeaders }

/**
 * GET, DELETE and every other method than POST.
 *
 * @category constants
 * @since 0.1.0
 */
export const methodNotAllowed: Reply = refuse(405, -32600, "Method not allowed: the MCP endpoint accepts POST only", {
  allow: "POST"
})

/**
 * The headers of a request-scoped SSE stream (besides its content type).
 *
 * @category constants
 * @since 0.1.0
 */
export const sseHeaders: Readonly<Record<string, string>> = { "cache-control": "no-cache", "x-accel-buffering": "no" }
