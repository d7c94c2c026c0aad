/**
 * The names every part of the PostgreSQL backend derives from one `schema` option: the tables, the
 * `LISTEN/NOTIFY` channels and the advisory lock key. Two deployments in two schemas of one
 * database share nothing (not even wake-ups).
 *
 * @example
 * ```ts
 * import * as PgNames from "@snodo/postgres/PgNames"
 *
 * PgNames.names("snodo").tasks          // "snodo.snodo_tasks"
 * PgNames.names("snodo").signalsChannel // "snodo_signals_snodo"
 * ```
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"

/**
 * Where the backend's tables live, unless told otherwise.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultSchema = "public"

/**
 * @category models
 * @since 0.1.0
 */
export interface Names {
  readonly schema: string
  /** `schema.snodo_tasks` */
  readonly tasks: string
  /** `schema.snodo_tasks_migrations` */
  readonly migrations: string
  /** `schema.snodo_hub_payloads`: hub changes too large for a NOTIFY payload, read by reference. */
  readonly hubPayloads: string
  /** `schema.snodo_task_ledger`: the test-only ledger of terminal commits. */
  readonly ledger: string
  /** The channel of `TaskSignals` wake-ups. */
  readonly signalsChannel: string
  /** The channel of `SubscriptionHub` changes. */
  readonly hubChannel: string
  /** `schema.snodo_sessions`: the initialize-era HTTP sessions (PgSessionStore). */
  readonly sessions: string
  /** `schema.snodo_session_readers`: the instances that cache sessions, and their leases (PgSessionStore). */
  readonly sessionReaders: string
  /** The channel of the sessions' events between instances. */
  readonly sessionsChannel: string
  /** The key of the advisory lock taken to count sessions at create. */
  readonly sessionsLock: string
  /** `schema.snodo_dpop_proofs`: the DPoP proofs accepted, against replay (PgDpopReplay). */
  readonly dpopProofs: string
  /** The key of the transaction-scoped advisory lock taken to count capacity at create. */
  readonly capacityLock: string
  /** The key of the advisory lock that serializes migrations (schema creation included). */
  readonly migrationLock: string
}

const identifier = /^[a-z_][a-z0-9_]{0,62}$/

/** A channel name: at most 63 bytes, or a hash of the schema in its place. */
const channel = (kind: string, schema: string): string => {
  const plain = `snodo_${kind}_${schema}`
  return plain.length <= 63 ? plain : `snodo_${kind}_${createHash("sha256").update(schema).digest("hex").slice(0, 32)}`
}

/**
 * The names of one schema. A schema name is a lowercase SQL identifier (letters, digits, `_`), so it
 * never needs quoting or escaping anywhere.
 *
 * @category combinators
 * @since 0.1.0
 */
export const names = (schema: string = defaultSchema): Names => {
  if (!identifier.test(schema)) throw new Error(`Invalid PostgreSQL schema name ${JSON.stringify(schema)}: use lowercase letters, digits and _`)
  return {
    schema,
    tasks: `${schema}.snodo_tasks`,
    migrations: `${schema}.snodo_tasks_migrations`,
    hubPayloads: `${schema}.snodo_hub_payloads`,
    ledger: `${schema}.snodo_task_ledger`,
    signalsChannel: channel("signals", schema),
    hubChannel: channel("hub", schema),
    sessions: `${schema}.snodo_sessions`,
    sessionReaders: `${schema}.snodo_session_readers`,
    sessionsChannel: channel("sessions", schema),
    sessionsLock: `snodo_sessions_create:${schema}`,
    dpopProofs: `${schema}.snodo_dpop_proofs`,
    capacityLock: `snodo_tasks_capacity:${schema}`,
    migrationLock: `snodo_tasks_migrate:${schema}`
  }
}
