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
import type * as Http2 from "node:http2"
import type { Delivery } from "./Exchange.ts"
import * as Reply from "./Reply.ts"

/**
 * A request as Node gives it: HTTP/1.1's `IncomingMessage`, or an HTTP/2 stream's compatibility request.
 *
 * @category models
 * @since 0.1.0
 */
export type NodeRequest = Http.IncomingMessage | Http2.Http2ServerRequest

/**
 * A response as Node gives it: HTTP/1.1's `ServerResponse`, or an HTTP/2 stream's compatibility response.
 *
 * @category models
 * @since 0.1.0
 */
export type NodeServerResponse = Http.ServerResponse | Http2.Http2ServerResponse

/** What is written to a response: the members both kinds share, with one signature each. */
interface Writable {
  readonly writableEnded: boolean
  readonly destroyed: boolean
  readonly headersSent: boolean
  readonly socket: { readonly destroyed: boolean } | null
  /** An HTTP/2 response's stream: reset or closed, nothing more can be written (it would throw). */
  readonly stream?: { readonly destroyed: boolean; readonly closed: boolean }
  writeHead(status: number, headers: Http.OutgoingHttpHeaders): unknown
  write(chunk: string | Uint8Array, callback?: (error?: Error | null) => void): boolean
  end(): unknown
  end(chunk: string): unknown
}

const writable = (response: NodeServerResponse): Writable => response

/** Whether `response` answers an HTTP/2 stream. */
export const isHttp2 = (response: NodeServerResponse): response is Http2.Http2ServerResponse => "stream" in response

/**
 * HTTP/2 has no connection-specific headers (RFC 9113 §8.2.2): a refusal's `connection: close`
 * (its request's body is not read) is left out, and the stream is reset with `NO_ERROR` once the
 * answer is written instead (§8.1: the client stops sending the body; the connection carries on).
 */
const headersFor = (response: NodeServerResponse, headers: Readonly<Record<string, string>>): Readonly<Record<string, string>> => {
  if (!isHttp2(response) || headers["connection"] === undefined) return headers
  const { connection: _, ...rest } = headers
  return rest
}

/** Ends an HTTP/2 stream whose answer asked to close the connection (see {@link headersFor}). */
const resetIfClosing = (response: NodeServerResponse, headers: Readonly<Record<string, string>>): void => {
  // `close` sends RST_STREAM once what was written is flushed.
  if (isHttp2(response) && headers["connection"] !== undefined && !response.stream.closed) response.stream.close()
}

const streamHeaders: Readonly<Record<string, string>> = { "content-type": "text/event-stream", ...Reply.sseHeaders }

/**
 * Whether nothing can reach the client any more. A client that disconnects while its body is being
 * read destroys the socket first: the request's `aborted` event (which ends the read) comes before
 * the response's `close`, while `response.destroyed` is still false. A response not given its
 * socket yet (behind a pipelined one) is not gone. An HTTP/2 stream the client reset is gone.
 */
const gone = (response: Writable): boolean =>
  response.writableEnded || response.destroyed || response.socket?.destroyed === true ||
  (response.stream !== undefined && (response.stream.destroyed || response.stream.closed))

/**
 * Writes a whole reply.
 *
 * @category combinators
 * @since 0.1.0
 */
export const write = (response: NodeServerResponse, reply: Reply.Reply): void => {
  const out = writable(response)
  if (gone(out)) return
  const body = reply.body
  if (body === undefined) {
    out.writeHead(reply.status, headersFor(response, reply.headers))
    out.end()
    return resetIfClosing(response, reply.headers)
  }
  const encoded = reply.encoded
  if (encoded !== undefined && reply.headers === Reply.noHeaders) {
    // The body's bytes as they are (a list page): no per-request conversion and copy of the whole
    // page into a string and out of it. The three writes leave in one `writev` (Node corks the
    // socket for a response's first write until the next tick).
    const length = Buffer.byteLength(encoded.head) + encoded.bytes.byteLength + Buffer.byteLength(encoded.tail)
    out.writeHead(reply.status, { "content-type": "application/json", "content-length": length })
    out.write(encoded.head)
    out.write(encoded.bytes)
    out.end(encoded.tail)
    return
  }
  // With its length known, Node writes head and body in one `write` (chunked encoding costs a writev).
  if (reply.headers === Reply.noHeaders) {
    // Most answers: nothing to copy in, nothing that closes the connection.
    out.writeHead(reply.status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    out.end(body)
    return
  }
  out.writeHead(reply.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...headersFor(response, reply.headers)
  })
  out.end(body)
  resetIfClosing(response, reply.headers)
}

/** The delivery of one exchange on a response (an object, not four closures per request). */
class NodeDelivery implements Delivery {
  private readonly response: NodeServerResponse
  private readonly out: Writable

  constructor(response: NodeServerResponse) {
    this.response = response
    this.out = response
  }

  settle(reply: Reply.Reply | undefined): void {
    if (reply !== undefined) return write(this.response, reply)
    if (gone(this.out)) return
    this.out.writeHead(200, streamHeaders)
    this.out.end()
  }

  open(): void {
    if (!gone(this.out)) this.out.writeHead(200, streamHeaders)
  }

  event(text: string, written: (() => void) | undefined): void {
    if (gone(this.out)) written?.()
    else if (written === undefined) this.out.write(text)
    else this.out.write(text, () => written())
  }

  end(): void {
    if (!gone(this.out)) this.out.end()
  }
}

/**
 * The delivery of one exchange on `response`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const delivery = (response: NodeServerResponse): Delivery => new NodeDelivery(response)
