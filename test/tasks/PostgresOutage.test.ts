/**
 * Issue 29, defects 5 and 11: a PostgreSQL outage, on a private cluster this test starts, stops
 * (`pg_ctl stop -m immediate`, a crash as clients see it) and starts again.
 *
 * An everything server instance (a child process; 2 s leases, the store's ledger of terminal
 * commits on) runs 20 three-second tasks; PostgreSQL goes down a second in and stays down for
 * six, so every task finishes while the store cannot take its result, and every lease runs out.
 *
 * - Defect 5: each finished result is committed once the store is back, by the run that computed
 *   it: every task completes with attempt 1 and one ledger row. On d04b984 the failed write was
 *   only logged and every task ran again from the top (attempt 2).
 * - Defect 11: during the outage task calls are refused as retryable, HTTP 503 with `Retry-After`
 *   (on d04b984: 500, -32603 "Internal error", no `Retry-After`).
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { afterAll, describe, expect, it } from "vitest"
import * as PrivatePostgres from "../support/PrivatePostgres.ts"
import { createTask, post, type Server, settle, sleep, start } from "../support/TaskServers.ts"

let cluster: PrivatePostgres.PrivatePostgres | undefined
const servers: Array<Server> = []
afterAll(async () => {
  await Promise.all(servers.map((server) => server.kill9()))
  cluster?.destroy()
}, 30_000)

const sql = <A>(url: string, statement: (pg: PgClient.PgClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(PgClient.make({ url: Redacted.make(url), maxConnections: 1 }), statement)).pipe(
    Effect.provide(Reactivity.layer)
  ))

describe("a PostgreSQL outage while tasks finish", () => {
  it("every finished result is committed once the store is back, without running again; calls meanwhile are 503 with Retry-After", async () => {
    cluster = await PrivatePostgres.create()
    const pg = cluster
    const server = await start("test/support/TasksInstanceMain.ts", ["--tasks", pg.url])
    servers.push(server)

    const started = Date.now()
    const ids: Array<string> = []
    for (let i = 0; i < 20; i++) ids.push((await createTask(server.url, "slow_compute", { seconds: 3, label: `job-${i}` })).taskId)
    await sleep(Math.max(0, 1_000 - (Date.now() - started)))
    pg.stop()
    const downAt = Date.now()

    // Down: a read and a create are refused as retryable.
    await sleep(500)
    const read = await post(server.url, "tasks/get", { taskId: ids[0]! })
    const create = await post(server.url, "tools/call", { name: "slow_compute", arguments: { seconds: 0 } })
    process.stderr.write(
      `outage: tasks/get HTTP ${read.status} Retry-After ${read.headers["retry-after"] ?? "-"} ${JSON.stringify(read.frame["error"])}; ` +
        `tools/call HTTP ${create.status} Retry-After ${create.headers["retry-after"] ?? "-"}\n`
    )

    // Every task finishes (at 3 s) and every lease (2 s) runs out while the store is down.
    await sleep(Math.max(0, 6_000 - (Date.now() - downAt)))
    pg.start()
    const upAt = Date.now()

    const done = await settle([server.url], ids, 60_000)
    const settledMs = Date.now() - upAt
    for (const [index, taskId] of ids.entries()) {
      expect(done.get(taskId)).toMatchObject({ status: "completed", result: { content: [{ text: `Computed job-${index} after 3s` }] } })
    }
    const rows = await sql(pg.url, (client) =>
      client<{ readonly task_id: string; readonly attempt: number; readonly commits: bigint }>`
SELECT t.task_id, t.attempt, (SELECT count(*) FROM snodo_task_ledger l WHERE l.task_id = t.task_id) AS commits
FROM snodo_tasks t WHERE t.task_id IN ${client.in(ids)}`)
    const reran = rows.filter((row) => row.attempt > 1).length
    process.stderr.write(
      `outage: down ${((upAt - downAt) / 1000).toFixed(1)} s; all ${ids.length} completed ${settledMs} ms after it came back; ` +
        `${reran} of ${ids.length} ran again; commits per task ${[...new Set(rows.map((row) => Number(row.commits)))].join(",")}\n`
    )

    expect(read.status).toBe(503)
    expect(Number(read.headers["retry-after"])).toBeGreaterThanOrEqual(1)
    expect(read.frame["error"]).toMatchObject({ code: -32603, data: { retryable: true } })
    expect(create.status).toBe(503)
    expect(create.headers["retry-after"]).toBeDefined()
    expect(rows).toHaveLength(ids.length)
    expect(reran).toBe(0)
    for (const row of rows) expect(Number(row.commits)).toBe(1)
    await server.stop()
  }, 120_000)
})
