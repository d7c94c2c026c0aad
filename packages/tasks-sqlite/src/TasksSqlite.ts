/**
 * The SQLite task store in one Layer: a {@link SqliteClient} on the file, the schema check, the
 * file check (`SqliteFile`: not corrupt, writable, not deleted while serving) and the store; the
 * migrations too when the application asks (`migrate: true`), or separately with the
 * {@link migrate} Effect. On an application's own `SqlClient` (sqlite dialect), {@link layerOnSqlClient}.
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
import { TaskStore } from "@snodo/tasks/TaskStore"
import { Effect, Layer } from "effect"
import { type Migrator, SqlClient, type SqlError } from "effect/sql"
import { checkSchema, migrate, type SchemaMismatch } from "./Migrations.ts"
import * as SqliteClient from "./SqliteClient.ts"
import * as SqliteFile from "./SqliteFile.ts"
import type { SqliteFileUnusable } from "./SqliteFile.ts"
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
 * Why the store could not start.
 *
 * @category models
 * @since 0.1.0
 */
export type LayerError = SqlError.SqlError | Migrator.MigrationError | SchemaMismatch | SqliteFileUnusable

/**
 * The store on the application's own `SqlClient` (any client of the sqlite dialect: this package's
 * `SqliteClient`, the upstream driver, one shared with the application's tables), migrated first
 * when asked (`migrate: true`; default false), then checked like {@link layer}.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import * as TasksSqlite from "@snodo/tasks-sqlite"
 *
 * const AppSql = TasksSqlite.SqliteClient.layer({ filename: "app.sqlite" })
 * const Store = TasksSqlite.layerOnSqlClient({ migrate: true }).pipe(Layer.provide(AppSql))
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layerOnSqlClient = (options: { readonly migrate?: boolean | undefined } = {}): Layer.Layer<TaskStore, LayerError, SqlClient.SqlClient> =>
  options.migrate === true
    // The file is checked before the migrations touch it: a corrupt file is refused as such.
    ? Layer.effect(
      TaskStore,
      Effect.gen(function*() {
        const file = yield* SqliteFile.check
        yield* migrate
        yield* checkSchema
        return yield* SqliteTaskStore.make(file)
      })
    )
    : SqliteTaskStore.layer

/**
 * The store on its own SQLite file. Without `migrate: true` the database must already hold this
 * version's schema (else `SchemaMismatch`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (config: Config): Layer.Layer<TaskStore, LayerError> =>
  layerOnSqlClient({ migrate: config.migrate }).pipe(Layer.provide(
    // A file this process may not write or open fails as the store's typed error, naming it.
    SqliteClient.layer(config).pipe(Layer.catchTag("SqlError", (error) => Layer.effect(SqlClient.SqlClient, Effect.fail(SqliteFile.opening(config.filename, error)))))
  ))

export { checkSchema, migrate }
