/**
 * The HTTP answers of the transport as plain data, and their Effect `HttpServerResponse` form.
 *
 * A {@link Reply} is what every adapter writes the same way: a status, headers, and a JSON body
 * (or none). `McpHttp` turns it into an `HttpServerResponse` with {@link toResponse}; `NodeServe`
 * writes it to Node's `ServerResponse` directly.
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
import type { Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { type Reply, sseHeaders } from "./Reply.ts"

export * from "./Reply.ts"

/**
 * A reply as an Effect `HttpServerResponse`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const toResponse = (reply: Reply): HttpServerResponse.HttpServerResponse =>
  reply.body === undefined
    ? HttpServerResponse.empty({ status: reply.status, headers: reply.headers })
    : HttpServerResponse.text(reply.body, { status: reply.status, contentType: "application/json", headers: reply.headers })

/**
 * A request-scoped SSE stream as an Effect `HttpServerResponse`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const eventStream = (body: Stream.Stream<Uint8Array>): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.stream(body, { contentType: "text/event-stream", headers: sseHeaders })
