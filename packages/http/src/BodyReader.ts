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
 * A read's deadline, in the list of deadlines (earliest first).
 *
 * One timer serves every read: reads of one endpoint share their deadline's length, so they
 * expire in the order they started and a new read joins the end of the list. The timer is armed
 * for the earliest deadline, and kept (unreferenced) while no read waits, so that a request costs
 * no timer of its own: measured in bench/PROFILE.md, a `setTimeout` and `clearTimeout` per body
 * were about 1 µs of a request's CPU.
 */
class Deadline {
  /** When it expires (epoch milliseconds). */
  readonly at: number
  /** The read's own `finish`, called with {@link timeout} (no closure of its own per read). */
  readonly finish: (body: Body, detach: boolean) => void
  previous: Deadline | undefined = undefined
  next: Deadline | undefined = undefined
  /** Still in the list. */
  waiting = false

  constructor(at: number, finish: (body: Body, detach: boolean) => void) {
    this.at = at
    this.finish = finish
  }
}

/** The deadlines of the reads waiting, earliest first, and the one timer that expires them. */
const deadlines = new (class Deadlines {
  private first: Deadline | undefined = undefined
  private last: Deadline | undefined = undefined
  private timer: ReturnType<typeof setTimeout> | undefined = undefined
  /** When the timer fires. */
  private armedAt = Number.POSITIVE_INFINITY

  add(deadline: Deadline): void {
    // From the end: a read of the same endpoint started last expires last.
    let after = this.last
    while (after !== undefined && after.at > deadline.at) after = after.previous
    deadline.previous = after
    deadline.next = after === undefined ? this.first : after.next
    if (deadline.next === undefined) this.last = deadline
    else deadline.next.previous = deadline
    if (after === undefined) this.first = deadline
    else after.next = deadline
    deadline.waiting = true
    if (deadline === this.first && deadline.at < this.armedAt) this.arm(deadline.at)
    else this.timer?.ref()
  }

  remove(deadline: Deadline): void {
    if (!deadline.waiting) return
    deadline.waiting = false
    const { next, previous } = deadline
    if (previous === undefined) this.first = next
    else previous.next = next
    if (next === undefined) this.last = previous
    else next.previous = previous
    deadline.previous = undefined
    deadline.next = undefined
    // Nothing waits: the timer stays armed but holds the process no longer.
    if (this.first === undefined) this.timer?.unref()
  }

  private arm(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.armedAt = at
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - Date.now()))
  }

  private fire(): void {
    this.timer = undefined
    this.armedAt = Number.POSITIVE_INFINITY
    const now = Date.now()
    let deadline = this.first
    while (deadline !== undefined && deadline.at <= now) {
      const next = deadline.next
      this.remove(deadline)
      deadline.finish(timeout, true)
      deadline = next
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
  // Plain closures, not an object of state: measured (bench/PROFILE.md), a state object made per
  // read had V8 promote every request's objects to the old generation under load.
  // The body's first chunk, and the list of them once a second one came: most bodies are one chunk,
  // and an empty array would get its backing store at the first push.
  let single: Buffer | undefined
  let chunks: Array<Buffer> | undefined
  let bytes = 0
  let settled = false
  /**
   * Gives the bytes back and leaves the deadlines; `detach` also removes the listeners, needless
   * once the body ended (nothing follows its `end`, and a late `error` finds the read settled).
   */
  const cleanup = (detach: boolean) => {
    if (budget !== undefined && bytes > 0) budget.give(bytes)
    bytes = 0
    // The bytes are decoded (or refused) by now: the stop function the caller may keep holds none.
    single = undefined
    chunks = undefined
    deadlines.remove(deadline)
    if (!detach) return
    source.off("data", onData)
    source.off("end", onEnd)
    source.off("error", onError)
    source.off("aborted", onError)
  }
  const finish = (body: Body, detach: boolean) => {
    if (settled) return
    settled = true
    cleanup(detach)
    done(body)
  }
  const onData = (chunk: Buffer) => {
    if (settled) return
    if (bytes + chunk.length > maxBytes) return finish(tooLarge, true)
    if (budget !== undefined && !budget.take(chunk.length)) return finish(overBudget, true)
    bytes += chunk.length
    if (single === undefined) single = chunk
    else if (chunks === undefined) chunks = [single, chunk]
    else chunks.push(chunk)
  }
  const onEnd = () => finish(decode(chunks !== undefined ? Buffer.concat(chunks, bytes) : single ?? empty), false)
  const onError = () => finish(failed, true)
  const deadline = new Deadline(Date.now() + timeoutMillis, finish)
  const stop = () => {
    settled = true
    cleanup(true)
  }
  if (source.complete && source.readableEnded) {
    finish(decode(empty), true)
    return stop
  }
  deadlines.add(deadline)
  source.on("data", onData)
  source.on("end", onEnd)
  source.on("error", onError)
  source.on("aborted", onError)
  return stop
}

/**
 * `Number(contentLength)`, read directly when it is plain digits (as Node's HTTP/1.1 parser admits
 * it), where `Number` of a string goes through the runtime's general conversion.
 */
const lengthOf = (contentLength: string): number => {
  const length = contentLength.length
  if (length === 0 || length > 15) return Number(contentLength)
  let value = 0
  for (let i = 0; i < length; i++) {
    const digit = contentLength.charCodeAt(i) - 48
    if (digit < 0 || digit > 9) return Number(contentLength)
    value = value * 10 + digit
  }
  return value
}

/**
 * Whether a declared `Content-Length` is already over the limit (refused before reading).
 *
 * @category combinators
 * @since 0.1.0
 */
export const declaredTooLarge = (contentLength: string | undefined, maxBytes: number): boolean =>
  contentLength !== undefined && lengthOf(contentLength) > maxBytes

/**
 * Whether a declared `Content-Length` does not fit in what is left of the budget (refused before
 * reading).
 *
 * @category combinators
 * @since 0.1.0
 */
export const declaredOverBudget = (contentLength: string | undefined, budget: BodyBudget): boolean =>
  contentLength !== undefined && !budget.fits(lengthOf(contentLength))
