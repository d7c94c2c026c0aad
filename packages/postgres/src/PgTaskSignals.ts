/**
 * `TaskSignals` across instances through PostgreSQL `LISTEN/NOTIFY`: a task changed (a client
 * answered or cancelled it on another instance) wakes the instance running it at once, and work
 * waiting to be claimed (a task created while its instance was full, a task released by an
 * instance shutting down) wakes the idle ones. The runner's claim poll can then be slow: it is
 * only the fallback for what no signal announces (retry delays, leases of dead instances running
 * out).
 *
 * A signal is delivered to this instance's listeners at once and sent on the schema's channel for
 * the others (each instance ignores its own). A signal lost while a connection is down costs
 * latency, never correctness. One pooled connection per instance stays reserved for the `LISTEN`.
 *
 * @example
 * ```ts
 * import { PgClient } from "@effect/sql-pg"
 * import { Layer, Redacted } from "effect"
 * import * as PgTaskSignals from "@snodo/postgres/PgTaskSignals"
 *
 * const Signals = PgTaskSignals.layer({ schema: "snodo" }).pipe(
 *   Layer.provide(PgClient.layer({ url: Redacted.make("postgres://postgres@db:5432/app") }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { type Listener, TaskSignals } from "@snodo/tasks/TaskSignals"
import { Effect, Layer, type Scope } from "effect"
import type { SqlError } from "effect/sql"
import { randomBytes } from "node:crypto"
import { listen } from "./internal/Listener.ts"
import { names } from "./PgNames.ts"

/**
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The schema whose channel carries the signals (the store's). Default `public`. */
  readonly schema?: string | undefined
}

/**
 * Payloads: `<origin>|c|<taskId>` (a task changed) and `<origin>|w` (work to claim). The store
 * itself sends `store|w` when it releases a task.
 */
const parse = (payload: string): { readonly origin: string; readonly taskId: string | undefined } | undefined => {
  const first = payload.indexOf("|")
  if (first < 0) return undefined
  const origin = payload.slice(0, first)
  const rest = payload.slice(first + 1)
  if (rest === "w") return { origin, taskId: undefined }
  if (rest.startsWith("c|") && rest.length > 2) return { origin, taskId: rest.slice(2) }
  return undefined
}

/**
 * Starts listening (the first `LISTEN` must succeed) and answers the service.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options?: Options): Effect.Effect<TaskSignals["Service"], SqlError.SqlError, PgClient.PgClient | Scope.Scope> =>
  Effect.gen(function*() {
    const pg = yield* PgClient.PgClient
    const channel = names(options?.schema).signalsChannel
    const origin = randomBytes(9).toString("base64url")
    const listeners = new Set<Listener>()
    const local = (taskId: string | undefined) => {
      for (const listener of listeners) {
        if (taskId === undefined) listener.work()
        else listener.changed(taskId)
      }
    }
    yield* listen(pg, channel, (payload) =>
      Effect.sync(() => {
        const signal = parse(payload)
        if (signal !== undefined && signal.origin !== origin) local(signal.taskId)
      }))
    const send = (payload: string) =>
      pg.notify(channel, payload).pipe(Effect.catch((error) => Effect.logWarning(`NOTIFY ${channel} failed (other instances learn at their next poll)`, error)))
    return TaskSignals.of({
      changed: (taskId) => Effect.andThen(Effect.sync(() => local(taskId)), send(`${origin}|c|${taskId}`)),
      work: Effect.andThen(Effect.sync(() => local(undefined)), send(`${origin}|w`)),
      listen: (listener) =>
        Effect.acquireRelease(
          Effect.sync(() => void listeners.add(listener)),
          () => Effect.sync(() => void listeners.delete(listener))
        )
    })
  })

/**
 * The signals as a Layer, on the `PgClient` in context.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: Options): Layer.Layer<TaskSignals, SqlError.SqlError, PgClient.PgClient> =>
  Layer.effect(TaskSignals, make(options))
