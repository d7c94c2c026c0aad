/**
 * The HTTP responses of the transport: JSON-RPC answers with their status, SSE streams, and the
 * refusals that happen before a body is read.
 *
 * JSON-RPC errors map to HTTP statuses: -32700, -32600, -32602 and the MCP codes -32020..-32022
 * are 400, -32601 is 404, -32603 is 500; any other (application) code travels in a 200. A refusal
 * that concerns no readable request carries a JSON-RPC error without an `id`.
 *
 * @example
 * ```ts
 * import { statusOf } from "@snodo/http/Replies"
 *
 * statusOf(-32601) // 404
 * statusOf(-32001) // 200: an application error
 * ```
 *
 * @since 0.1.0
 */
import type { Stream } from "effect"
import { HttpServerResponse } from "effect/http"

/**
 * The HTTP status of a JSON-RPC error code.
 *
 * @since 0.1.0
 */
export const statusOf = (code: number): number => {
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

/** A JSON-RPC message as the whole response. @since 0.1.0 */
export const json = (frame: string, status: number): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(frame, { status, contentType: "application/json" })

/** A JSON-RPC error response without an `id` (the request could not be read). @since 0.1.0 */
export const errorFrame = (code: number, message: string): string =>
  `{"jsonrpc":"2.0","error":${JSON.stringify({ code, message })}}`

/**
 * A refusal: the status, and a JSON-RPC error without an `id` explaining it.
 *
 * @since 0.1.0
 */
export const refuse = (
  status: number,
  code: number,
  message: string,
  headers?: Readonly<Record<string, string>>
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(errorFrame(code, message), {
    status,
    contentType: "application/json",
    ...(headers === undefined ? {} : { headers })
  })

/** A notification accepted: 202, no body. @since 0.1.0 */
export const accepted: HttpServerResponse.HttpServerResponse = HttpServerResponse.empty({ status: 202 })

/** GET, DELETE and every other method than POST. @since 0.1.0 */
export const methodNotAllowed: HttpServerResponse.HttpServerResponse = refuse(
  405,
  -32600,
  "Method not allowed: the MCP endpoint accepts POST only",
  { allow: "POST" }
)

const sseHeaders = { "cache-control": "no-cache", "x-accel-buffering": "no" }

/** A request-scoped SSE stream. @since 0.1.0 */
export const eventStream = (body: Stream.Stream<Uint8Array>): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.stream(body, { contentType: "text/event-stream", headers: sseHeaders })
