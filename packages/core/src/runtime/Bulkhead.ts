/**
 * The bulkhead of one component: at most `concurrency` of its handlers run at once, at most
 * `queue` wait, and the waiting ones are served fairly across principals.
 *
 * Fairness is least-recently-started: when a place frees up, it goes to the principal whose last
 * start in this component is the oldest, a principal that has not started here yet counting as
 * just older than the latest start. So a second principal's first request starts before the first
 * principal's queued backlog, two backlogged principals alternate, and a stream of newcomers cannot
 * starve a principal that waits. When the queue is full, a newcomer displaces the newest waiter of
 * the principal with the most waiting (longest-queue drop), so one principal's backlog cannot
 * lock others out either; a principal holding the most already is refused itself.
 *
 * A principal is only remembered while it has requests running or waiting here, so the table is
 * bounded by `concurrency + queue`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Bulkhead from "@snodo/core/extension/Bulkhead"
 *
 * const bulkhead = Bulkhead.make(2, 16)
 * const guarded = Bulkhead.withPlace(bulkhead, "alice", Effect.succeed(1), () => new Error("full"))
 * ```
 *
 * @since 0.1.0
 */
import { Effect } from "effect"

interface Waiter {
  readonly principal: Principal
  /** Resumes the waiting request: `true` with a place, `false` displaced from the queue. */
  readonly resume: (effect: Effect.Effect<boolean>) => void
  granted: boolean
}

interface Principal {
  readonly id: string
  running: number
  /** When it last started here, in this bulkhead's start count. */
  lastStart: number
  readonly waiting: Array<Waiter>
}

/**
 * A count shared by several bulkheads: requests admitted (running or waiting) in any of them.
 *
 * @category models
 * @since 0.1.0
 */
export interface Admitted {
  count: number
  /** Of those, the ones waiting for a place. */
  waiting: number
}

/**
 * One component's places and waiters.
 *
 * @category models
 * @since 0.1.0
 */
export interface Bulkhead {
  readonly concurrency: number
  readonly queue: number
  /** Handlers running now. */
  readonly running: () => number
  /** Requests waiting now. */
  readonly waiting: () => number
}

class State implements Bulkhead {
  readonly concurrency: number
  readonly queue: number
  private runningCount = 0
  private waitingCount = 0
  private starts = 0
  private readonly principals = new Map<string, Principal>()
  private readonly admitted: Admitted

  constructor(concurrency: number, queue: number, admitted: Admitted) {
    this.concurrency = concurrency
    this.queue = queue
    this.admitted = admitted
  }

  running(): number {
    return this.runningCount
  }

  waiting(): number {
    return this.waitingCount
  }

  private principal(id: string): Principal {
    let found = this.principals.get(id)
    if (found === undefined) {
      found = { id, running: 0, lastStart: this.starts - 0.5, waiting: [] }
      this.principals.set(id, found)
    }
    return found
  }

  private forgetIfIdle(principal: Principal): void {
    if (principal.running === 0 && principal.waiting.length === 0) this.principals.delete(principal.id)
  }

  private start(principal: Principal): void {
    this.runningCount++
    principal.running++
    principal.lastStart = ++this.starts
  }

  /** Takes a place at once when one is free and nobody waits for it. */
  tryStart(id: string): boolean {
    if (this.runningCount >= this.concurrency || this.waitingCount > 0) return false
    this.admitted.count++
    this.start(this.principal(id))
    return true
  }

  /**
   * A handler that needs its place for no time (it already completed): what taking a free place at
   * once and leaving it would do, without remembering a principal that holds nothing here.
   */
  pass(id: string): boolean {
    if (this.runningCount >= this.concurrency || this.waitingCount > 0) return false
    this.starts++
    const principal = this.principals.get(id)
    if (principal !== undefined) principal.lastStart = this.starts
    return true
  }

  /** Takes a place at once (`"started"`), queues (`waiter`), or refuses (`"full"`). */
  enter(id: string, resume: Waiter["resume"]): "started" | Waiter | "full" {
    if (this.tryStart(id)) return "started"
    const principal = this.principal(id)
    if (this.waitingCount >= this.queue) {
      let longest: Principal | undefined
      for (const candidate of this.principals.values()) {
        if (longest === undefined || candidate.waiting.length > longest.waiting.length) longest = candidate
      }
      if (longest === undefined || longest.waiting.length <= principal.waiting.length) {
        this.forgetIfIdle(principal)
        return "full"
      }
      const displaced = longest.waiting.pop()!
      this.waitingCount--
      this.admitted.count--
      this.admitted.waiting--
      this.forgetIfIdle(longest)
      displaced.resume(Effect.succeed(false))
    }
    const waiter: Waiter = { principal, resume, granted: false }
    principal.waiting.push(waiter)
    this.waitingCount++
    this.admitted.count++
    this.admitted.waiting++
    return waiter
  }

  /** A waiter gave up (interrupted): its place in the queue, or the place it was just granted. */
  abandon(waiter: Waiter): void {
    if (waiter.granted) return this.leave(waiter.principal)
    const index = waiter.principal.waiting.indexOf(waiter)
    if (index < 0) return
    waiter.principal.waiting.splice(index, 1)
    this.waitingCount--
    this.admitted.count--
    this.admitted.waiting--
    this.forgetIfIdle(waiter.principal)
  }

  /** A running handler ended: its place goes to the least recently started principal waiting. */
  leave(principal: Principal | string): void {
    const owner = typeof principal === "string" ? this.principals.get(principal) : principal
    if (owner === undefined) return
    this.admitted.count--
    this.runningCount--
    owner.running--
    this.forgetIfIdle(owner)
    while (this.runningCount < this.concurrency && this.waitingCount > 0) {
      let next: Principal | undefined
      for (const candidate of this.principals.values()) {
        if (candidate.waiting.length > 0 && (next === undefined || candidate.lastStart < next.lastStart)) next = candidate
      }
      if (next === undefined) return
      const waiter = next.waiting.shift()!
      this.waitingCount--
      this.admitted.waiting--
      this.start(next)
      waiter.granted = true
      waiter.resume(Effect.succeed(true))
    }
  }
}

/**
 * A bulkhead of `concurrency` places and `queue` waiting requests. Bulkheads given the same
 * `admitted` count into it every request they hold, running or waiting (a global bound's view).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (concurrency: number, queue: number, admitted: Admitted = { count: 0, waiting: 0 }): Bulkhead =>
  new State(concurrency, queue, admitted)

/**
 * Waits for a place of the bulkhead for `principal` (the wait is interruptible, and an interrupted
 * wait leaves nothing taken): `true` once the place is taken, `false` when the queue is full or a
 * newcomer displaced this request from it. A `true` must be paired with one {@link release}. For
 * holders that give their place back before they end (a task waiting for its client), else use
 * {@link withPlace}.
 *
 * @category combinators
 * @since 0.1.0
 */
export const acquire = (bulkhead: Bulkhead, principal: string): Effect.Effect<boolean> => {
  const state = bulkhead as State
  return Effect.suspend(() => {
    // A free place and nobody waiting: taken without suspending the fiber.
    if (state.tryStart(principal)) return Effect.succeed(true)
    return Effect.callback<boolean>((resume) => {
      const entered = state.enter(principal, resume)
      if (entered === "started") return resume(Effect.succeed(true))
      if (entered === "full") return resume(Effect.succeed(false))
      return Effect.sync(() => state.abandon(entered))
    })
  })
}

/**
 * For a handler that already completed: takes a free place and gives it back at once (`true`),
 * when one is free and nobody waits for it; `false` takes nothing (wait with {@link acquire}).
 *
 * @category combinators
 * @since 0.1.0
 */
export const tryPass = (bulkhead: Bulkhead, principal: string): boolean => (bulkhead as State).pass(principal)

/**
 * Gives back a place {@link acquire} took: it goes to the least recently started principal waiting.
 *
 * @category combinators
 * @since 0.1.0
 */
export const release = (bulkhead: Bulkhead, principal: string): void => (bulkhead as State).leave(principal)

/**
 * Runs `effect` in a place of the bulkhead for `principal`, waiting for one if need be (the wait
 * is interruptible); fails with `refused()` when the queue is full, or when a newcomer displaces
 * this request from it.
 *
 * @category combinators
 * @since 0.1.0
 */
export const withPlace = <A, E, R, E2>(
  bulkhead: Bulkhead,
  principal: string,
  effect: Effect.Effect<A, E, R>,
  refused: () => E2
): Effect.Effect<A, E | E2, R> => {
  const state = bulkhead as State
  const leave = Effect.sync(() => state.leave(principal))
  return Effect.uninterruptibleMask((restore): Effect.Effect<A, E | E2, R> => {
    // A free place and nobody waiting: taken at once, with no wait to make interruptible.
    if (state.tryStart(principal)) return Effect.ensuring(restore(effect), leave)
    return Effect.flatMap(restore(acquire(bulkhead, principal)), (placed): Effect.Effect<A, E | E2, R> =>
      placed ? Effect.ensuring(restore(effect), leave) : Effect.fail(refused()))
  })
}
