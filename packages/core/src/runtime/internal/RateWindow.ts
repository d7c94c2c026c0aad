/**
 * A fixed-window rate limit with a bounded key table: at most `limit` admissions per key in each
 * window of `windowMillis`, windows aligned to the clock.
 *
 * The table is emptied whenever a new window begins, so it only ever holds the keys of the
 * current window, and never more than `maxKeys` of them: a key arriving when the table is full
 * shares one overflow count with every other late key of that window (a flood of new principals
 * cannot grow memory, nor get past the limit by being new).
 *
 * @example
 * ```ts
 * import * as RateWindow from "@snodo/core/extension/RateWindow"
 *
 * const window = RateWindow.make({ limit: 2, windowMillis: 1000, maxKeys: 100 })
 * window.admit("alice", 0) // undefined: admitted
 * window.admit("alice", 10) // undefined
 * window.admit("alice", 20) // 980: refused, retry after 980 ms
 * ```
 *
 * @since 0.1.0
 */

/**
 * @category models
 * @since 0.1.0
 */
export interface RateWindow {
  readonly limit: number
  readonly windowMillis: number
  /**
   * Admits one call of `key` at `now` (epoch ms): `undefined` when admitted, else the
   * milliseconds until the window ends.
   */
  readonly admit: (key: string, now: number) => number | undefined
  /** Keys counted in the current window (bounded by `maxKeys`, plus the overflow count). */
  readonly size: () => number
}

/** Where keys beyond the table's capacity are counted together. */
const overflowKey = "\u0000overflow"

/**
 * A new rate window.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: { readonly limit: number; readonly windowMillis: number; readonly maxKeys: number }): RateWindow => {
  const { limit, maxKeys, windowMillis } = options
  let counts = new Map<string, number>()
  let windowEnd = 0
  return {
    limit,
    windowMillis,
    admit: (key, now) => {
      if (now >= windowEnd) {
        windowEnd = (Math.floor(now / windowMillis) + 1) * windowMillis
        counts = new Map()
      }
      const counted = counts.has(key) || counts.size < maxKeys ? key : overflowKey
      const used = counts.get(counted) ?? 0
      if (used >= limit) return windowEnd - now
      counts.set(counted, used + 1)
      return undefined
    },
    size: () => counts.size
  }
}
