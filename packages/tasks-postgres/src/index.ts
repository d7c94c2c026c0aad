/**
 * @snodo/tasks-postgres: the Tasks extension's store for many instances on PostgreSQL
 * (`@effect/sql-pg`): `FOR UPDATE SKIP LOCKED` claims, generations fenced in the database,
 * `LISTEN/NOTIFY` task signals, a cross-instance `SubscriptionHub`, and the initialize-era HTTP
 * sessions of many instances (`PgSessionStore`). `TasksPostgres.migrate`
 * runs the migrations when the application asks; every Layer checks the schema before it serves.
 *
 * @since 0.1.0
 */
export { checkSchema, migrate, SchemaMismatch, type SchemaOptions } from "./Migrations.ts"
export * as Migrations from "./Migrations.ts"
export * as PgNames from "./PgNames.ts"
export * as PgSessionStore from "./PgSessionStore.ts"
export * as PgSubscriptionHub from "./PgSubscriptionHub.ts"
export * as PgTaskSignals from "./PgTaskSignals.ts"
export * as PgTaskStore from "./PgTaskStore.ts"
export { type Config, layer, layerWithHub } from "./TasksPostgres.ts"
