/**
 * The bounded executor every handler runs under.
 *
 * At most `maxRunning` handlers run at once and at most `maxQueued` wait; past that a request is
 * refused at once with -32603 `data: {retryable: true, limit}` instead of queueing without bound.
 * Waiting and running are interruptible, so a cancelled request leaves its place immediately.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Executor } from "@snodo/core/runtime/Executor"
 *
 * const guarded = Executor.use((executor) => executor.run(Effect.succeed(1)))
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Semaphore } from "effect"
import { ServerBusy } from "../pipeline/McpError.ts"

/** Executor limits. @since 0.1.0 */
export interface Options {
  readonly maxRunning?: number
  readonly maxQueued?: number
}

/** Defaults: 32 running, 256 queued. @since 0.1.0 */
export const defaults = { maxRunning: 32, maxQueued: 256 } as const

/** @since 0.1.0 */
export class Executor extends Context.Service<Executor, {
  readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | ServerBusy, R>
  /** Requests admitted and not yet finished (running plus queued). */
  readonly active: () => number
}>()("@snodo/core/Executor") {
  /** Builds an executor with these limits. */
  static readonly make = (options?: Options): Executor["Service"] => {
    const maxRunning = options?.maxRunning ?? defaults.maxRunning
    const maxQueued = options?.maxQueued ?? defaults.maxQueued
    const permits = Semaphore.makeUnsafe(maxRunning)
    let active = 0
    const release = Effect.sync(() => {
      active--
    })
    const busy = new ServerBusy({
      message: "Server busy: too many requests in flight",
      data: { retryable: true, limit: maxQueued }
    })
    return {
      active: () => active,
      run: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.suspend((): Effect.Effect<A, E | ServerBusy, R> => {
          if (active >= maxRunning + maxQueued) return Effect.fail(busy)
          active++
          return Effect.ensuring(Semaphore.withPermit(permits, effect), release)
        })
    }
  }

  static readonly layer = (options?: Options): Layer.Layer<Executor> => Layer.sync(Executor, () => Executor.make(options))
}
