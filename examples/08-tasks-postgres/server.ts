/**
 * A server meant to run as one of many instances behind a load balancer, its tasks and listen
 * streams on PostgreSQL: a `build_report` tool that runs as a task, the Tasks extension on
 * `@snodo/postgres` (store, LISTEN/NOTIFY signals) and the PostgreSQL `SubscriptionHub`, so a
 * task created on one instance can be read, cancelled and followed (`subscriptions/listen`) on any
 * other, and a task whose instance dies is finished by another.
 */
import { PgClient } from "@effect/sql-pg"
import { McpServer, Tool } from "@snodo/core"
import * as NodeServe from "@snodo/http/NodeServe"
import * as Tasks from "@snodo/tasks"
import * as TasksPostgres from "@snodo/postgres"
import { Effect, Layer, Redacted, Schema } from "effect"

/** Which instance this is, in every result it builds. */
export const makeServer = (instance: string) => {
  const buildReport = Tool.make("build_report", {
    description: "Builds a report (slowly); runs as a task",
    input: Schema.Struct({
      title: Schema.String,
      seconds: Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 600 }))
    })
  }, ({ seconds, title }) =>
    // Runs at least once: after a crash another instance runs it again from the top, so a real
    // report would be written under the task id (an idempotency key), never appended blindly.
    Effect.sleep(`${seconds} seconds`).pipe(Effect.as(`Report "${title}" built by ${instance}`)))

  return McpServer.make({ name: "reports", version: "1.0.0" })
    .add(buildReport)
    .extend(Tasks.extension({
      tools: { build_report: Tasks.required() },
      // NOTIFY wakes idle instances; the poll only catches retries and the leases of dead instances.
      runner: { claimIntervalMs: 5_000 }
    }))
}

export interface Options {
  readonly url: string
  readonly schema: string
  readonly port: number
  readonly instance: string
}

/** One instance over HTTP, on the shared database (whose schema must be migrated). */
export const layer = (options: Options) =>
  NodeServe.layer({ port: options.port, host: "127.0.0.1" }).pipe(
    Layer.provide(makeServer(options.instance).layer),
    Layer.provide(TasksPostgres.layerWithHub({ schema: options.schema })),
    Layer.provide(PgClient.layer({ url: Redacted.make(options.url), applicationName: `reports ${options.instance}` }))
  )

/** The migrations, as a deploy step runs them (once, before the instances start). */
export const migrate = (options: Pick<Options, "url" | "schema">) =>
  TasksPostgres.migrate({ schema: options.schema }).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(options.url), maxConnections: 1 }))
  )
