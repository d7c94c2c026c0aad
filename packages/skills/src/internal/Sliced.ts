/**
 * Runs synchronous work in slices: the work is a generator that yields after each small unit
 * (a file, a skill, a folder), and the runner lets the event loop serve requests (Effect's
 * `yieldNow`, a `setImmediate`) whenever a slice has run for `sliceMillis`. Loading 10,000 skills
 * then never holds a request back for more than a slice, and costs what the synchronous code
 * costs (a fiber per unit, or a promise per file, costs several times more).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"

/**
 * The longest a slice runs before the event loop gets a turn, in milliseconds.
 *
 * @since 0.1.0
 * @category constants
 */
export const sliceMillis = 4

/**
 * The generator's result, run in slices; `recover` turns what a step throws into the failure.
 *
 * @since 0.1.0
 * @category constructors
 */
export const run = <A, E>(make: () => Generator<void, A>, recover: (cause: unknown) => E): Effect.Effect<A, E> =>
  Effect.suspend(() => {
    const steps = make()
    let sliceStart = performance.now()
    let count = 0
    const resume = (): Effect.Effect<A, E> => {
      try {
        for (;;) {
          const step = steps.next()
          if (step.done === true) return Effect.succeed(step.value)
          // The clock is read every 8 steps: a step is microseconds, a read of the clock not free.
          if ((++count & 7) === 0 && performance.now() - sliceStart >= sliceMillis) {
            return Effect.flatMap(Effect.yieldNow, () => {
              sliceStart = performance.now()
              return resume()
            })
          }
        }
      } catch (cause) {
        return Effect.fail(recover(cause))
      }
    }
    return resume()
  })
