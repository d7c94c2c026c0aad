/**
 * Servers started on one PostgreSQL URL share their tasks and listen streams, as started by users:
 * the everything server's `--tasks postgres://HOST:PORT/DB` (two at once, each migrating at start)
 * and `examples/08-tasks-postgres/demo.ts` (two instances of the reports server and a client).
 * Each runs in a random schema, dropped afterwards.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { Reactivity } from "effect/reactivity"
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { afterAll, describe, expect, it } from "vitest"
import { createTask, getTask, listen, rpc, type Server, settle, start } from "../support/TaskServers.ts"

const admin = process.env["SNODO_TEST_PG_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const schemas: Array<string> = []
const schemaName = () => {
  const schema = `snodo_cli_${randomBytes(6).toString("hex")}`
  schemas.push(schema)
  return schema
}
const servers: Array<Server> = []
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()))
  await Effect.runPromise(Effect.scoped(Effect.flatMap(PgClient.make({ url: Redacted.make(admin), maxConnections: 1 }), (pg) =>
    Effect.forEach(schemas, (schema) => pg.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)))).pipe(Effect.provide(Reactivity.layer)))
}, 30_000)

describe("servers on one PostgreSQL URL", () => {
  it("two everything servers on --tasks postgres://... share tasks and listen streams", async () => {
    const url = new URL(admin)
    // The form users type: no user in the URL (it defaults to postgres), the schema as a parameter.
    const spec = `postgres://${url.host}${url.pathname}?schema=${schemaName()}`
    const [a, b] = await Promise.all([start("examples/everything/main.mjs", ["--tasks", spec]), start("examples/everything/main.mjs", ["--tasks", spec])])
    servers.push(a!, b!)
    expect(a!.stderr()).toContain("snodo everything: tasks on postgres://")

    const changes = await listen(a!.url, { toolsListChanged: true })
    const task = await createTask(a!.url, "slow_compute", { seconds: 0.5, label: "shared" })
    expect(await getTask(b!.url, task.taskId)).toMatchObject({ taskId: task.taskId, status: "working" })
    const done = await settle([b!.url], [task.taskId], 20_000)
    expect(done.get(task.taskId)?.result?.content[0]?.text).toBe("Computed shared after 0.5s")

    const cancelled = await createTask(b!.url, "slow_compute", { seconds: 60, label: "cancelled" })
    expect(await rpc(a!.url, "tasks/cancel", { taskId: cancelled.taskId })).toMatchObject({ result: { resultType: "complete" } })
    // B runs it; the cancel made through A is what B answers at once.
    expect((await settle([b!.url], [cancelled.taskId], 5_000)).get(cancelled.taskId)?.status).toBe("cancelled")

    await rpc(b!.url, "tools/call", { name: "test_trigger_tool_change", arguments: {} })
    expect(await changes.waitFor((frame) => frame["method"] === "notifications/tools/list_changed", 10_000)).toBeDefined()
    changes.close()
  }, 60_000)

  it("examples/08-tasks-postgres/demo.ts: a task created on B is read, followed and cancelled through A", () => {
    const run = spawnSync(process.execPath, [
      "examples/08-tasks-postgres/demo.ts",
      "--url",
      admin,
      "--schema",
      schemaName(),
      "--port-a",
      "0",
      "--port-b",
      "0"
    ], { encoding: "utf8", timeout: 60_000 })
    expect(run.stdout).toMatch(/A: notifications\/tasks: completed: Report "Q3" built by instance B/)
    expect(run.stdout).toMatch(/B: tasks\/cancel acknowledged\nA: tasks\/get \S+: cancelled/)
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0)
  }, 70_000)
})
