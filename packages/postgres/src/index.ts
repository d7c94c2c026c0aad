/**
 * @snodo/postgres: everything snodo keeps in PostgreSQL (`@effect/sql-pg`), for many instances:
 * the Tasks extension's store (`FOR UPDATE SKIP LOCKED` claims, generations fenced in the database,
 * `LISTEN/NOTIFY` task signals, a cross-instance `SubscriptionHub`, and the initialize-era HTTP
 * sessions of many instances (`PgSessionStore`). `migrate` runs the migrations when the
 * application asks; every Layer checks the schema before it serves. This entry needs both optional
 * peers (`@snodo/tasks`, `@snodo/http`); a module imported by its path needs only its own.
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
