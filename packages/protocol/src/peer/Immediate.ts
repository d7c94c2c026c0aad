/**
 * Whether an effect has completed already.
 *
 * In Effect 4 an `Exit` is an `Effect` (`Effect.succeed`, `Effect.fail` and `Effect.void` are
 * `Exit`s), so a step handed an `Exit` knows its result without running anything: the peer, the
 * core's pipeline and the HTTP transport answer such a request in the same turn, without forking a
 * fiber. This is the one test they share.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { isDone } from "@snodo/protocol/peer/Done"
 *
 * isDone(Effect.succeed(1)) // true: an Exit
 * isDone(Effect.sync(() => 1)) // false: it must be run
 * ```
 *
 * @since 0.1.0
 */
import { type Effect, Exit } from "effect"

/**
 * A constructor whose `prototype` is that of an `Exit` of this copy of Effect: `instanceof` it is a
 * walk of the prototype chain that V8 compiles inline (no call, no runtime lookup).
 */
const madeLike = (exit: Exit.Exit<unknown, unknown>): new() => object => {
  const made = function() {} as unknown as new() => object
  made.prototype = Object.getPrototypeOf(exit)
  return made
}

/** The two kinds of `Exit` of this copy of Effect. */
const Success = madeLike(Exit.void)
const Failure = madeLike(Exit.fail(undefined))

/**
 * Whether `effect` has completed already (it is an `Exit`): exactly `Exit.isExit`.
 *
 * Every `Exit` this copy of Effect makes has one of two prototypes, looked for first: that spares
 * `Exit.isExit` its `in` walk up the prototype chain (a megamorphic lookup, ~1.5k instructions per
 * HTTP request; bench/PROFILE.md). Anything else, an `Exit` of another copy of Effect included, is
 * still decided by `Exit.isExit`.
 *
 * @category guards
 * @since 0.1.0
 */
export const isDone = <A, E, R>(effect: Effect.Effect<A, E, R>): effect is Effect.Effect<A, E, R> & Exit.Exit<A, E> =>
  effect instanceof Success || effect instanceof Failure || Exit.isExit(effect)
