/**
 * The bounded executor every handler runs under: a bulkhead per component under a global bound.
 *
 * Each component (a tool, a resource, a resource template, a prompt; see `ComponentOptions`) has
 * its own bulkhead: at most `concurrency` of its handlers run (default 32) and at most `queue` wait
 * (default 256), served fairly across principals (see {@link Bulkhead}), so 32 slow calls of one
 * tool fill that tool's places and no other's. A component's `rateLimit` is checked first (a
 * fixed window per principal, {@link RateWindow}), and its `timeout` bounds each handler once it
 * runs. Over all components, at most `maxRunning` handlers run and `maxRunning + maxQueued` are
 * admitted at once: a bound sized for memory (default 1,024 running, 4,096 waiting), not for the
 * places of one component.
 *
 * A request refused by a bound fails with `ServerBusy` (-32603 `data: {retryable: true, limit}`,
 * naming the component when it was the component's bound), one over a rate limit with
 * `RateLimited`; a handler past its timeout is interrupted and answered -32603 `data: {reason:
 * "timeout", timeoutMs, component}`. Waiting and running are interruptible, so a cancelled
 * request leaves its place at once.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as ComponentOptions from "@snodo/core/ComponentOptions"
 * import * as Executor from "@snodo/core/Executor"
 *
 * const executor = Executor.makeUnsafe()
 * const search = { key: "tool:search", limits: ComponentOptions.resolve({ concurrency: 4 }) }
 * const guarded = executor.run(Effect.succeed(1), { component: search, principal: "alice" })
 * ```
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Exit, Layer, Semaphore } from "effect"
import * as ComponentOptions from "../catalog/ComponentOptions.ts"
import * as Immediate from "@snodo/protocol/peer/Immediate"
import { InternalError, RateLimited, ServerBusy } from "@snodo/protocol/jsonrpc/McpError"
import * as Bulkhead from "./Bulkhead.ts"
import * as RateWindow from "./internal/RateWindow.ts"

/**
 * Global limits, over every component.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Handlers running at once over all components (default 1,024). */
  readonly maxRunning?: number
  /** Requests admitted beyond those running, over all components (default 4,096). */
  readonly maxQueued?: number
}

/**
 * Defaults: 1,024 running and 4,096 waiting over all components.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults = { maxRunning: 1024, maxQueued: 4096 } as const

/**
 * What a request runs as: the component (its key names its bulkhead; its limits are the
 * definition's) and the principal calling it.
 *
 * @category models
 * @since 0.1.0
 */
export interface Component {
  /** Unique per component: `tool:<name>`, `resource:<uri>`, `template:<uriTemplate>`, `prompt:<name>`. */
  readonly key: string
  readonly limits: ComponentOptions.Limits
}

/**
 * @category models
 * @since 0.1.0
 */
interface RunOptions {
  /** Without one, the request shares the bulkhead of every request that names none. */
  readonly component?: Component | undefined
  /** Without one, the request counts as the anonymous principal. */
  readonly principal?: string | undefined
}

/** A component's bulkhead and the refusal it answers when full. */
interface Places {
  readonly bulkhead: Bulkhead.Bulkhead
  readonly refused: () => ServerBusy
}

/** The component of requests that name none (extension routes, say). */
const unnamed: Component = { key: "", limits: ComponentOptions.defaults }

/**
 * @category services
 * @since 0.1.0
 */
export class Executor extends Context.Service<Executor, {
  readonly run: <A, E, R>(
    effect: Effect.Effect<A, E, R>,
    options?: RunOptions
  ) => Effect.Effect<A, E | ServerBusy | RateLimited | InternalError, R>
  /** Requests admitted and not yet finished (running plus queued), over all components. */
  readonly active: () => number
  /** Of those, the ones waiting for a place in their component's bulkhead. */
  readonly queued: () => number
  /** The bulkhead of a component, once a request ran in it (for tests and metrics). */
  readonly bulkhead: (key: string) => Bulkhead.Bulkhead | undefined
}>()("@snodo/core/Executor") {}

/**
 * Builds an executor with these global limits (a synchronous allocation).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeUnsafe = (options?: Options): Executor["Service"] => {
  const maxRunning = options?.maxRunning ?? defaults.maxRunning
  const maxQueued = options?.maxQueued ?? defaults.maxQueued
  const permits = Semaphore.makeUnsafe(maxRunning)
  // Every bulkhead counts into it what it holds, running or waiting: the global bound's view.
  const admitted: Bulkhead.Admitted = { count: 0, waiting: 0 }
  // One per component of the catalog (keys are definitions', never request data).
  const places = new Map<string, Places>()
  const windows = new Map<string, RateWindow.RateWindow>()
  // Made at the first refusal: constructing the first instance of a Schema class compiles its
  // checks, a cost every server paid at start for a refusal most never make.
  let busy: ServerBusy | undefined
  const globalBusy = () =>
    busy ??= new ServerBusy({
      message: "Server busy: too many requests in flight",
      data: { retryable: true, limit: maxQueued }
    })
  const placesOf = (component: Component): Places => {
    let found = places.get(component.key)
    if (found === undefined) {
      const { concurrency, queue } = component.limits
      found = {
        bulkhead: Bulkhead.make(concurrency, queue, admitted),
        refused: () =>
          new ServerBusy({
            message: `Server busy: ${component.key} has ${concurrency} running and ${queue} waiting`,
            data: { retryable: true, limit: queue, component: component.key }
          })
      }
      places.set(component.key, found)
    }
    return found
  }
  const windowOf = (component: Component, rate: NonNullable<ComponentOptions.Limits["rateLimit"]>) => {
    let found = windows.get(component.key)
    if (found === undefined) {
      found = RateWindow.make(rate)
      windows.set(component.key, found)
    }
    return found
  }
  const timed = <A, E, R>(effect: Effect.Effect<A, E, R>, component: Component, timeoutMillis: number) =>
    Effect.timeoutOrElse(effect, {
      duration: timeoutMillis,
      orElse: () =>
        Effect.fail(
          new InternalError({
            message: `Request timed out: ${component.key} ran longer than ${timeoutMillis} ms`,
            data: { reason: "timeout", timeoutMs: timeoutMillis, component: component.key }
          })
        )
    })
  const rateLimited = (component: Component, rate: NonNullable<ComponentOptions.Limits["rateLimit"]>, retryAfter: number) =>
    new RateLimited({
      message: `Rate limited: ${component.key} admits ${rate.limit} calls per ${rate.windowMillis} ms`,
      data: { retryable: true, limit: rate.limit, windowMs: rate.windowMillis, retryAfterMs: retryAfter, component: component.key }
    })

  /**
   * A handler that already completed (an `Exit`) and may start without waiting: it takes its place
   * and gives it back at once, so the bounds count it as they count any other, and the `Exit` is
   * the answer. `undefined` when it would have to wait, or its component has a rate limit (whose
   * clock is the fiber's): the Effect below decides then.
   */
  const runDone = <A, E>(exit: Exit.Exit<A, E>, runOptions: RunOptions | undefined): Exit.Exit<A, E | ServerBusy> | undefined => {
    if (admitted.count >= maxRunning + maxQueued) return Exit.fail(globalBusy())
    const component = runOptions?.component ?? unnamed
    // Nobody waits for a global permit while fewer than `maxRunning` hold a place.
    if (component.limits.rateLimit !== undefined || admitted.count - admitted.waiting >= maxRunning) return undefined
    return Bulkhead.tryPass(placesOf(component).bulkhead, runOptions?.principal ?? "anonymous") ? exit : undefined
  }

  const run = <A, E, R>(effect: Effect.Effect<A, E, R>, runOptions?: RunOptions): Effect.Effect<A, E | ServerBusy | RateLimited | InternalError, R> =>
    (Immediate.isDone(effect) ? runDone(effect, runOptions) : undefined) ?? Effect.suspend((): Effect.Effect<A, E | ServerBusy | RateLimited | InternalError, R> => {
      if (admitted.count >= maxRunning + maxQueued) return Effect.fail(globalBusy())
      const component = runOptions?.component ?? unnamed
      const principal = runOptions?.principal ?? "anonymous"
      const limits = component.limits
      const guarded = limits.timeoutMillis === undefined ? effect : timed(effect, component, limits.timeoutMillis)
      const { bulkhead, refused } = placesOf(component)
      const placed = Bulkhead.withPlace(bulkhead, principal, Semaphore.withPermit(permits, guarded), refused)
      const rate = limits.rateLimit
      if (rate === undefined) return placed
      const window = windowOf(component, rate)
      return Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<A, E | ServerBusy | RateLimited | InternalError, R> => {
        const retryAfter = window.admit(principal, now)
        return retryAfter === undefined ? placed : Effect.fail(rateLimited(component, rate, retryAfter))
      })
    })

  return { active: () => admitted.count, queued: () => admitted.waiting, run, bulkhead: (key) => places.get(key)?.bulkhead }
}

/**
 * The executor as a Layer (the server builds one with its options when none is provided).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: Options): Layer.Layer<Executor> => Layer.sync(Executor, () => makeUnsafe(options))

