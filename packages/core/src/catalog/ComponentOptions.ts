/**
 * The limits a component (a tool, a resource, a resource template, a prompt) declares for its own
 * handler, beside its description: how many of its handlers run at once, how many wait, how long
 * one may run, and how often one principal may call it. They are options of `Tool.make`,
 * `Resource.make`, `ResourceTemplate.make` and `Prompt.make`, enforced by the `Executor`, so one
 * slow or abused component fills its own bulkhead and not the whole server.
 *
 * | option | default | past it |
 * |---|---|---|
 * | `concurrency` | 32 running | the request waits in the component's fair queue |
 * | `queue` | 256 waiting | -32603 `ServerBusy` (HTTP 503); the principal with the most waiting loses its newest first |
 * | `timeout` | none | the handler is interrupted, -32603 `data: {reason: "timeout", timeoutMs}` |
 * | `rateLimit` | none | -32603 `RateLimited` (HTTP 429, `Retry-After`) |
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import * as Tool from "@snodo/core/Tool"
 *
 * const search = Tool.make("search", {
 *   input: Schema.Struct({ query: Schema.String }),
 *   concurrency: 4,
 *   timeout: "10 seconds",
 *   rateLimit: { limit: 60, window: "1 minute" }
 * }, ({ query }) => Effect.succeed(`results for ${query}`))
 * ```
 *
 * @since 0.1.0
 */
import { Duration } from "effect"

/**
 * A fixed-window rate limit, counted per principal.
 *
 * @category models
 * @since 0.1.0
 */
export interface RateLimit {
  /** Calls admitted per principal and window. */
  readonly limit: number
  /** The window; windows are aligned to the clock (a one-minute window restarts every minute). */
  readonly window: Duration.Input
  /**
   * Principals counted apart within one window (default 10,000): the key table never grows
   * beyond it; later principals of that window share one count.
   */
  readonly maxKeys?: number
}

/**
 * The limits of one component; every field is optional.
 *
 * @category models
 * @since 0.1.0
 */
export interface ComponentOptions {
  /** Handlers of this component running at once (default 32). */
  readonly concurrency?: number
  /** Requests of this component waiting for a place (default 256). */
  readonly queue?: number
  /** How long one handler may run once started (default: no limit but the transport's deadline). */
  readonly timeout?: Duration.Input
  /** How often one principal may call this component. */
  readonly rateLimit?: RateLimit
}

/**
 * The limits with their defaults applied.
 *
 * @category models
 * @since 0.1.0
 */
export interface Limits {
  readonly concurrency: number
  readonly queue: number
  readonly timeoutMillis: number | undefined
  readonly rateLimit: { readonly limit: number; readonly windowMillis: number; readonly maxKeys: number } | undefined
}

/**
 * Defaults: 32 running, 256 waiting, no timeout, no rate limit.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults: Limits = { concurrency: 32, queue: 256, timeoutMillis: undefined, rateLimit: undefined }

const count = (value: number | undefined, fallback: number): number => value === undefined ? fallback : value

/** Milliseconds of a duration input; `NaN` for one that is not a duration (refused by {@link check}). */
const millis = (input: Duration.Input): number => {
  const duration = Duration.fromInput(input)
  return duration._tag === "Some" ? Math.ceil(Duration.toMillis(duration.value)) : Number.NaN
}

/**
 * Applies the defaults. Limits are taken as given: {@link check} says what is wrong with them, and
 * the catalog refuses a component whose limits do not pass it (a `CatalogError` naming the
 * component, when the server's Layer is built) — defining one never throws.
 *
 * @category combinators
 * @since 0.1.0
 */
export const resolve = (options: ComponentOptions): Limits => {
  if (
    options.concurrency === undefined && options.queue === undefined && options.timeout === undefined &&
    options.rateLimit === undefined
  ) return defaults
  const rate = options.rateLimit
  return {
    concurrency: count(options.concurrency, defaults.concurrency),
    queue: count(options.queue, defaults.queue),
    timeoutMillis: options.timeout === undefined ? undefined : millis(options.timeout),
    rateLimit: rate === undefined ? undefined : {
      limit: count(rate.limit, 1),
      windowMillis: millis(rate.window),
      maxKeys: count(rate.maxKeys, 10_000)
    }
  }
}

const integerProblem = (name: string, value: number, minimum: number): string | undefined =>
  Number.isSafeInteger(value) && value >= minimum ? undefined : `${name} must be an integer ≥ ${minimum}, got ${value}`

const durationProblem = (name: string, value: number): string | undefined =>
  Number.isFinite(value) && value > 0 ? undefined : `${name} must be a positive duration`

/**
 * What is wrong with resolved limits (the first problem), or `undefined` when they can run.
 *
 * @category combinators
 * @since 0.1.0
 */
export const check = (limits: Limits): string | undefined => {
  if (limits === defaults) return undefined
  const rate = limits.rateLimit
  return integerProblem("concurrency", limits.concurrency, 1) ??
    integerProblem("queue", limits.queue, 0) ??
    (limits.timeoutMillis === undefined ? undefined : durationProblem("timeout", limits.timeoutMillis)) ??
    (rate === undefined ? undefined : integerProblem("rateLimit.limit", rate.limit, 1) ??
      durationProblem("rateLimit.window", rate.windowMillis) ??
      integerProblem("rateLimit.maxKeys", rate.maxKeys, 1))
}

/**
 * Separates a definition's component options from the rest of its fields (which describe it on
 * the wire), and resolves them.
 *
 * @category combinators
 * @since 0.1.0
 */
export const split = <O extends ComponentOptions>(
  options: O
): { readonly limits: Limits; readonly rest: Omit<O, keyof ComponentOptions> } => {
  const { concurrency, queue, timeout, rateLimit, ...rest } = options
  const limits = resolve({
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(queue === undefined ? {} : { queue }),
    ...(timeout === undefined ? {} : { timeout }),
    ...(rateLimit === undefined ? {} : { rateLimit })
  })
  return { limits, rest }
}
