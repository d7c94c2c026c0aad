/**
 * A `SqlClient` (`effect/sql`) on Node 24's built-in `node:sqlite` (`DatabaseSync`): no native
 * addon, no install script.
 *
 * **Why this module exists.** Effect's own driver, `@effect/sql-sqlite-node`, has no release that
 * loads with `effect` 4.1.0: the newest on npm (4.0.0-beta.102) imports `effect/unstable/sql/*` and
 * `effect/unstable/reactivity/*`, which 4.1.0 no longer exports (ERR_MODULE_NOT_FOUND). This is a
 * small client written for `@snodo/tasks-sqlite` in the same shape (its config keeps the upstream
 * names where they overlap: `filename`, `readonly`, `prepareCacheSize`, `disableWAL`). **Replace it
 * with the upstream driver once a release supports effect 4.1**: the task store only needs a
 * `SqlClient` whose dialect is `sqlite`, so swapping the Layer is the whole change.
 *
 * What it does, and why:
 *
 * - **One connection, serialized by a semaphore** (`SqlClient.makeSqliteAcquirers`): SQLite has one
 *   writer anyway, and `DatabaseSync` is synchronous, so a second connection in the same process
 *   would only add lock waits. A transaction holds the permit from `BEGIN` to `COMMIT`, so no other
 *   fiber's statement lands inside it.
 * - **`BEGIN IMMEDIATE`** starts every transaction: the write lock is taken at `BEGIN`, never
 *   upgraded from a read lock later (which fails at once with `SQLITE_BUSY` when another process
 *   wrote meanwhile, whatever the busy timeout).
 * - **A busy timeout** (default 5 s): another process holding the write lock is waited for. The
 *   wait is synchronous (it blocks this process's event loop), which is why the store is meant for
 *   one process, or a few on one host that write rarely.
 * - **WAL** (readers never block the writer), **`synchronous = FULL`** by default (a committed
 *   task survives a power loss, not only a crash; `NORMAL` trades that for speed), **foreign keys**
 *   on.
 * - **A prepared-statement cache** (least recently used, 200 statements by default).
 *
 * Not supported: `executeStream` (a defect), `updateValues` (the sqlite compiler has no form of it).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SqlClient } from "effect/sql"
 * import * as SqliteClient from "@snodo/tasks-sqlite/SqliteClient"
 *
 * const program = Effect.gen(function*() {
 *   const sql = yield* SqlClient.SqlClient
 *   return yield* sql<{ one: number }>`SELECT 1 AS one`
 * }).pipe(Effect.provide(SqliteClient.layer({ filename: ":memory:" })))
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Semaphore, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, type SqlConnection, SqlError, Statement } from "effect/sql"
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite"

/**
 * How SQLite syncs a commit to disk (`PRAGMA synchronous`).
 *
 * @category models
 * @since 0.1.0
 */
export type Synchronous = "OFF" | "NORMAL" | "FULL" | "EXTRA"

/**
 * @category models
 * @since 0.1.0
 */
export interface SqliteClientConfig {
  /** A file path, or `":memory:"` (a database that lives as long as the client). */
  readonly filename: string
  readonly readonly?: boolean | undefined
  /** How long a statement waits for another process's write lock, in ms. Default 5,000. */
  readonly busyTimeoutMs?: number | undefined
  /** Prepared statements kept (least recently used first out). Default 200. */
  readonly prepareCacheSize?: number | undefined
  /** Keep SQLite's rollback journal instead of WAL. Default false. */
  readonly disableWAL?: boolean | undefined
  /** Default `"FULL"`. */
  readonly synchronous?: Synchronous | undefined
  readonly spanAttributes?: Record<string, unknown> | undefined
}

const TypeId = "~@snodo/tasks-sqlite/SqliteClient"

/**
 * The client: a `SqlClient` that also knows its config.
 *
 * @category models
 * @since 0.1.0
 */
export interface SqliteClient extends SqlClient.SqlClient {
  readonly [TypeId]: typeof TypeId
  readonly config: SqliteClientConfig
}

/**
 * @category services
 * @since 0.1.0
 */
export const SqliteClient = Context.Service<SqliteClient>("@snodo/tasks-sqlite/SqliteClient")

/** A native error as effect/sql classifies it (node:sqlite reports the code as `errcode`). */
const sqlError = (cause: unknown, message: string, operation: string): SqlError.SqlError => {
  const native = typeof cause === "object" && cause !== null && "errcode" in cause && !("errno" in cause)
    ? Object.assign(cause, { errno: (cause as { readonly errcode: unknown }).errcode })
    : cause
  return new SqlError.SqlError({ reason: SqlError.classifySqliteError(native, { message, operation }) })
}

/** node:sqlite binds null, numbers, bigints, strings and bytes; the rest is normalized here. */
const bindable = (value: unknown): SQLInputValue => {
  switch (typeof value) {
    case "string":
    case "number":
    case "bigint":
      return value
    case "boolean":
      return value ? 1 : 0
    case "undefined":
      return null
    default:
      if (value === null || value instanceof Uint8Array) return value
      if (value instanceof Date) return value.toISOString()
      return JSON.stringify(value)
  }
}

interface Prepared {
  readonly statement: StatementSync
  /** Whether the statement yields rows (a SELECT, or a write with RETURNING). */
  readonly reader: boolean
  bigInts: boolean
}

/**
 * Opens the database and builds the client; the database is closed when the scope closes.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(config: SqliteClientConfig) {
  const db = yield* Effect.acquireRelease(
    Effect.try({
      try: () =>
        new DatabaseSync(config.filename, {
          readOnly: config.readonly ?? false,
          timeout: config.busyTimeoutMs ?? 5_000,
          enableForeignKeyConstraints: true
        }),
      catch: (cause) => sqlError(cause, `Failed to open SQLite database ${config.filename}`, "open")
    }),
    (opened) => Effect.sync(() => opened.isOpen && opened.close())
  )
  yield* Effect.try({
    try: () => {
      if (config.disableWAL !== true && config.readonly !== true) db.exec("PRAGMA journal_mode = WAL")
      db.exec(`PRAGMA synchronous = ${config.synchronous ?? "FULL"}`)
      db.exec("PRAGMA foreign_keys = ON")
    },
    catch: (cause) => sqlError(cause, "Failed to configure the SQLite database", "configure")
  })

  const capacity = Math.max(1, config.prepareCacheSize ?? 200)
  const cache = new Map<string, Prepared>()
  const prepareCached = (sql: string): Prepared => {
    const hit = cache.get(sql)
    if (hit !== undefined) {
      // Map order is the recency order: move the hit to the end.
      cache.delete(sql)
      cache.set(sql, hit)
      return hit
    }
    const statement = db.prepare(sql)
    const prepared: Prepared = { statement, reader: statement.columns().length > 0, bigInts: false }
    cache.set(sql, prepared)
    if (cache.size > capacity) cache.delete(cache.keys().next().value!)
    return prepared
  }
  const prepareOnce = (sql: string): Prepared => {
    const statement = db.prepare(sql)
    return { statement, reader: statement.columns().length > 0, bigInts: false }
  }

  /** Runs one statement: rows as objects, rows as arrays, or (`raw`) node:sqlite's own result. */
  const run = <A>(
    prepare: (sql: string) => Prepared,
    sql: string,
    params: ReadonlyArray<unknown>,
    mode: "rows" | "values" | "raw"
  ): Effect.Effect<A, SqlError.SqlError> =>
    Effect.withFiber((fiber) => {
      const bigInts = fiber.getRef(SqlClient.SafeIntegers)
      try {
        const prepared = prepare(sql)
        const { statement } = prepared
        if (prepared.bigInts !== bigInts) {
          statement.setReadBigInts(bigInts)
          prepared.bigInts = bigInts
        }
        const bound = params.map(bindable)
        if (!prepared.reader) {
          const result = statement.run(...bound)
          return Effect.succeed((mode === "raw" ? result : []) as A)
        }
        if (mode !== "values") return Effect.succeed(statement.all(...bound) as A)
        statement.setReturnArrays(true)
        try {
          return Effect.succeed(statement.all(...bound) as A)
        } finally {
          statement.setReturnArrays(false)
        }
      } catch (cause) {
        return Effect.fail(sqlError(cause, "Failed to execute statement", "execute"))
      }
    })

  type Rows = ReadonlyArray<object>
  type Values = ReadonlyArray<ReadonlyArray<unknown>>
  const connection: SqlConnection.Connection = {
    execute: (sql, params, transformRows) => {
      const rows = run<Rows>(prepareCached, sql, params, "rows")
      return transformRows === undefined ? rows : Effect.map(rows, transformRows)
    },
    executeRaw: (sql, params) => run<unknown>(prepareCached, sql, params, "raw"),
    executeValues: (sql, params) => run<Values>(prepareCached, sql, params, "values"),
    executeValuesUnprepared: (sql, params) => run<Values>(prepareOnce, sql, params, "values"),
    executeUnprepared: (sql, params, transformRows) => {
      const rows = run<Rows>(prepareOnce, sql, params, "rows")
      return transformRows === undefined ? rows : Effect.map(rows, transformRows)
    },
    executeStream: () => Stream.die(new Error("SqliteClient: executeStream is not supported"))
  }

  const semaphore = yield* Semaphore.make(1)
  const acquirers = SqlClient.makeSqliteAcquirers({
    connection: Effect.succeed(connection),
    semaphore,
    isTransaction: () => db.isTransaction
  })

  const client = yield* SqlClient.make({
    acquirer: acquirers.acquirer,
    borrower: acquirers.borrower,
    transactionAcquirer: acquirers.transactionAcquirer,
    onCommitFailure: acquirers.onCommitFailure,
    isTransaction: acquirers.isTransaction,
    compiler: Statement.makeCompilerSqlite(),
    driver: "snodo-node-sqlite",
    beginTransaction: "BEGIN IMMEDIATE",
    prepareTransactionControls: true,
    spanAttributes: [...Object.entries(config.spanAttributes ?? {}), ["db.system.name", "sqlite"]]
  })
  return Object.assign(client, { [TypeId]: TypeId, config }) as SqliteClient
})

/**
 * The client as a Layer (both `SqliteClient` and the generic `SqlClient`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (config: SqliteClientConfig): Layer.Layer<SqliteClient | SqlClient.SqlClient, SqlError.SqlError> =>
  Layer.effectContext(
    Effect.map(make(config), (client) => Context.make(SqliteClient, client).pipe(Context.add(SqlClient.SqlClient, client)))
  ).pipe(Layer.provide(Reactivity.layer))
