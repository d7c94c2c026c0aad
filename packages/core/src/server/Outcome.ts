/**
 * What the pipeline answers a transport with: one encoded response, and, for a refusal, why and
 * when to retry.
 *
 * @since 0.1.0
 */

/**
 * One encoded response. An error carries its code and the protocol version of the dialect that
 * answered it (a transport with statuses of its own, HTTP, maps the code by it). `streamEnd` is set when the response ends a listen stream the server closed: a
 * transport whose streams share one channel (stdio) writes it right after the response; one with
 * a stream per request (HTTP) ends that stream instead.
 *
 * @category models
 * @since 0.1.0
 */
export type Outcome =
  | {
    readonly _tag: "Result"
    readonly frame: string
    readonly streamEnd?: string
    /**
     * The same frame in three parts, `head` + the result's UTF-8 `bytes` + `tail`, where the result
     * is the same on every request (a list page, encoded once; the bytes are shared by every such
     * request): a transport may write these as they are instead of converting and copying `frame`.
     */
    readonly encoded?: { readonly head: string; readonly bytes: Uint8Array; readonly tail: string }
  }
  | {
    readonly _tag: "Error"
    readonly frame: string
    readonly code: number
    /** The protocol version of the dialect that answered (or refused) the request. */
    readonly version: string
    readonly streamEnd?: string
    /** Set when the request was refused by a bound, not failed: HTTP answers 503 or 429 with `Retry-After`. */
    readonly refusal?: Refusal
    /** Set when a defect (a handler that died) was answered with the generic -32603. */
    readonly exception?: true
  }

/**
 * Why a request was refused before it ran, and when to retry: `"busy"` (a concurrency or queue
 * bound: `ServerBusy`) or `"rate-limited"` (a component's rate limit: `RateLimited`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Refusal {
  readonly reason: "busy" | "rate-limited"
  readonly retryAfterMillis: number
}

