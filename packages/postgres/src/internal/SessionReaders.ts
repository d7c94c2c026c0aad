/**
 * The leases that let an instance answer sessions from a cached copy, and the wait that keeps
 * every change strict across instances (PgSessionStore).
 *
 * - **Reader side.** An instance holds a lease while a row of `snodo_session_readers` names it with
 *   an expiry in the future. It renews the row only after hearing itself on the sessions channel
 *   (a `NOTIFY` it sent, received on its `LISTEN` connection): since PostgreSQL delivers
 *   notifications in commit order, hearing a ping committed at `P` proves that every change
 *   committed before `P` was already handled. The row then lives until `P + leaseMs` (the
 *   database's clock), and the instance trusts its copy until `leaseMs` after it sent the ping (its
 *   own monotonic clock, which is never later). The lease is lost, and the copy dropped, when the
 *   `LISTEN` connection is lost, a renewal fails, or the lease lapses; the next one starts empty.
 * - **Writer side.** A change is committed with its invalidation (`NOTIFY`, same transaction);
 *   then, before its request answers, {@link Readers.settle} waits until every other instance whose
 *   lease was live after the commit has acknowledged it, renewed its lease from a ping sent after
 *   the commit, or let its lease lapse. A reader that stopped answering therefore delays a change by
 *   at most its lease.
 *
 * @since 0.1.0
 */
import type { PgClient } from "@effect/sql-pg"
import { Deferred, Duration, Effect, Exit, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import type { Names } from "../PgNames.ts"

/**
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** How long a lease lives after the ping that renewed it; 0 disables the cache (this instance reads per request). */
  readonly leaseMs: number
  /** How long a change waits for acknowledgements before it reads the readers table again. */
  readonly ackTimeoutMs: number
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Readers {
  /** This instance's name in the readers table and in acknowledgements. */
  readonly me: string
  /** Whether this instance may answer from its copy now. Drops the lease if it just lapsed. */
  readonly trusted: () => boolean
  /** Changes whenever the lease is lost: a read is cached only if trusted at its start and end, in one epoch. */
  readonly epoch: () => number
  /** This instance heard its own ping `nonce`, sent at `at` (the database's clock). */
  readonly heard: (nonce: string, at: number) => void
  /** Reader `by` acknowledged this instance's change `seq`. */
  readonly acknowledged: (seq: number, by: string) => void
  /** The `LISTEN` connection was lost: the lease goes with it. */
  readonly lost: () => void
  /** A sequence number for the next change of this instance, whose acknowledgements are collected from now. */
  readonly begin: () => number
  /** Waits, after change `seq` committed (its statement answered at `committedAt`, `performance.now()`), for every live reader. */
  readonly settle: (seq: number, committedAt: number) => Effect.Effect<void>
  /** Stops collecting the acknowledgements of change `seq` (it settled, or wrote nothing). */
  readonly end: (seq: number) => void
  /** Renews the lease in the background while the scope lives (once the `LISTEN` is up); deletes the row when it closes. */
  readonly start: Effect.Effect<void, never, Scope.Scope>
}

/**
 * The lease of an instance unless told otherwise, in milliseconds.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultLeaseMs = 3_000

/**
 * How long a change waits for acknowledgements before it reads the readers table again, unless
 * told otherwise, in milliseconds.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultAckTimeoutMs = 500

/** The share of a lease kept in hand against clocks running at slightly different rates. */
const drift = 0.02

const nowMs = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

interface Change {
  readonly acked: Set<string>
  waiting: Set<string> | undefined
  wake: (() => void) | undefined
}

/**
 * The leases of this instance (`start` renews it; nothing runs before) and the writer's wait.
 * `drop` runs whenever the lease is lost: the copy goes with it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  pg: PgClient.PgClient,
  n: Names,
  options: Options,
  drop: () => void
): Readers => {
    const me = randomBytes(9).toString("base64url")
    const readers = pg(n.sessionReaders)
    const now = pg.unsafe(nowMs)
    const leaseMs = options.leaseMs
    let deadline = 0
    let epoch = 0
    const lose = () => {
      deadline = 0
      epoch++
      drop()
    }
    const trusted = () => {
      if (deadline === 0) return false
      if (performance.now() < deadline) return true
      lose()
      return false
    }
    const pings = new Map<string, Deferred.Deferred<number>>()

    /** One renewal: a ping heard on this instance's own `LISTEN`, then the row moved on from it. */
    const renew = Effect.gen(function*() {
      const sent = performance.now()
      const before = epoch
      const nonce = randomBytes(6).toString("base64url")
      const heard = Deferred.makeUnsafe<number>()
      pings.set(nonce, heard)
      yield* pg`SELECT pg_notify(${n.sessionsChannel}, json_build_object('ping', json_build_object('by', ${me}::text, 'nonce', ${nonce}::text, 'at', ${now}))::text)`
      // Heard late (a busy machine) still renews; the lease in hand bounds the wait (it lapses by itself).
      const wait = Math.max(Math.floor(leaseMs / 3), deadline - sent)
      const at = yield* Deferred.await(heard).pipe(Effect.timeout(Duration.millis(Math.max(1, wait))))
      yield* pg`INSERT INTO ${readers} (reader, heard_at, expires_at) VALUES (${me}, ${at}, ${at + leaseMs})
ON CONFLICT (reader) DO UPDATE SET heard_at = EXCLUDED.heard_at, expires_at = EXCLUDED.expires_at`
      // A lease that lapsed or was lost meanwhile (changes may have gone unwaited for) starts again, empty.
      if (epoch !== before || !trusted()) lose()
      deadline = sent + leaseMs * (1 - drift)
      if (deadline <= performance.now()) lose()
    }).pipe(Effect.ensuring(Effect.sync(() => pings.clear())))

    const start = leaseMs <= 0 ? Effect.void : Effect.gen(function*() {
      yield* Effect.gen(function*() {
        for (;;) {
          const exit = yield* Effect.exit(renew)
          if (Exit.isFailure(exit)) {
            lose()
            yield* Effect.logDebug("session store: the cache lease could not be renewed; reading per request", exit.cause)
          }
          yield* Effect.sleep(Duration.millis(Math.max(1, Math.floor(leaseMs / 3))))
        }
      }).pipe(Effect.forkScoped)
      yield* Effect.addFinalizer(() =>
        Effect.andThen(Effect.sync(lose), pg`DELETE FROM ${readers} WHERE reader = ${me}`).pipe(Effect.ignore)
      )
    })

    const changes = new Map<number, Change>()
    let seq = 0

    /** Whether every reader in `waiting` acknowledged `change`. */
    const allAcknowledged = (change: Change, waiting: ReadonlySet<string>): boolean => {
      for (const reader of waiting) if (!change.acked.has(reader)) return false
      return true
    }

    const acknowledged = (at: number, by: string) => {
      const change = changes.get(at)
      if (change === undefined) return
      change.acked.add(by)
      if (change.waiting !== undefined && allAcknowledged(change, change.waiting)) change.wake?.()
    }

    /** Until every reader in `waiting` acknowledged, or `until` (`performance.now()`). */
    const await_ = (change: Change, waiting: Set<string>, until: number) =>
      Effect.callback<void>((resume) => {
        const done = () => {
          change.wake = undefined
          clearTimeout(timer)
          resume(Effect.void)
        }
        change.waiting = waiting
        change.wake = done
        const timer = setTimeout(done, Math.max(0, until - performance.now()))
        if (allAcknowledged(change, waiting)) done()
        return Effect.sync(() => {
          change.wake = undefined
          clearTimeout(timer)
        })
      })

    interface Live {
      readonly reader: string
      readonly left: string | number
      readonly now: string | number
    }
    /** The other instances whose lease is live (by the database's clock), with what is left of it. */
    const live = pg<Live>`SELECT r.reader, r.expires_at - c.now AS left, c.now FROM ${readers} r, (SELECT ${now} AS now) c
WHERE r.expires_at > c.now AND r.reader <> ${me}`
    /** Of `only`, those still live that have not renewed from a ping sent after `heardBefore`. */
    const stillLive = (only: ReadonlyArray<string>, heardBefore: number) =>
      pg<Live>`SELECT r.reader, r.expires_at - c.now AS left, c.now FROM ${readers} r, (SELECT ${now} AS now) c
WHERE r.expires_at > c.now AND r.reader = ANY(${only}::text[]) AND r.heard_at < ${heardBefore}`

    const settle = (at: number, committedAt: number): Effect.Effect<void> =>
      Effect.gen(function*() {
        const change = changes.get(at)
        if (change === undefined) return
        // Without the table, the longest a lease can be (this instance's, at least the default).
        let longest = Math.max(leaseMs, defaultLeaseMs)
        const pending = (rows: ReadonlyArray<Live>) => new Set(rows.map((row) => row.reader).filter((reader) => !change.acked.has(reader)))
        const soonest = (rows: ReadonlyArray<Live>, answered: number) => {
          let until = answered + options.ackTimeoutMs
          for (const row of rows) {
            longest = Math.max(longest, Number(row.left))
            until = Math.min(until, answered + Number(row.left))
          }
          return until
        }
        // Who is live is unknown: every lease of a reader that had not heard this change ends by then.
        const outlastLeases = Effect.suspend(() => Effect.sleep(Duration.millis(Math.max(0, committedAt + longest - performance.now()))))
        const first = yield* Effect.exit(live)
        if (Exit.isFailure(first)) return yield* outlastLeases
        // A reader that renewed from a ping sent after this read (`heard_at` ≥ its time) heard the change.
        const heardBefore = Number(first.value[0]?.now ?? 0)
        let rows = first.value
        let waiting = pending(rows)
        while (waiting.size > 0) {
          yield* await_(change, waiting, soonest(rows.filter((row) => waiting.has(row.reader)), performance.now()))
          const left = Array.from(waiting).filter((reader) => !change.acked.has(reader))
          if (left.length === 0) return
          const again = yield* Effect.exit(stillLive(left, heardBefore))
          if (Exit.isFailure(again)) return yield* outlastLeases
          rows = again.value
          waiting = pending(rows)
        }
      })

    return {
      me,
      trusted,
      epoch: () => epoch,
      heard: (nonce, at) => {
        const heard = pings.get(nonce)
        if (heard !== undefined) Deferred.doneUnsafe(heard, Exit.succeed(at))
      },
      acknowledged,
      lost: lose,
      begin: () => {
        const at = ++seq
        changes.set(at, { acked: new Set(), waiting: undefined, wake: undefined })
        return at
      },
      settle,
      end: (at) => void changes.delete(at),
      start
    }
}
