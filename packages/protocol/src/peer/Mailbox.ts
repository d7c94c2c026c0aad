/**
 * The one bounded mailbox of the peer layer: items waiting to be written to the other side (a
 * session's changes, a listen stream's, an event stream's events, a line writer's frames), bounded
 * by count and by characters, with a policy for what does not fit.
 *
 * Offering is synchronous and never suspends (no fiber per item): a publisher delivers from its own
 * fiber, a transport from its input callback. What happens to an item that does not fit is the
 * mailbox's {@link Overflow}:
 *
 * - `"drop-newest"`: the item is dropped (and counted);
 * - `"drop-oldest"`: the oldest waiting items are dropped (and counted) until it fits;
 * - `"close"`: the mailbox shuts down (what waits is discarded) and the consumer learns it missed items;
 * - `"wait"`: the item is queued anyway and the mailbox is over its bounds: offerers that can wait
 *   wait for {@link Mailbox.room} (a line writer's writers), so the bound holds while they cooperate.
 *
 * With `coalesce`, an item whose key is already waiting is not queued again (a second
 * `notifications/tools/list_changed` says nothing the first did not); it combines with any overflow
 * policy. Drops are counted ({@link Mailbox.dropped}, {@link Mailbox.takeDropped}) so the consumer can
 * surface them (a listen stream writes the count into its next frame's `_meta`).
 *
 * An item fits when fewer than `capacity` are held and their characters plus its own stay within
 * `maxChars`; an item alone always fits by characters (one frame longer than the bound is written,
 * not lost). A consumer takes items one by one ({@link Mailbox.take}, {@link Mailbox.poll}: they
 * stop counting at once) or all at once for one write ({@link Mailbox.takeBatch}: they keep counting
 * until {@link Mailbox.settle} says the write completed, so a writer's backlog is part of the bound).
 *
 * Effect's `Queue` has the drop strategies but neither coalesces, counts what it drops, accepts an
 * item past its bound for a writer to wait after, nor holds a batch until it is written; its wake-up
 * also let a publisher's answer overtake the change it published first. The module is
 * hand-written for those reasons.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Mailbox from "@snodo/protocol/peer/Mailbox"
 *
 * const changes = Mailbox.makeUnsafe<string>({ capacity: 64, maxChars: 1024 * 1024, overflow: "drop-oldest", coalesce: (uri) => uri })
 * changes.offer("file:///a") // "queued"
 * changes.offer("file:///a") // "coalesced": already waiting
 *
 * const next = Effect.gen(function*() {
 *   const uri = yield* changes.take // fails with Cause.Done once the mailbox ended and is empty
 *   return { uri, dropped: changes.takeDropped() }
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Cause, Effect, Latch } from "effect"

/**
 * What happens to an item that does not fit.
 *
 * @category models
 * @since 0.1.0
 */
export type Overflow = "drop-newest" | "drop-oldest" | "close" | "wait"

/**
 * What {@link Mailbox.offer} did with an item: `"queued"` (under `"drop-oldest"` older items may
 * have been dropped to make room; under `"wait"` the mailbox may now be over its bounds),
 * `"coalesced"` (its key was already waiting), `"dropped"` (`"drop-newest"`, or `"drop-oldest"` when
 * nothing waiting could make room), `"overflow"` (it did not fit under `"close"`: the mailbox shut
 * down), `"closed"` (the mailbox took nothing more already).
 *
 * @category models
 * @since 0.1.0
 */
export type Offered = "queued" | "coalesced" | "dropped" | "overflow" | "closed"

/**
 * @category models
 * @since 0.1.0
 */
export interface Options<A> {
  /** Items held at once (waiting, and taken in a batch not yet settled). */
  readonly capacity: number
  /** Characters of the items held at once (default: no bound). */
  readonly maxChars?: number | undefined
  /** What an item counts against `maxChars` (default: a string's length, anything else 0). */
  readonly charsOf?: ((item: A) => number) | undefined
  readonly overflow: Overflow
  /** The key an item coalesces by (`undefined`: it never does); default: none coalesce. */
  readonly coalesce?: ((item: A) => string | undefined) | undefined
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Mailbox<A> {
  /** Offers an item, without waiting; see {@link Offered}. */
  offer(item: A): Offered
  /** Takes the oldest waiting item (`undefined` when none waits); it stops counting against the bounds. */
  poll(): A | undefined
  /**
   * Waits for the oldest item and takes it (as {@link Mailbox.poll}); fails with `Cause.Done` once
   * the mailbox ended and nothing waits, or shut down.
   */
  readonly take: Effect.Effect<A, Cause.Done>
  /**
   * Completes once an item waits or the mailbox is no longer open, taking nothing (a consumer that
   * paces itself waits here while idle, and decides when to take).
   */
  readonly ready: Effect.Effect<void>
  /**
   * Takes every waiting item, oldest first, for one write; they keep counting against the bounds
   * until {@link Mailbox.settle} is called with them.
   */
  takeBatch(): ReadonlyArray<A>
  /** The batch is written: its items stop counting (wakes {@link Mailbox.room}'s waiters). */
  settle(batch: ReadonlyArray<A>): void
  /** Completes once the mailbox is within its bounds (at once if it is), or shut down. */
  readonly room: Effect.Effect<void>
  /** Whether it holds more than its bounds (only under `"wait"`, or one item longer than `maxChars`). */
  isOver(): boolean
  /** Items held: waiting, and taken in batches not yet settled. */
  size(): number
  /** Characters of the items held. */
  chars(): number
  /** Items waiting to be taken. */
  waiting(): number
  /** Items dropped since the mailbox was made. */
  dropped(): number
  /** Items dropped since the last call (or since the mailbox was made), to surface them. */
  takeDropped(): number
  /** Takes nothing more; what waits can still be taken, then `take` fails with `Cause.Done`. */
  end(): void
  /** Takes nothing more and discards what waits (batches taken are still settled). */
  shutdown(): void
  /** `"open"`, `"ending"` ({@link Mailbox.end}), or `"closed"` (ended and empty, or shut down). */
  state(): "open" | "ending" | "closed"
}

const stringChars = (item: unknown): number => typeof item === "string" ? item.length : 0

const done = Cause.done()

class MailboxImpl<A> implements Mailbox<A> {
  private items: Array<A | undefined> = []
  private head = 0
  private held = 0
  private heldChars = 0
  private droppedTotal = 0
  private droppedSince = 0
  private status: "open" | "ending" | "shut" = "open"
  private readonly keys: Set<string> | undefined
  private readonly capacity: number
  private readonly maxChars: number
  private readonly charsOf: (item: A) => number
  private readonly overflow: Overflow
  private readonly coalesce: ((item: A) => string | undefined) | undefined
  /** Created on first wait: mailboxes nobody waits on pay nothing for them. */
  private takers: Latch.Latch | undefined = undefined
  private roomWaiters: Latch.Latch | undefined = undefined
  readonly take: Effect.Effect<A, Cause.Done>
  readonly ready: Effect.Effect<void>
  readonly room: Effect.Effect<void>

  constructor(options: Options<A>) {
    if (!(options.capacity >= 0)) throw new RangeError(`a mailbox's capacity must be at least 0, got ${options.capacity}`)
    this.capacity = options.capacity
    this.maxChars = options.maxChars ?? Infinity
    this.charsOf = options.charsOf ?? stringChars
    this.overflow = options.overflow
    this.coalesce = options.coalesce
    this.keys = options.coalesce === undefined ? undefined : new Set()
    const take: Effect.Effect<A, Cause.Done> = Effect.suspend(() => {
      if (this.head < this.items.length) return Effect.succeed(this.shift())
      if (this.status !== "open") return done
      this.takers ??= Latch.makeUnsafe(false)
      this.takers.closeUnsafe()
      return Effect.andThen(this.takers.await, take)
    })
    const ready: Effect.Effect<void> = Effect.suspend(() => {
      if (this.head < this.items.length || this.status !== "open") return Effect.void
      this.takers ??= Latch.makeUnsafe(false)
      this.takers.closeUnsafe()
      return Effect.andThen(this.takers.await, ready)
    })
    const room: Effect.Effect<void> = Effect.suspend(() => {
      if (!this.isOver() || this.status === "shut") return Effect.void
      this.roomWaiters ??= Latch.makeUnsafe(false)
      this.roomWaiters.closeUnsafe()
      return Effect.andThen(this.roomWaiters.await, room)
    })
    this.take = take
    this.ready = ready
    this.room = room
  }

  offer(item: A): Offered {
    if (this.status !== "open") return "closed"
    const key = this.keys === undefined ? undefined : this.coalesce!(item)
    if (key !== undefined && this.keys!.has(key)) return "coalesced"
    const chars = this.charsOf(item)
    if (this.overflow !== "wait" && !this.fits(chars)) {
      switch (this.overflow) {
        case "drop-newest":
          return this.drop()
        case "drop-oldest":
          while (this.head < this.items.length && !this.fits(chars)) {
            this.shift()
            this.droppedTotal++
            this.droppedSince++
          }
          if (!this.fits(chars)) return this.drop()
          break
        case "close":
          this.shutdown()
          return "overflow"
      }
    }
    this.items.push(item)
    this.held++
    this.heldChars += chars
    if (key !== undefined) this.keys!.add(key)
    this.takers?.openUnsafe()
    return "queued"
  }

  poll(): A | undefined {
    return this.head < this.items.length ? this.shift() : undefined
  }

  takeBatch(): ReadonlyArray<A> {
    if (this.head === this.items.length) return []
    const batch = (this.head === 0 ? this.items : this.items.slice(this.head)) as Array<A>
    this.items = []
    this.head = 0
    this.keys?.clear()
    return batch
  }

  settle(batch: ReadonlyArray<A>): void {
    let chars = 0
    for (const item of batch) chars += this.charsOf(item)
    this.held = Math.max(0, this.held - batch.length)
    this.heldChars = Math.max(0, this.heldChars - chars)
    this.relieved()
  }

  isOver(): boolean {
    return this.held > this.capacity || this.heldChars > this.maxChars
  }

  size(): number {
    return this.held
  }

  chars(): number {
    return this.heldChars
  }

  waiting(): number {
    return this.items.length - this.head
  }

  dropped(): number {
    return this.droppedTotal
  }

  takeDropped(): number {
    const dropped = this.droppedSince
    this.droppedSince = 0
    return dropped
  }

  end(): void {
    if (this.status !== "open") return
    this.status = "ending"
    this.takers?.openUnsafe()
  }

  shutdown(): void {
    if (this.status === "shut") return
    this.status = "shut"
    while (this.head < this.items.length) this.shift()
    this.takers?.openUnsafe()
    this.roomWaiters?.openUnsafe()
  }

  state(): "open" | "ending" | "closed" {
    if (this.status === "open") return "open"
    return this.status === "ending" && this.head < this.items.length ? "ending" : "closed"
  }

  /** Whether an item of `chars` fits beside what is held: by count, and by characters unless nothing is held. */
  private fits(chars: number): boolean {
    return this.held < this.capacity && (this.held === 0 || this.heldChars + chars <= this.maxChars)
  }

  private drop(): Offered {
    this.droppedTotal++
    this.droppedSince++
    return "dropped"
  }

  /** Removes the oldest waiting item; it stops counting. */
  private shift(): A {
    const item = this.items[this.head] as A
    this.items[this.head] = undefined
    this.head++
    if (this.head === this.items.length) {
      this.items.length = 0
      this.head = 0
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head)
      this.head = 0
    }
    if (this.keys !== undefined) {
      const key = this.coalesce!(item)
      if (key !== undefined) this.keys.delete(key)
    }
    this.held--
    this.heldChars -= this.charsOf(item)
    this.relieved()
    return item
  }

  private relieved(): void {
    if (this.roomWaiters !== undefined && !this.isOver()) this.roomWaiters.openUnsafe()
  }
}

/**
 * A mailbox (a plain allocation: no fiber, no scope).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeUnsafe = <A>(options: Options<A>): Mailbox<A> => new MailboxImpl(options)
