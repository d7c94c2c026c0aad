/**
 * The memory budget every request body being read shares: `maxBodyBytes` bounds one body,
 * this bounds all of them together (1,000 connections each sending 2 MiB would otherwise hold
 * 2 GiB).
 *
 * A reader takes bytes from the budget as they arrive and gives them back once the body is read
 * (or refused, or the client is gone). A chunk that does not fit ends the read: the request is
 * answered 503 with `Retry-After` and its connection closed, before anything more is read. A body
 * whose declared `Content-Length` does not fit in what is left is refused before reading.
 *
 * @example
 * ```ts
 * import * as BodyBudget from "@snodo/http/BodyBudget"
 *
 * const budget = BodyBudget.make(64 * 1024 * 1024)
 * budget.take(1024) // true: taken
 * budget.give(1024)
 * ```
 *
 * @since 0.1.0
 */

/**
 * @category models
 * @since 0.1.0
 */
export interface BodyBudget {
  /** Bytes all bodies may hold at once. */
  readonly limit: number
  /** Bytes held now. */
  readonly used: () => number
  /** Takes `bytes`; `false` (nothing taken) when they do not fit. */
  readonly take: (bytes: number) => boolean
  /** Gives back bytes taken before. */
  readonly give: (bytes: number) => void
  /** Whether `bytes` more would fit now. */
  readonly fits: (bytes: number) => boolean
}

/**
 * A budget of `limit` bytes.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (limit: number): BodyBudget => {
  let used = 0
  return {
    limit,
    used: () => used,
    take: (bytes) => {
      if (used + bytes > limit) return false
      used += bytes
      return true
    },
    give: (bytes) => {
      used -= bytes
    },
    fits: (bytes) => used + bytes <= limit
  }
}
