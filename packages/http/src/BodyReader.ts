/**
 * Reads one request body as strict UTF-8 text, within a byte limit and a time limit.
 *
 * Bytes are counted as they arrive and reading stops at the first chunk past the limit, so a body
 * is never buffered beyond it (a `Content-Length` over the limit is refused before reading). Node's
 * `IncomingMessage` is read directly (one listener, one copy). This module imports nothing of
 * Effect's HTTP modules, so a server on Node's own HTTP server never loads them; an Effect
 * `HttpServerRequest` is read by `ServerRequestBody`.
 *
 * @since 0.1.0
 */
import type * as Http from "node:http"
import type * as Http2 from "node:http2"
import type { BodyBudget } from "./BodyBudget.ts"

/**
 * What reading produced.
 *
 * @category models
 * @since 0.1.0
 */
export type Body =
  | { readonly _tag: "Text"; readonly text: string }
  /** Over the byte limit. */
  | { readonly _tag: "TooLarge" }
  /** Not complete within the time limit. */
  | { readonly _tag: "Timeout" }
  /** Not valid UTF-8. */
  | { readonly _tag: "Malformed" }
  /** The connection failed while reading. */
  | { readonly _tag: "Failed" }
  /** The bodies being read together are over their memory budget. */
  | { readonly _tag: "OverBudget" }

const utf8 = new TextDecoder("utf-8", { fatal: true })
const empty = new Uint8Array(0)
/**
 * The body of a request whose declared length is over the limit.
 *
 * @category constants
 * @since 0.1.0
 */
export const tooLarge: { readonly _tag: "TooLarge" } = { _tag: "TooLarge" }
/** A body not read in time. */
export const timeout: Body = { _tag: "Timeout" }
const malformed: Body = { _tag: "Malformed" }
/** A body whose reading failed. */
export const failed: Body = { _tag: "Failed" }
/**
 * The body of a request that did not fit in the budget.
 *
 * @category constants
 * @since 0.1.0
 */
export const overBudget: { readonly _tag: "OverBudget" } = { _tag: "OverBudget" }

/** The body's bytes as strict UTF-8 text, or `Malformed`. */
export const decode = (bytes: Uint8Array): Body => {
  try {
    return { _tag: "Text", text: utf8.decode(bytes) }
  } catch {
    return malformed
  }
}

/**
 * Node's request as a body source.
 *
 * @category models
 * @since 0.1.0
 */
export type NodeSource = Http.IncomingMessage | Http2.Http2ServerRequest

/** Whether a request's source is Node's `IncomingMessage`. */
export const isNodeSource = (source: object): source is NodeSource =>
  "rawHeaders" in source && "on" in source && typeof (source as { on: unknown }).on === "function"

/**
 * A read waiting for its body, in the list of deadlines (earliest first).
 *
 * One timer serves every read: reads of one endpoint share their deadline's length, so they
 * expire in the order they started and a new read joins the end of the list. The timer is armed
 * for the earliest deadline, and kept (unreferenced) while no read waits, so that a request costs
 * no timer of its own: measured in bench/PROFILE.md, a `setTimeout` and `clearTimeout` per body
 * were about 1 µs of a request's CPU.
 */
class NodeRead {
  /** When it expires (epoch milliseconds). */
  readonly at: number
  previous: NodeRead | undefined = undefined
  next: NodeRead | undefined = undefined
  /** Still in the list. */
  waiting = false
  chunks: Array<Buffer> | Buffer | undefined = undefined
  bytes = 0
  settled = false
  readonly source: NodeSource
  readonly maxBytes: number
  readonly done: (body: Body) => void
  readonly budget: BodyBudget | undefined
  readonly onData: (chunk: Buffer) => void
  readonly onEnd: () => void
  readonly onError: () => void

  constructor(source: NodeSource, maxBytes: number, at: number, done: (body: Body) => void, budget: BodyBudget | undefined) {
    this.source = source
    this.maxBytes = maxBytes
    this.at = at
    this.done = done
    this.budget = budget
    this.onData = (chunk) => this.data(chunk)
    this.onEnd = () => this.finish(decode(this.body()), false)
    this.onError = () => this.finish(failed, true)
  }

  private body(): Uint8Array {
    const chunks = this.chunks
    return chunks === undefined ? empty : Array.isArray(chunks) ? Buffer.concat(chunks, this.bytes) : chunks
  }

  private data(chunk: Buffer): void {
    if (this.bytes + chunk.length > this.maxBytes) return this.finish(tooLarge, true)
    if (this.budget !== undefined && !this.budget.take(chunk.length)) return this.finish(overBudget, true)
    this.bytes += chunk.length
    const chunks = this.chunks
    if (chunks === undefined) this.chunks = chunk
    else if (Array.isArray(chunks)) chunks.push(chunk)
    else this.chunks = [chunks, chunk]
  }

  /**
   * Gives the bytes back and leaves the deadlines; `detach` also removes the listeners, needless
   * once the body ended (nothing follows its `end`, and a late `error` finds the read settled).
   */
  private cleanup(detach: boolean): void {
    if (this.budget !== undefined && this.bytes > 0) this.budget.give(this.bytes)
    this.bytes = 0
    // The bytes are decoded (or refused) by now: the stop function the caller may keep holds none.
    this.chunks = undefined
    deadlines.remove(this)
    if (!detach) return
    const source = this.source
    source.off("data", this.onData)
    source.off("end", this.onEnd)
    source.off("error", this.onError)
    source.off("aborted", this.onError)
  }

  finish(body: Body, detach: boolean): void {
    if (this.settled) return
    this.settled = true
    this.cleanup(detach)
    this.done(body)
  }

  stop(): void {
    this.settled = true
    this.cleanup(true)
  }
}

/** The reads waiting, earliest deadline first, and the one timer that expires them. */
const deadlines = new (class Deadlines {
  private first: NodeRead | undefined = undefined
  private last: NodeRead | undefined = undefined
  private timer: ReturnType<typeof setTimeout> | undefined = undefined
  /** When the timer fires. */
  private armedAt = Number.POSITIVE_INFINITY

  add(read: NodeRead): void {
    // From the end: a read of the same endpoint started last expires last.
    let after = this.last
    while (after !== undefined && after.at > read.at) after = after.previous
    read.previous = after
    read.next = after === undefined ? this.first : after.next
    if (read.next === undefined) this.last = read
    else read.next.previous = read
    if (after === undefined) this.first = read
    else after.next = read
    read.waiting = true
    if (read === this.first && read.at < this.armedAt) this.arm(read.at)
    else this.timer?.ref()
  }

  remove(read: NodeRead): void {
    if (!read.waiting) return
    read.waiting = false
    const { next, previous } = read
    if (previous === undefined) this.first = next
    else previous.next = next
    if (next === undefined) this.last = previous
    else next.previous = previous
    read.previous = undefined
    read.next = undefined
    // Nothing waits: the timer stays armed but holds the process no longer.
    if (this.first === undefined) this.timer?.unref()
  }

  private arm(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.armedAt = at
    this.timer = setTimeout(() => this.expire(), Math.max(0, at - Date.now()))
  }

  private expire(): void {
    this.timer = undefined
    this.armedAt = Number.POSITIVE_INFINITY
    const now = Date.now()
    let read = this.first
    while (read !== undefined && read.at <= now) {
      const next = read.next
      read.finish(timeout, true)
      read = next
    }
    if (this.first !== undefined) this.arm(this.first.at)
  }
})()

/**
 * Reads a Node request's body with plain listeners and calls `done` once with the outcome (never
 * for a read that was stopped first). Returns the function that stops reading. With a `budget`,
 * the bytes read are taken from it while the read lasts.
 *
 * @category combinators
 * @since 0.1.0
 */
export const readSource = (
  source: NodeSource,
  maxBytes: number,
  timeoutMillis: number,
  done: (body: Body) => void,
  budget?: BodyBudget
): () => void => {
  const read = new NodeRead(source, maxBytes, Date.now() + timeoutMillis, done, budget)
  if (source.complete && source.readableEnded) {
    read.finish(decode(empty), true)
    return () => read.stop()
  }
  deadlines.add(read)
  source.on("data", read.onData)
  source.on("end", read.onEnd)
  source.on("error", read.onError)
  source.on("aborted", read.onError)
  return () => read.stop()
}

/**
 * Whether a declared `Content-Length` is already over the limit (refused before reading).
 *
 * @category combinators
 * @since 0.1.0
 */
export const declaredTooLarge = (contentLength: string | undefined, maxBytes: number): boolean =>
  contentLength !== undefined && Number(contentLength) > maxBytes

/**
 * Whether a declared `Content-Length` does not fit in what is left of the budget (refused before
 * reading).
 *
 * @category combinators
 * @since 0.1.0
 */
export const declaredOverBudget = (contentLength: string | undefined, budget: BodyBudget): boolean =>
  contentLength !== undefined && !budget.fits(Number(contentLength))
