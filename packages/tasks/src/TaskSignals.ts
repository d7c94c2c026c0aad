/**
 * Wake-ups between the parts of the Tasks extension, within one instance or across many.
 *
 * The store is the truth; a signal only says "look again": a task changed (a client answered its
 * inputs or cancelled it), or work is waiting to be claimed. A lost signal costs latency, never
 * correctness: workers also heartbeat and claimers also poll. {@link layerMemory} delivers within
 * the process; `@snodo/postgres` delivers to every instance through `LISTEN/NOTIFY`.
 *
 * @example
 * ```ts
 * import * as TaskSignals from "@snodo/tasks/TaskSignals"
 *
 * const Signals = TaskSignals.layerMemory() // the default when none is provided
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, type Scope } from "effect"

/**
 * What a listener is told.
 *
 * @category models
 * @since 0.1.0
 */
export interface Listener {
  /** The task with this id changed. */
  readonly changed: (taskId: string) => void
  /** Tasks may be waiting to be claimed. */
  readonly work: () => void
}

/**
 * @category services
 * @since 0.1.0
 */
export class TaskSignals extends Context.Service<TaskSignals, {
  readonly changed: (taskId: string) => Effect.Effect<void>
  readonly work: Effect.Effect<void>
  /** Listens until the scope closes. Listeners are called synchronously and must not block. */
  readonly listen: (listener: Listener) => Effect.Effect<void, never, Scope.Scope>
}>()("@snodo/tasks/TaskSignals") {}

/**
 * Signals within one process.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeMemory = (): TaskSignals["Service"] => {
  const listeners = new Set<Listener>()
  return TaskSignals.of({
    changed: (taskId) => Effect.sync(() => listeners.forEach((listener) => listener.changed(taskId))),
    work: Effect.sync(() => listeners.forEach((listener) => listener.work())),
    listen: (listener) =>
      Effect.acquireRelease(
        Effect.sync(() => void listeners.add(listener)),
        () => Effect.sync(() => void listeners.delete(listener))
      )
  })
}

/**
 * Signals within one process, as a Layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMemory = (): Layer.Layer<TaskSignals> => Layer.sync(TaskSignals, makeMemory)
