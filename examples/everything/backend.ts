/**
 * Where the everything server keeps its tasks, chosen at start (`--tasks`, else `SNODO_TASKS`):
 *
 *   memory                     in this process only (the default over stdio)
 *   sqlite:PATH                an SQLite file (the default over HTTP: `.data/tasks.sqlite` in the repo root)
 *   postgres://HOST:PORT/DB    PostgreSQL, shared by every server started on the same URL: tasks, task
 *                              wake-ups and `subscriptions/listen` changes all cross instances
 *                              (`?schema=NAME` picks the schema, default `public`; the user defaults to
 *                              `PGUSER`, else `postgres`)
 *
 * As a demo the server runs the store's migrations itself at start; a real deployment runs
 * `TasksSqlite.migrate` / `TasksPostgres.migrate` as a step of its own and lets the servers check
 * the schema only.
 *
 * The SQLite and PostgreSQL stores are imported when chosen (`import()` inside their Layer): a
 * server on the memory store (stdio's default) loads neither `effect/sql` nor `pg` at start
 * (docs/startup.md).
 */
import * as SubscriptionHub from "@snodo/core/SubscriptionHub"
import * as TaskSignals from "@snodo/tasks/TaskSignals"
import * as TaskStore from "@snodo/tasks/TaskStore"
import type * as TasksPostgres from "@snodo/postgres"
import type * as TasksSqlite from "@snodo/tasks-sqlite"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type { Migrator, SqlError } from "effect/sql"
import { mkdirSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { fileURLToPath } from "node:url"

/** The store a server runs on. */
export type Backend =
  | { readonly _tag: "Memory" }
  | { readonly _tag: "Sqlite"; readonly path: string }
  | { readonly _tag: "Postgres"; readonly url: string; readonly schema: string | undefined }

/** The SQLite file `npm start` uses unless told otherwise. */
export const defaultSqlitePath = fileURLToPath(new URL("../../.data/tasks.sqlite", import.meta.url))

/** Reads a `--tasks` value; a string says what is wrong with it. */
export const parse = (spec: string): Backend | string => {
  if (spec === "memory") return { _tag: "Memory" }
  if (spec.startsWith("sqlite:")) {
    const path = spec.slice("sqlite:".length)
    return path === "" ? "--tasks sqlite:PATH needs a path" : { _tag: "Sqlite", path: resolve(path) }
  }
  if (spec.startsWith("postgres://") || spec.startsWith("postgresql://")) {
    if (!URL.canParse(spec)) return `--tasks: not a URL: ${spec}`
    const url = new URL(spec)
    const schema = url.searchParams.get("schema") ?? undefined
    url.searchParams.delete("schema")
    if (url.username === "") url.username = process.env["PGUSER"] ?? "postgres"
    return { _tag: "Postgres", url: url.toString(), schema }
  }
  return `--tasks must be memory, sqlite:PATH or postgres://HOST:PORT/DB (got ${JSON.stringify(spec)})`
}

/** What the server's tasks and listen streams run on. */
export type Services = TaskStore.TaskStore | SubscriptionHub.SubscriptionHub | TaskSignals.TaskSignals

/** Why a backend could not start. */
export type BackendError = SqlError.SqlError | Migrator.MigrationError | TasksSqlite.LayerError | TasksPostgres.SchemaMismatch

/** Options for tests of the many-instance path. */
export interface Options {
  /** PostgreSQL: record every terminal task commit in `snodo_task_ledger` (a test hook). */
  readonly ledger?: boolean
}

/** The Layer of a backend, migrations included (a demo: see the module comment). */
export const layer = (backend: Backend, options: Options = {}): Layer.Layer<Services, BackendError> => {
  switch (backend._tag) {
    case "Memory":
      return Layer.mergeAll(TaskStore.layerMemory(), TaskSignals.layerMemory(), SubscriptionHub.layerMemory())
    case "Sqlite":
      return Layer.mergeAll(
        Layer.unwrap(Effect.promise(() => import("@snodo/tasks-sqlite")).pipe(Effect.map((TasksSqlite) => {
          mkdirSync(dirname(backend.path), { recursive: true })
          return TasksSqlite.layer({ filename: backend.path, migrate: true })
        }))),
        TaskSignals.layerMemory(),
        SubscriptionHub.layerMemory()
      )
    case "Postgres":
      return Layer.unwrap(
        Effect.promise(() => Promise.all([import("@snodo/postgres"), import("@effect/sql-pg")])).pipe(
          Effect.map(([TasksPostgres, { PgClient }]) =>
            TasksPostgres.layerWithHub({ schema: backend.schema, migrate: true, ledger: options.ledger === true }).pipe(
              Layer.provide(PgClient.layer({ url: Redacted.make(backend.url), applicationName: "snodo-everything" }))
            )
          )
        )
      )
  }
}

/** How a backend is named in the start-up log line. */
export const describe = (backend: Backend): string => {
  switch (backend._tag) {
    case "Memory":
      return "tasks in memory"
    case "Sqlite":
      return `tasks in ${backend.path}`
    case "Postgres": {
      const url = new URL(backend.url)
      return `tasks on postgres://${url.host}${url.pathname}${backend.schema === undefined ? "" : ` (schema ${backend.schema})`}`
    }
  }
}

/**
 * Where the HTTP sessions of the initialize era live (`--sessions`): `memory` in this process (a
 * client must come back to this instance), or a PostgreSQL backend shared by every server started
 * on the same URL and schema (any instance serves any request of any session).
 */
export type Sessions = { readonly _tag: "Memory" } | Extract<Backend, { readonly _tag: "Postgres" }>

/** Reads a `--sessions` value; a string says what is wrong with it. */
export const parseSessions = (spec: string): Sessions | string => {
  if (spec === "memory") return { _tag: "Memory" }
  const parsed = spec.startsWith("postgres://") || spec.startsWith("postgresql://") ? parse(spec) : undefined
  if (typeof parsed === "object" && parsed._tag === "Postgres") return parsed
  return typeof parsed === "string"
    ? parsed.replace("--tasks", "--sessions")
    : `--sessions must be memory or postgres://HOST:PORT/DB (got ${JSON.stringify(spec)})`
}

/**
 * The session store of a `--sessions` PostgreSQL backend (migrations included, as for tasks), on a
 * pool of its own; `undefined` for memory (the transport's own table).
 */
export const sessionStoreLayer = (sessions: Sessions) =>
  sessions._tag === "Memory" ? undefined : Layer.unwrap(
    Effect.promise(() => Promise.all([import("@snodo/postgres"), import("@effect/sql-pg")])).pipe(
      Effect.map(([TasksPostgres, { PgClient }]) =>
        Layer.unwrap(Effect.as(TasksPostgres.migrate({ schema: sessions.schema }), TasksPostgres.PgSessionStore.layer({ schema: sessions.schema }))).pipe(
          Layer.provide(PgClient.layer({ url: Redacted.make(sessions.url), applicationName: "snodo-everything-sessions" }))
        )
      )
    )
  )
