/**
 * One `LISTEN` channel, kept open for as long as a scope lives: the first `LISTEN` must succeed
 * (a backend that cannot hear other instances should not start), and a connection lost later is
 * re-established with a capped backoff. Notifications sent while it was down are lost, which is
 * why everything that listens also has a slower path (polls, heartbeats, the store itself).
 *
 * Payloads are handled one at a time, in the order PostgreSQL delivered them. `lost` (optional)
 * runs, before anything else, whenever the connection is found lost: what an instance trusts
 * because it would have heard of a change (PgSessionStore's cache) stops being trusted there.
 *
 * @since 0.1.0
 */
import type { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Queue, Schedule, type Scope } from "effect"
import type { SqlError } from "effect/sql"

/**
 * Listens on `channel` until the scope closes, handing each payload to `handle`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const listen = (
  pg: PgClient.PgClient,
  channel: string,
  handle: (payload: string) => Effect.Effect<void>,
  options?: { readonly lost?: (() => void) | undefined }
): Effect.Effect<void, SqlError.SqlError, Scope.Scope> =>
  Effect.gen(function*() {
    const consume = (queue: Queue.Dequeue<{ readonly payload: string }, SqlError.SqlError>) =>
      Effect.forever(Effect.flatMap(Queue.take(queue), (notification) => handle(notification.payload)))
    // The first LISTEN is part of starting up; the ones after a lost connection are retried.
    const first = yield* pg.listen(channel)
    const lost = (error: SqlError.SqlError) =>
      Effect.andThen(
        Effect.sync(() => options?.lost?.()),
        Effect.logWarning(`LISTEN ${channel}: connection lost (${error.message}), listening again`)
      )
    const again = Effect.scoped(Effect.flatMap(pg.listen(channel), consume)).pipe(
      Effect.tapError(lost),
      Effect.retry(Schedule.min([Schedule.exponential(Duration.millis(100)), Schedule.spaced(Duration.seconds(5))]))
    )
    yield* consume(first).pipe(
      Effect.tapError(lost),
      Effect.catch(() => again),
      Effect.forkScoped
    )
  })
