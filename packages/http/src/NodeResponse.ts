/**
 * Answers written straight to Node's `ServerResponse`: the {@link Exchange.Delivery} of the
 * one-call server, and the plain replies it writes before or instead of an exchange.
 *
 * A JSON reply is one `writeHead` with its `Content-Length` and one `end`; an SSE stream is a
 * `writeHead`, one `write` per event (its callback acknowledges the event to the handler), and
 * `end`. Nothing is written to a response that already ended or whose connection is gone.
 *
 * @example
 * ```ts
 * import * as NodeResponse from "@snodo/http/NodeResponse"
 * import * as Replies from "@snodo/http/Replies"
 *
 * NodeResponse.write(response, Replies.accepted) // 202, no body
 * ```
 *
 * @since 0.1.0
 */
import type * as Http from "node:http"
import type { Delivery } from "./Exchange.ts"
import * as Reply from "./Reply.ts"

const streamHeaders: Readonly<Record<string, string>> = { "content-type": "text/event-stream", ...Reply.sseHeaders }

/**
 * Whether nothing can reach the client any more. A client that disconnects while its body is being
 * read destroys the socket first: the request's `aborted` event (which ends the read) comes before
 * the response's `close`, while `response.destroyed` is still false. A response not given its
 * socket yet (behind a pipelined one) is not gone.
 */
const gone = (response: Http.ServerResponse): boolean =>
  response.writableEnded || response.destroyed || response.socket?.destroyed === true

/**
 * Writes a whole reply.
 *
 * @category combinators
 * @since 0.1.0
 */
export const write = (response: Http.ServerResponse, reply: Reply.Reply): void => {
  if (gone(response)) return
  const body = reply.body
  if (body === undefined) {
    response.writeHead(reply.status, reply.headers)
    response.end()
    return
  }
  // With its length known, Node writes head and body in one `write` (chunked encoding costs a writev).
  response.writeHead(reply.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...reply.headers
  })
  response.end(body)
}

/**
 * The delivery of one exchange on `response`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const delivery = (response: Http.ServerResponse): Delivery => ({
  settle: (reply) => {
    if (reply !== undefined) return write(response, reply)
    if (gone(response)) return
    response.writeHead(200, streamHeaders)
    response.end()
  },
  open: () => {
    if (!gone(response)) response.writeHead(200, streamHeaders)
  },
  event: (text, written) => {
    if (gone(response)) written?.()
    else if (written === undefined) response.write(text)
    else response.write(text, () => written())
  },
  end: () => {
    if (!gone(response)) response.end()
  }
})
