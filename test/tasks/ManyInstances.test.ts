/**
 * Many instances, measured: three everything servers on one PostgreSQL (a fresh database, dropped
 * afterwards), 1,000 tasks created through all three over HTTP, one instance killed with SIGKILL
 * while they run. Every task reaches exactly one terminal state with its own result; the store's
 * ledger (written in the same statement as each terminal commit) holds exactly one row per task;
 * a listen stream on instance A receives a list change published on B and the status of a task
 * that runs elsewhere. Loopback only, bounded (the test fails past 2 minutes).
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createTask, listen, rpc, type Server, settle, start } from "../support/TaskServers.ts"

const admin = process.env["SNODO_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const database = `snodo_many_${randomBytes(6).toString("hex")}`
const target = (() => {
  const url = new URL(admin)
  url.pathname = `/${database}`
  return url.toString()
})()

/** Runs statements on a database of its own one-connection pool. */
const sql = <A>(url: string, statement: (pg: PgClient.PgClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(PgClient.make({ url: Redacted.make(url), maxConnections: 1 }), statement)).pipe(
    Effect.provide(Reactivity.layer)
  ))

const servers: Array<Server> = []
beforeAll(() => sql(admin, (pg) => pg.unsafe(`CREATE DATABASE ${database}`)), 30_000)
afterAll(async () => {
  await Promise.all(servers.map((server) => server.kill9()))
  await sql(admin, (pg) => pg.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`))
}, 30_000)

const instance = () =>
  start("test/support/TasksInstanceMain.ts", ["--tasks", target]).then((server) => {
    servers.push(server)
    return server
  })

const count = 1_000

describe("three instances on one PostgreSQL, one killed mid-run", () => {
  it("every task is terminal once, its result committed once; listen streams cross instances", async () => {
    const started = Date.now()
    // All three start (and migrate) at once.
    const [a, b, c] = await Promise.all([instance(), instance(), instance()])
    const all = [a!, b!, c!]

    const changes = await listen(a!.url, { toolsListChanged: true })
    const labels = new Map<string, string>()
    const pending = Array.from({ length: count }, (_, i) => i)
    const create = async () => {
      for (let i = pending.shift(); i !== undefined; i = pending.shift()) {
        const label = `job-${i}`
        const task = await createTask(all[i % 3]!.url, "slow_compute", { seconds: 1, label })
        labels.set(task.taskId, label)
      }
    }
    await Promise.all(Array.from({ length: 24 }, create))
    expect(labels.size).toBe(count)
    const createdAt = Date.now()

    // A task of B's, followed from A.
    const followed = await createTask(b!.url, "slow_compute", { seconds: 2, label: "followed" })
    const statuses = await listen(a!.url, { taskIds: [followed.taskId] })
    expect(statuses.notifications()[0]).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { taskIds: [followed.taskId] } }
    })

    // C dies with work in hand.
    await c!.kill9()

    const published = await rpc(b!.url, "tools/call", { name: "test_trigger_tool_change", arguments: {} })
    expect(published["result"]).toMatchObject({ resultType: "complete" })
    await changes.waitFor((frame) => frame["method"] === "notifications/tools/list_changed", 10_000)

    const killedAt = Date.now()
    const done = await settle([a!.url, b!.url], [...labels.keys(), followed.taskId], 90_000)
    for (const [taskId, label] of labels) {
      const task = done.get(taskId)!
      expect(task.status).toBe("completed")
      expect(task.result?.content[0]?.text).toBe(`Computed ${label} after 1s`)
    }
    const completion = await statuses.waitFor((frame) =>
      frame["method"] === "notifications/tasks" && (frame["params"] as Record<string, unknown>)["status"] === "completed", 10_000)
    expect(completion["params"]).toMatchObject({ taskId: followed.taskId, result: { content: [{ text: "Computed followed after 2s" }] } })
    changes.close()
    statuses.close()

    // The ledger: one committed outcome per task, the generation that holds it, nothing else.
    const ledger = await sql(target, (pg) =>
      pg<{ readonly task_id: string; readonly commits: bigint; readonly generation: bigint; readonly current: bigint }>`
SELECT l.task_id, count(*) AS commits, max(l.generation) AS generation, max(t.generation) AS current
FROM snodo_task_ledger l JOIN snodo_tasks t ON t.task_id = l.task_id GROUP BY l.task_id`)
    expect(ledger).toHaveLength(count + 1)
    for (const row of ledger) {
      expect(row.commits).toBe(1n)
      expect(row.generation).toBe(row.current)
    }
    const recovered = await sql(target, (pg) => pg<{ readonly n: bigint }>`SELECT count(*) AS n FROM snodo_tasks WHERE attempt > 1`)
    // C held tasks when it died: they ran again elsewhere (at least once), and still committed once.
    expect(recovered[0]!.n).toBeGreaterThan(0n)
    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`
    process.stderr.write(`many instances: ${count} tasks over 3 instances (one killed), ${recovered[0]!.n} recovered; ` +
      `created in ${s(createdAt - started)}, killed at ${s(killedAt - started)}, all terminal at ${s(Date.now() - started)}\n`)
    await Promise.all([a!.stop(), b!.stop()])
  }, 120_000)
})
