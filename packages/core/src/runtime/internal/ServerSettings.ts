/**
 * The server's fixed configuration, resolved from its options once, when its Layer is built.
 *
 * @since 0.1.0
 */
import type { Duration } from "effect"
import type { CacheHint } from "../../pipeline/Shaping.ts"
import type * as Listen from "../Listen.ts"
import type { Limits as ProgressLimits } from "../Progress.ts"

/**
 * @category models
 * @since 0.1.0
 */
export interface Settings {
  readonly serverInfo: Readonly<Record<string, unknown>>
  readonly instructions: string | undefined
  readonly capabilities: Readonly<Record<string, unknown>>
  /**
   * Hints of cacheable methods' complete results, by method; a cacheable method without one gets
   * `{ ttlMs: 0, cacheScope: "private" }`.
   */
  readonly cache: Readonly<Record<string, CacheHint>>
  readonly logging: boolean
  readonly progress: ProgressLimits
  readonly listen: Listen.Limits
  /**
   * How long a handler waits for the client's answer to a server-to-client request
   * (initialize-era dialects; default 60 s).
   */
  readonly clientRequestTimeout?: Duration.Input
}

