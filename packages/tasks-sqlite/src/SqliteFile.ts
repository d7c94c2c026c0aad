/**
 * The SQLite file under the store: checked before it serves, and watched while it does.
 *
 * - **At start** ({@link check}): `PRAGMA quick_check` must answer `ok` (a file with corrupt pages
 *   is refused, rather than served until every call fails), and the file must take a write (a
 *   table created and rolled back: a read-only file, or one in a read-only place, is refused
 *   rather than failing every task call). Either failure fails the store's Layer with
 *   {@link SqliteFileUnusable}, naming the file and what to do; so does a file the client could
 *   not open or set up for lack of permission ({@link opening}).
 * - **While serving** ({@link make}'s `ensure`): before every write the store checks that the
 *   path still names the file it opened (same device and inode). A file deleted or replaced under
 *   a running server still takes writes through its open descriptor, and they would be lost at the
 *   next start; instead the store refuses them (the client is told to retry later) and logs the
 *   error once.
 *
 * An in-memory database (`:memory:`) has no file: only the integrity and write checks run.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as SqliteClient from "@snodo/tasks-sqlite/SqliteClient"
 * import * as SqliteFile from "@snodo/tasks-sqlite/SqliteFile"
 *
 * const usable = SqliteFile.check.pipe(Effect.provide(SqliteClient.layer({ filename: "tasks.sqlite" })))
 * ```
 *
 * @since 0.1.0
 */
import { TaskStoreError } from "@snodo/tasks/TaskStore"
import { Effect, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { statSync } from "node:fs"

/**
 * The SQLite file cannot hold tasks: its pages are corrupt (`corrupt`), it does not take writes
 * (`readonly`: the file, or the folder where SQLite keeps its journal beside it, is not writable),
 * or it cannot be opened at all (`unopenable`: a missing folder, no permission to create it).
 *
 * @category errors
 * @since 0.1.0
 */
export class SqliteFileUnusable extends Schema.TaggedError<SqliteFileUnusable>()("SqliteFileUnusable", {
  reason: Schema.Literals(["corrupt", "readonly", "unopenable"]),
  /** The file, as SQLite names it (`""` for an in-memory database). */
  filename: Schema.String,
  message: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {}

/**
 * The file a store serves: where it is, and how to tell it is still there.
 *
 * @category models
 * @since 0.1.0
 */
export interface SqliteFile {
  /** The main database file's path; `undefined` for an in-memory database. */
  readonly filename: string | undefined
  /** Succeeds while the path still names the file opened at start; else the store error to answer. */
  readonly ensure: Effect.Effect<void, TaskStoreError>
}

/** What SQLite itself said (effect/sql's message is generic: "Failed to execute statement"). */
const said = (error: { readonly message: string; readonly reason?: { readonly cause?: unknown } }): string => {
  const native = error.reason?.cause
  return native instanceof Error ? native.message : error.message
}

/** SQLite's primary result codes that say the file cannot be written or opened by this process. */
const SQLITE_PERM = 3
const SQLITE_READONLY = 8
const SQLITE_CANTOPEN = 14

const nativeCode = (error: SqlError.SqlError): number | undefined => {
  const native: unknown = (error.reason as { readonly cause?: unknown }).cause
  const code = typeof native === "object" && native !== null ? (native as { readonly errcode?: unknown }).errcode : undefined
  return typeof code === "number" ? code & 0xff : undefined
}

/**
 * The store's error for a client that failed to open or set up the file at `filename` (for
 * example `PRAGMA journal_mode = WAL` on a read-only file in a read-only folder, where SQLite
 * cannot create the `-wal` beside it): {@link SqliteFileUnusable} naming the file and what to do
 * when SQLite says it may not write (`readonly`) or cannot open it (`unopenable`); any other
 * failure stays the `SqlError`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const opening = (filename: string, error: SqlError.SqlError): SqliteFileUnusable | SqlError.SqlError => {
  const code = nativeCode(error)
  if (code === SQLITE_READONLY || code === SQLITE_PERM) {
    return new SqliteFileUnusable({
      reason: "readonly",
      filename,
      message: `The SQLite task store ${filename} does not take writes (${said(error)}): ` +
        "make the file and its directory writable by this process (SQLite writes its journal beside the file)",
      cause: error
    })
  }
  if (code === SQLITE_CANTOPEN) {
    return new SqliteFileUnusable({
      reason: "unopenable",
      filename,
      message: `The SQLite task store ${filename} cannot be opened (${said(error)}): ` +
        "check that its directory exists and that this process may read and write the file and the directory",
      cause: error
    })
  }
  return error
}

const identity = (path: string): string | undefined => {
  try {
    const stat = statSync(path)
    return `${stat.dev}:${stat.ino}`
  } catch {
    return undefined
  }
}

/**
 * Checks the database the `SqlClient` in context has open: integrity, then writability. Answers
 * the file to watch.
 *
 * @category constants
 * @since 0.1.0
 */
export const check: Effect.Effect<SqliteFile, SqliteFileUnusable, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const listed = yield* Effect.orElseSucceed(sql<{ readonly name: string; readonly file: string }>`PRAGMA database_list`, () => [])
  const path = listed.find((database) => database.name === "main")?.file ?? ""
  const named = path === "" ? "an in-memory database" : path
  const integrity = yield* sql<Record<string, unknown>>`PRAGMA quick_check`.pipe(
    Effect.map((rows) => rows.map((row) => String(Object.values(row)[0]))),
    Effect.catch((cause) => Effect.succeed([`unreadable: ${said(cause)}`]))
  )
  if (integrity.length !== 1 || integrity[0] !== "ok") {
    return yield* new SqliteFileUnusable({
      reason: "corrupt",
      filename: path,
      message: `The SQLite task store ${named} is corrupt (quick_check: ${integrity.slice(0, 3).join("; ")}): ` +
        "restore it from a backup, or move it away to start on a new file"
    })
  }
  yield* sql.withTransaction(Effect.andThen(
    sql.unsafe("CREATE TABLE snodo_write_probe (x INTEGER)"),
    Effect.fail("probe" as const)
  )).pipe(
    Effect.provideService(SqlClient.BeginTransaction, "BEGIN IMMEDIATE"),
    Effect.catch((failure) =>
      failure === "probe"
        ? Effect.void
        : Effect.fail(
          new SqliteFileUnusable({
            reason: "readonly",
            filename: path,
            message: `The SQLite task store ${named} does not take writes (${said(failure)}): ` +
              "make the file and its directory writable by this process",
            cause: failure
          })
        )
    )
  )
  return make(path === "" ? undefined : path)
})

/**
 * Watches a file: `ensure` fails once the path no longer names the file it named here (deleted,
 * or replaced), and logs that once.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (filename: string | undefined): SqliteFile => {
  if (filename === undefined) return { filename, ensure: Effect.void }
  const opened = identity(filename)
  let reported = false
  const gone = () =>
    new TaskStoreError({ message: `Task store: the SQLite file ${filename} was deleted or replaced while the server ran; restart it` })
  return {
    filename,
    ensure: Effect.suspend(() => {
      if (identity(filename) === opened) return Effect.void
      const error = gone()
      if (reported) return Effect.fail(error)
      reported = true
      return Effect.andThen(Effect.logError(error.message), Effect.fail(error))
    })
  }
}
