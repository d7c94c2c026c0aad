/**
 * The PostgreSQL backend in one Layer, on the `PgClient` the application provides: the task store,
 * the `LISTEN/NOTIFY` task signals, and (with `hub: true`) the cross-instance `SubscriptionHub`;
 * the migrations too when the application asks (`migrate: true`), or separately with
 * {@link migrate}.
 *
 * @example
 * ```ts
 * import { PgClient } from "@effect/sql-pg"
 * import { Layer, Redacted } from "effect"
 * import * as TasksPostgres from "@snodo/postgres"
 *
 * const Backend = TasksPostgres.layer({ schema: "snodo", hub: true }).pipe(
 *   Layer.provide(PgClient.layer({ url: Redacted.make("postgres://postgres@db:5432/app") }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import type { PgClient } from "@effect/sql-pg"
import type { SubscriptionHub } from "@snodo/core"
import type { TaskSignals } from "@snodo/tasks/TaskSignals"
import type { TaskStore } from "@snodo/tasks/TaskStore"
import { Effect, Layer } from "effect"
import type { Migrator, SqlError } from "effect/sql"
import { checkSchema, migrate, type SchemaMismatch } from "./Migrations.ts"
import * as PgSubscriptionHub from "./PgSubscriptionHub.ts"
import * as PgTaskSignals from "./PgTaskSignals.ts"
import * as PgTaskStore from "./PgTaskStore.ts"

/**
 * @category models
 * @since 0.1.0
 */
export interface Config extends PgTaskStore.Options {
  /** Run the migrations before serving (safe from several instances at once). Default false. */
  readonly migrate?: boolean | undefined
  /** Options of the hub (see {@link layerWithHub}). */
  readonly hubOptions?: Omit<PgSubscriptionHub.Options, "schema"> | undefined
}

type Errors = SqlError.SqlError | Migrator.MigrationError | SchemaMismatch

const migrated = <A, E, R>(config: Config, layer: Layer.Layer<A, E, R>): Layer.Layer<A, E | Errors, R | PgClient.PgClient> =>
  config.migrate === true ? Layer.unwrap(Effect.as(migrate(config), layer)) : layer

/**
 * The task store and the task signals.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (config: Config = {}): Layer.Layer<TaskStore | TaskSignals, Errors, PgClient.PgClient> =>
  migrated(config, Layer.merge(PgTaskStore.layer(config), PgTaskSignals.layer(config)))

/**
 * The task store, the task signals and the cross-instance `SubscriptionHub`: what a server needs
 * to run as one of many instances.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerWithHub = (config: Config = {}): Layer.Layer<TaskStore | TaskSignals | SubscriptionHub.SubscriptionHub, Errors, PgClient.PgClient> =>
  migrated(
    config,
    Layer.mergeAll(PgTaskStore.layer(config), PgTaskSignals.layer(config), PgSubscriptionHub.layer({ ...config.hubOptions, schema: config.schema }))
  )

export { checkSchema, migrate }
