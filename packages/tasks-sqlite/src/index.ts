/**
 * @snodo/tasks-sqlite: a durable `TaskStore` for the Tasks extension on an embedded SQLite file,
 * for one host (one process, or a few on one host). `TasksSqlite.layer({ filename })` is the store;
 * `TasksSqlite.migrate` runs the migrations when the application asks, and the store checks the
 * schema (`checkSchema`) before it serves.
 *
 * @since 0.1.0
 */
export { checkSchema, migrate, migrationsTable, SchemaMismatch, tasksTable } from "./Migrations.ts"
export * as Migrations from "./Migrations.ts"
export * as SqliteClient from "./SqliteClient.ts"
export * as SqliteFile from "./SqliteFile.ts"
export { SqliteFileUnusable } from "./SqliteFile.ts"
export * as SqliteTaskStore from "./SqliteTaskStore.ts"
export { type Config, layer, type LayerError, layerOnSqlClient } from "./TasksSqlite.ts"
