/**
 * The requests the other side sent that are still running, by scope and JSON-RPC id: what
 * `notifications/cancelled` stops, and what a transport waits for (or interrupts) when it closes.
 *
 * A scope says whose ids these are, since ids are chosen by the other side and collide across
 * clients: one stdio connection is one scope; on HTTP, an authenticated principal (or its
 * initialize-era session) is. A request is registered only once it suspends (one that answers at
 * once has nothing to cancel), and leaves when its fiber exits. Cancelling interrupts the fiber:
 * its finalizers run, and the transport writes nothing for it.
 *
 * A key holds one request. A stream transport refuses a second request with an id already in
 * flight (JSON-RPC ids are unique per connection); HTTP runs it without registering it, so a
 * posted cancel reaches the first one only (closing its response still cancels the second).
 *
 * Closing the scope it was made in interrupts whatever still runs and waits for it, as Effect's
 * `FiberMap` does (which this was built on: a map of its own keeps `effect/FiberMap`, a module no
 * other part of a server loads, out of every start; ~10 M instructions, bench/PROFILE.md).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as InFlight from "@snodo/protocol/peer/InFlight"
 *
 * const program = Effect.gen(function*() {
 *   const inFlight = yield* InFlight.make
 *   const fiber = yield* Effect.forkDetach(Effect.never)
 *   inFlight.add("alice", 7, fiber)
 *   inFlight.cancel("alice", 7) // the fiber is interrupted
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Fiber, type Scope } from "effect"
import * as Encoder from "../jsonrpc/Encoder.ts"
import type { RequestId } from "../jsonrpc/Envelope.ts"

/**
 * @category models
 * @since 0.1.0
 */
export interface InFlight {
  /** Whether a request of `scope` with this id is in flight. */
  readonly has: (scope: string, id: RequestId) => boolean
  /**
   * Registers a running request's fiber; `false` (nothing registered) when the key is taken. It
   * leaves the map when it exits. `cancel`, when given, is what cancelling does instead of
   * interrupting the fiber directly (it must interrupt it): HTTP ends the response first, so that
   * nothing the handler's finalizers write reaches the client after its cancel.
   */
  readonly add: (scope: string, id: RequestId, fiber: Fiber.Fiber<unknown, unknown>, cancel?: () => void) => boolean
  /**
   * Interrupts the request of `scope` with this id (`id` as a `notifications/cancelled` carries
   * it: anything but a string or a safe integer names nothing); `false` when none is in flight.
   */
  readonly cancel: (scope: string, id: unknown) => boolean
  /** Requests registered now. */
  readonly size: () => number
  /** Waits until no request is in flight. */
  readonly awaitEmpty: Effect.Effect<void>
}

const keyOf = (scope: string, id: RequestId): string => scope === "" ? Encoder.idKey(id) : `${scope}\u0000${Encoder.idKey(id)}`

const asId = (u: unknown): RequestId | undefined =>
  typeof u === "string" || (typeof u === "number" && Number.isSafeInteger(u)) ? u : undefined

/** The fibers by key while the scope is open; `undefined` once it closed. */
interface State {
  fibers: Map<string, Fiber.Fiber<unknown, unknown>> | undefined
}

const ignoreStep = (): void => undefined

/**
 * The interruptor of a fiber registered after the scope closed (`FiberMap`'s internal id, so
 * that such a fiber's cause reads as it did).
 */
const closedInterruptor = -1

/**
 * An empty map whose requests live in the current scope.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: Effect.Effect<InFlight, never, Scope.Scope> = Effect.map(
  Effect.acquireRelease(
    Effect.sync((): State => ({ fibers: new Map() })),
    (state) =>
      Effect.suspend(() => {
        const fibers = state.fibers
        if (fibers === undefined) return Effect.void
        state.fibers = undefined
        return Fiber.interruptAll(fibers.values())
      })
  ),
  (state): InFlight => {
    let count = 0
    const cancellers = new Map<Fiber.Fiber<unknown, unknown>, () => void>()
    return {
      has: (scope, id) => state.fibers?.has(keyOf(scope, id)) === true,
      add: (scope, id, fiber, cancel) => {
        const key = keyOf(scope, id)
        const fibers = state.fibers
        if (fibers?.has(key) === true) return false
        if (fibers === undefined) fiber.interruptUnsafe(closedInterruptor)
        else {
          fibers.set(key, fiber)
          fiber.addObserver(() => {
            const open = state.fibers
            if (open !== undefined && open.get(key) === fiber) open.delete(key)
          })
        }
        count++
        if (cancel !== undefined) cancellers.set(fiber, cancel)
        fiber.addObserver(() => {
          count--
          cancellers.delete(fiber)
        })
        return true
      },
      cancel: (scope, id) => {
        const requestId = asId(id)
        if (requestId === undefined) return false
        const fiber = state.fibers?.get(keyOf(scope, requestId))
        if (fiber === undefined) return false
        const cancel = cancellers.get(fiber)
        if (cancel === undefined) fiber.interruptUnsafe()
        else cancel()
        return true
      },
      size: () => count,
      // Waiting ends when the map is empty, however its fibers ended.
      awaitEmpty: Effect.ignore(Effect.whileLoop({
        while: () => state.fibers !== undefined && state.fibers.size > 0,
        body: () => Fiber.await(state.fibers!.values().next().value!),
        step: ignoreStep
      }))
    }
  }
)
