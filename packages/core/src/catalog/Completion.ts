/**
 * Completion providers for prompt arguments and resource template variables.
 *
 * A provider receives the partial value typed so far and the other arguments already chosen, and
 * returns candidate values. The runtime caps the answer at 100 values, setting `total` and
 * `hasMore`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Completion from "@snodo/core/Completion"
 *
 * const cities = Completion.fromList(["Paris", "Perth", "Prague"])
 * ```
 *
 * @since 0.1.0
 */
import { Effect } from "effect"

/**
 * What a completion request says about the value being typed.
 *
 * @category models
 * @since 0.1.0
 */
export interface Request {
  /** The partial value. */
  readonly value: string
  /** Arguments or variables already resolved, from `context.arguments`. */
  readonly arguments: Readonly<Record<string, string>>
}

/**
 * A completion provider.
 *
 * @category models
 * @since 0.1.0
 */
export type Provider<R = never> = (request: Request) => Effect.Effect<ReadonlyArray<string>, never, R>

/**
 * Providers by argument or variable name.
 *
 * @category models
 * @since 0.1.0
 */
export type Providers<R = never> = Readonly<Record<string, Provider<R>>>

/**
 * Most values in one answer.
 *
 * @category constants
 * @since 0.1.0
 */
const maxValues = 100

/**
 * Candidates from a fixed list that start with the typed value (case-insensitive).
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromList = (values: ReadonlyArray<string>): Provider => (request) => {
  const prefix = request.value.toLowerCase()
  return Effect.succeed(values.filter((value) => value.toLowerCase().startsWith(prefix)))
}

/**
 * The wire form of an answer, capped at {@link maxValues}.
 *
 * @category combinators
 * @since 0.1.0
 */
export const toWire = (values: ReadonlyArray<string>): { values: Array<string>; total: number; hasMore: boolean } => ({
  values: values.slice(0, maxValues),
  total: values.length,
  hasMore: values.length > maxValues
})
