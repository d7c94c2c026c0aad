/**
 * The real PostgreSQL the tests run against (127.0.0.1:5432, database `test`, user `postgres`;
 * `SNODO_TEST_PG_URL` overrides), and a random schema per test file, migrated before its tests
 * and dropped after them.
 */
import { PgClient } from "@effect/sql-pg"
import * as TasksPostgres from "@snodo/postgres"
import { Effect, Layer, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll } from "vitest"

export const url = process.env["SNODO_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"

/** A pool on the test database. */
export const client = (options?: { readonly maxConnections?: number }): Layer.Layer<PgClient.PgClient, unknown> =>
  PgClient.layer({ url: Redacted.make(url), maxConnections: options?.maxConnections ?? 10 })

export const randomName = (prefix: string): string => `${prefix}_${randomBytes(6).toString("hex")}`

const run = <A, E>(effect: Effect.Effect<A, E, PgClient.PgClient>): Promise<A> =>
  Effect.runPromise(Effect.provide(effect, client({ maxConnections: 2 })))

/** A fresh schema for this file: migrated in `beforeAll`, dropped in `afterAll`. */
export const testSchema = (prefix = "snodo_test"): string => {
  const schema = randomName(prefix)
  beforeAll(() => run(TasksPostgres.migrate({ schema })), 30_000)
  afterAll(() => run(Effect.flatMap(Effect.service(PgClient.PgClient), (sql) => sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`))), 30_000)
  return schema
}

/** Runs SQL on the test database (outside any Layer a test builds). */
export const query = run
