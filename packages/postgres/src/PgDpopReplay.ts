/**
 * A `DpopReplay` (`@snodo/oauth/DpopReplay`) on PostgreSQL: one memory of accepted DPoP proofs for
 * every instance of a resource server, so that a proof accepted by one is refused by all the others
 * (RFC 9449 §11.1). Behind a load balancer without it, each instance remembers only its own.
 *
 * - A proof is one row of `snodo_dpop_proofs` (its key's thumbprint and `jti`, and when it stops
 *   mattering). `claim` is one statement: an insert that takes an absent or expired row and reports
 *   whether it did, so of two instances claiming one proof at once, one wins.
 * - Expired rows are deleted in the background (`cleanupIntervalMs`).
 * - Times are the instances' clocks (the ones that check `iat`), so keep them in sync, as `iat`
 *   already needs.
 *
 * A statement that fails is `ReplayUnavailable`: the proof is refused (fail closed) and the client
 * retries with a fresh one. Import it by module path: `@snodo/postgres`'s root entry does not load
 * `@snodo/oauth` (an optional peer dependency).
 *
 * @example
 * ```ts
 * import { PgClient } from "@effect/sql-pg"
 * import { Layer, Redacted } from "effect"
 * import * as PgDpopReplay from "@snodo/postgres/PgDpopReplay"
 * import * as ResourceServer from "@snodo/oauth/ResourceServer"
 *
 * const Replay = PgDpopReplay.layer({ schema: "snodo" }).pipe(
 *   Layer.provide(PgClient.layer({ url: Redacted.make("postgres://postgres@db:5432/app") }))
 * )
 * const OAuth = ResourceServer.layer({
 *   resource: "https://mcp.example.com/mcp",
 *   dpop: { required: true, nonce: true, nonceSecret: Redacted.make(process.env["DPOP_NONCE_SECRET"] ?? "") }
 * }).pipe(Layer.provide(Replay))
 * ```
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { DpopReplay, ReplayUnavailable } from "@snodo/oauth/DpopReplay"
import { Clock, Duration, Effect, Layer, type Scope } from "effect"
import type { SqlError } from "effect/sql"
import { checkSchema, type SchemaMismatch, type SchemaOptions } from "./Migrations.ts"
import { names } from "./PgNames.ts"

/**
 * @category models
 * @since 0.1.0
 */
export interface Options extends SchemaOptions {
  /** How often expired proofs are deleted, in milliseconds. Default 60 s. */
  readonly cleanupIntervalMs?: number | undefined
}

/**
 * Starts the memory: deletes expired proofs in the background while its scope is open.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options?: Options): Effect.Effect<DpopReplay["Service"], never, PgClient.PgClient | Scope.Scope> =>
  Effect.gen(function*() {
    const pg = yield* PgClient.PgClient
    const table = pg(names(options?.schema).dpopProofs)

    yield* Effect.gen(function*() {
      for (;;) {
        yield* Effect.sleep(Duration.millis(options?.cleanupIntervalMs ?? 60_000))
        const now = yield* Clock.currentTimeMillis
        yield* pg`DELETE FROM ${table} WHERE expires_at <= ${now}`.pipe(
          Effect.catch((error) => Effect.logWarning("deleting expired DPoP proofs failed", error))
        )
      }
    }).pipe(Effect.forkScoped)

    return DpopReplay.of({
      claim: (proof, now, expiresAt) =>
        pg<{ readonly claimed: number }>`INSERT INTO ${table} (proof, expires_at) VALUES (${proof}, ${expiresAt})
ON CONFLICT (proof) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE ${table}.expires_at <= ${now}
RETURNING 1 AS claimed`.pipe(
          Effect.map((rows) => rows.length === 1),
          Effect.mapError((error) => new ReplayUnavailable({ message: `the DPoP proof memory did not answer: ${error.message}` }))
        )
    })
  })

/**
 * The memory as a Layer, once the schema is migrated (`Migrations.migrate`); it refuses to start
 * on a database migrated to another version.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: Options): Layer.Layer<DpopReplay, SqlError.SqlError | SchemaMismatch, PgClient.PgClient> =>
  Layer.effect(DpopReplay, Effect.andThen(checkSchema(options), make(options)))
