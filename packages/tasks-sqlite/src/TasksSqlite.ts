/**
 * The SQLite task store in one Layer: a {@link SqliteClient} on the file, the schema check, and the
 * store; the migrations too when the application asks (`migrate: true`), or separately with
 * {@link migrate}.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import * as TasksSqlite from "@snodo/tasks-sqlite"
 *
 * // the application runs the migrations at start (a demo; a deploy step can run TasksSqlite.migrate instead)
 * const Store = TasksSqlite.layer({ filename: ".data/tasks.sqlite", migrate: true })
 * ```
 *
 * @since 0.1.0
 */
import type { TaskStore } from "@snodo/tasks/TaskStore"
import { Effect, Layer } from "effect"
import type { Migrator, SqlError } from "effect/sql"
import { checkSchema, migrate, type SchemaMismatch } from "./Migrations.ts"
import * as SqliteClient from "./SqliteClient.ts"
import * as SqliteTaskStore from "./SqliteTaskStore.ts"

/**
 * The client's config, and whether to migrate before serving (default false).
 *
 * @category models
 * @since 0.1.0
 */
export interface Config extends SqliteClient.SqliteClientConfig {
  readonly migrate?: boolean | undefined
}

/**
 * The store on its own SQLite file. Without `migrate: true` the database must already hold this
 * version's schema (else `SchemaMismatch`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (config: Config): Layer.Layer<TaskStore, SqlError.SqlError | Migrator.MigrationError | SchemaMismatch> =>
  (config.migrate === true
    ? Layer.unwrap(Effect.as(migrate, SqliteTaskStore.layer))
    : SqliteTaskStore.layer
  ).pipe(Layer.provide(SqliteClient.layer(config)))

export { checkSchema, migrate }
