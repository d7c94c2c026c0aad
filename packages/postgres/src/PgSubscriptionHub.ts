/**
 * A `SubscriptionHub` shared by every instance on one PostgreSQL: a change published on any
 * instance reaches the matching `subscriptions/listen` streams of all of them (list changes,
 * resource updates, and extension topics such as a task's `notifications/tasks`).
 *
 * - `publish` delivers to this instance's streams at once and sends the change on the schema's hub
 *   channel with `NOTIFY`; every other instance delivers it to its own streams by the same rule as
 *   every hub (`SubscriptionHub.accepts`: the stream asked for it, and a topic change that names a
 *   principal goes to that principal's streams only).
 * - A change whose JSON does not fit a NOTIFY payload (PostgreSQL refuses 8,000 bytes and more) is
 *   carried **by reference**: its JSON is written to `snodo_hub_payloads` and the notification
 *   carries the row's id, which the receivers read. Rows are deleted after `retainMs`, by whichever
 *   instance gets there first.
 * - Notifications are observations, the stores are the truth: a change sent while an instance's
 *   `LISTEN` connection is down is lost for that instance's streams. `publish` never fails (a
 *   failed send is logged).
 *
 * One pooled connection per instance stays reserved for the `LISTEN`.
 *
 * @example
 * ```ts
 * import { PgClient } from "@effect/sql-pg"
 * import { Layer, Redacted } from "effect"
 * import * as PgSubscriptionHub from "@snodo/postgres/PgSubscriptionHub"
 *
 * const Hub = PgSubscriptionHub.layer({ schema: "snodo" }).pipe(
 *   Layer.provide(PgClient.layer({ url: Redacted.make("postgres://postgres@db:5432/app") }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { SubscriptionHub } from "@snodo/core"
import { Duration, Effect, Layer, Schema, type Scope } from "effect"
import type { SqlError } from "effect/sql"
import { randomBytes } from "node:crypto"
import { listen } from "./internal/Listener.ts"
import { checkSchema, type SchemaMismatch } from "./Migrations.ts"
import { names } from "./PgNames.ts"

/**
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The schema of the payloads table and the channel (the store's). Default `public`. */
  readonly schema?: string | undefined
  /** Largest NOTIFY payload sent inline, in bytes of UTF-8 (PostgreSQL's limit is 7,999). Default 7,900. */
  readonly inlineLimit?: number | undefined
  /** How long a payload carried by reference is kept for the receivers. Default 60 s. */
  readonly retainMs?: number | undefined
  /** How often old payloads are deleted. Default 30 s. */
  readonly cleanupIntervalMs?: number | undefined
}

/**
 * The hub, with the number of local subscribers for tests and metrics.
 *
 * @category models
 * @since 0.1.0
 */
export type PgHub = SubscriptionHub.SubscriptionHub["Service"] & { readonly size: () => number }

const ChangeSchema = Schema.Union([
  Schema.Struct({ _tag: Schema.Literals(["ToolsListChanged", "PromptsListChanged", "ResourcesListChanged"]) }),
  Schema.Struct({ _tag: Schema.Literal("ResourceUpdated"), uri: Schema.String }),
  Schema.Struct({
    _tag: Schema.Literal("Topic"),
    topic: Schema.String,
    method: Schema.String,
    params: Schema.Record(Schema.String, Schema.Unknown),
    principal: Schema.optionalKey(Schema.String)
  })
])

/** What travels on the channel: the change itself, or the id of the row that holds it. */
const Envelope = Schema.Struct({
  origin: Schema.String,
  change: Schema.optionalKey(ChangeSchema),
  ref: Schema.optionalKey(Schema.Int)
})
const decodeEnvelope = Schema.decodeUnknownEffect(Schema.fromJsonString(Envelope))

const toChange = (decoded: typeof ChangeSchema.Type): SubscriptionHub.Change =>
  decoded._tag === "Topic"
    ? SubscriptionHub.topic({ topic: decoded.topic, method: decoded.method, params: decoded.params, principal: decoded.principal })
    : decoded

const nowMs = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

/**
 * Starts the hub: listens (the first `LISTEN` must succeed), and deletes old payloads in the
 * background.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options?: Options): Effect.Effect<PgHub, SqlError.SqlError, PgClient.PgClient | Scope.Scope> =>
  Effect.gen(function*() {
    const pg = yield* PgClient.PgClient
    const n = names(options?.schema)
    const inlineLimit = Math.min(options?.inlineLimit ?? 7_900, 7_999)
    const retainMs = options?.retainMs ?? 60_000
    const origin = randomBytes(9).toString("base64url")
    const subscribers = new Set<SubscriptionHub.Subscriber>()
    const payloads = pg(n.hubPayloads)

    const deliver = (change: SubscriptionHub.Change) => {
      for (const subscriber of subscribers) {
        if (SubscriptionHub.accepts(subscriber, change)) subscriber.deliver(change)
      }
    }

    const receive = (payload: string): Effect.Effect<void> =>
      Effect.gen(function*() {
        const envelope = yield* decodeEnvelope(payload)
        if (envelope.origin === origin) return
        if (envelope.change !== undefined) return deliver(toChange(envelope.change))
        if (envelope.ref === undefined) return
        const rows = yield* pg<{ readonly payload: string }>`SELECT payload FROM ${payloads} WHERE id = ${envelope.ref}`
        const row = rows[0]
        if (row === undefined) return yield* Effect.logWarning(`hub payload ${envelope.ref} was already deleted; the change is lost for this instance`)
        const carried = yield* decodeEnvelope(row.payload)
        if (carried.change !== undefined) deliver(toChange(carried.change))
      }).pipe(Effect.catchCause((cause) => Effect.logWarning("a hub notification could not be read", cause)))

    yield* listen(pg, n.hubChannel, receive)

    yield* Effect.gen(function*() {
      for (;;) {
        yield* Effect.sleep(Duration.millis(options?.cleanupIntervalMs ?? 30_000))
        yield* pg`DELETE FROM ${payloads} WHERE id IN (
  SELECT id FROM ${payloads} WHERE created_at < ${pg.unsafe(nowMs)} - ${retainMs} LIMIT 1000 FOR UPDATE SKIP LOCKED
)`.pipe(Effect.catch((error) => Effect.logWarning("deleting old hub payloads failed", error)))
      }
    }).pipe(Effect.forkScoped)

    const send = (change: SubscriptionHub.Change): Effect.Effect<void> => {
      const inline = JSON.stringify({ origin, change })
      const sent = Buffer.byteLength(inline, "utf8") <= inlineLimit
        ? pg.notify(n.hubChannel, inline)
        : Effect.gen(function*() {
          const [row] = yield* pg<{ readonly id: bigint | number }>`INSERT INTO ${payloads} (payload, created_at)
VALUES (${inline}, ${pg.unsafe(nowMs)}) RETURNING id`
          yield* pg.notify(n.hubChannel, JSON.stringify({ origin, ref: Number(row?.id) }))
        })
      return sent.pipe(Effect.catch((error) => Effect.logWarning(`publishing to ${n.hubChannel} failed: other instances miss this change`, error)))
    }

    return {
      publish: (change) => Effect.andThen(Effect.sync(() => deliver(change)), send(change)),
      subscribe: (subscriber) =>
        Effect.acquireRelease(
          Effect.sync(() => void subscribers.add(subscriber)),
          () => Effect.sync(() => void subscribers.delete(subscriber))
        ),
      size: () => subscribers.size
    }
  })

/**
 * The hub as a Layer, on the `PgClient` in context: fails closed (`SchemaMismatch`) unless the
 * schema is migrated (the payloads table is one of the migrations).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: Options): Layer.Layer<SubscriptionHub.SubscriptionHub, SqlError.SqlError | SchemaMismatch, PgClient.PgClient> =>
  Layer.effect(SubscriptionHub.SubscriptionHub, Effect.andThen(checkSchema(options), make(options)))
