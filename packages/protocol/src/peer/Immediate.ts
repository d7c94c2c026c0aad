/**
 * Whether an effect has completed already, and combinators that complete at once on one that has.
 *
 * In Effect 4 an `Exit` is an `Effect` (`Effect.succeed`, `Effect.fail` and `Effect.void` are
 * `Exit`s), so a step handed an `Exit` knows its result without running anything. These
 * combinators then answer an `Exit` too, where `Effect.map` and friends would build a node for a
 * fiber to run: a request whose steps complete without suspending comes out of the core's pipeline
 * (and the HTTP transport's session steps) as an `Exit`, and the peer or transport answers it in the
 * same turn without forking a fiber; anything else is the same Effect as before, run in the
 * request's fiber. (Measured in bench/PROFILE.md: the per-request pipeline of Effect nodes, its
 * fiber and their allocations were most of the core's instructions per request.) Each combinator is
 * exactly its Effect counterpart on what it returns.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Immediate from "@snodo/protocol/peer/Immediate"
 *
 * Immediate.isDone(Effect.succeed(1)) // true: an Exit
 * Immediate.isDone(Effect.sync(() => 1)) // false: it must be run
 * Immediate.map(Effect.succeed(1), (n) => n + 1) // an Exit: Exit.succeed(2)
 * ```
 *
 * @since 0.1.0
 */
import { Cause, Effect, Exit } from "effect"

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

/** A failure, as the failure of an effect of another value. */
const failed = <E>(failure: Exit.Failure<unknown, E>): Exit.Exit<never, E> => failure as Exit.Failure<never, E>

/**
 * `Effect.map`, at once on an `Exit`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const map = <A, E, R, B>(effect: Effect.Effect<A, E, R>, f: (a: A) => B): Effect.Effect<B, E, R> => {
  if (!isDone(effect)) return Effect.map(effect, f)
  return Exit.isSuccess(effect) ? Exit.succeed(f(effect.value)) : failed(effect)
}

/**
 * `Effect.flatMap`, at once on an `Exit`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const flatMap = <A, E, R, B, E2, R2>(
  effect: Effect.Effect<A, E, R>,
  f: (a: A) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, R | R2> => {
  if (!isDone(effect)) return Effect.flatMap(effect, f)
  return Exit.isSuccess(effect) ? f(effect.value) : failed(effect)
}

/**
 * `Effect.andThen` of an effect, at once when the first is an `Exit`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const andThen = <A, E, R, B, E2, R2>(
  effect: Effect.Effect<A, E, R>,
  next: Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, R | R2> => {
  if (!isDone(effect)) return Effect.andThen(effect, next)
  return Exit.isSuccess(effect) ? next : failed(effect)
}

/**
 * `Effect.matchEffect`, at once on a success or a typed failure.
 *
 * @category combinators
 * @since 0.1.0
 */
export const matchEffect = <A, E, R, B, E2, R2, C, E3, R3>(
  effect: Effect.Effect<A, E, R>,
  options: {
    readonly onFailure: (e: E) => Effect.Effect<B, E2, R2>
    readonly onSuccess: (a: A) => Effect.Effect<C, E3, R3>
  }
): Effect.Effect<B | C, E2 | E3, R | R2 | R3> => {
  if (!isDone(effect)) return Effect.matchEffect(effect, options)
  if (Exit.isSuccess(effect)) return options.onSuccess(effect.value)
  const reasons = effect.cause.reasons
  const only = reasons.length === 1 ? reasons[0] : undefined
  // A plain typed failure; anything else (defects, interruptions, several reasons) as Effect does it.
  return only?._tag === "Fail" ? options.onFailure(only.error) : Effect.matchEffect(effect, options)
}

/**
 * `Effect.exit` followed by `f`: `f` at once on an `Exit`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const onExit = <A, E, R, B, E2, R2>(
  effect: Effect.Effect<A, E, R>,
  f: (exit: Exit.Exit<A, E>) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E2, R | R2> => isDone(effect) ? f(effect) : Effect.flatMap(Effect.exit(effect), f)

/**
 * `Effect.catchCause`, at once on an `Exit`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const catchCause = <A, E, R, B, E2, R2>(
  effect: Effect.Effect<A, E, R>,
  f: (cause: Cause.Cause<E>) => Effect.Effect<B, E2, R2>
): Effect.Effect<A | B, E2, R | R2> => {
  if (!isDone(effect)) return Effect.catchCause(effect, f)
  // A success is its own answer (an `Exit` is a value: no copy of it is needed).
  return Exit.isSuccess(effect) ? effect as Exit.Success<A, never> : f(effect.cause)
}
