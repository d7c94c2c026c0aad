/**
 * Crash test on the SQLite store: the everything server on a file, tasks created over HTTP, the
 * server killed with SIGKILL while they run, and started again on the same file. Every task then
 * reaches a terminal state exactly once: the ones finished before the kill keep their result
 * untouched (not lost, not run again), the ones cut off are recovered once their lease runs out
 * and run again to completion, and none ever changes after it became terminal.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { afterAll, describe, expect, it } from "vitest"
import { createTask, getTask, type Server, settle, sleep, start, terminal, type WireTask } from "../support/TaskServers.ts"

const dir = mkdtempSync(join(tmpdir(), "snodo-crash-"))
const file = join(dir, "tasks.sqlite")
const servers: Array<Server> = []
afterAll(async () => {
  await Promise.all(servers.map((server) => server.kill9()))
  rmSync(dir, { recursive: true, force: true })
})

const everything = (args: ReadonlyArray<string> = []) =>
  start("examples/everything/main.mjs", ["--tasks", `sqlite:${file}`, "--tasks-lease-ms", "1000", ...args]).then((server) => {
    servers.push(server)
    return server
  })

describe("SQLite store: a server killed mid-run", () => {
  it("every task reaches one terminal state after a restart on the same file; no result is lost", async () => {
    const first = await everything()
    const quick: Array<WireTask> = []
    const slow: Array<WireTask> = []
    for (let i = 0; i < 10; i++) quick.push(await createTask(first.url, "slow_compute", { seconds: 0, label: `quick-${i}` }))
    for (let i = 0; i < 20; i++) slow.push(await createTask(first.url, "slow_compute", { seconds: 1.5, label: `slow-${i}` }))
    const before = await settle([first.url], quick.map((task) => task.taskId), 10_000)
    for (const task of slow) expect((await getTask(first.url, task.taskId)).status).toBe("working")
    await first.kill9()

    const second = await everything()
    const after = await settle([second.url], [...quick, ...slow].map((task) => task.taskId), 30_000)
    for (const [index, task] of quick.entries()) {
      // Finished before the kill: the very same answer, never recomputed.
      expect(after.get(task.taskId)).toEqual(before.get(task.taskId))
      expect(after.get(task.taskId)?.result?.content[0]?.text).toBe(`Computed quick-${index} after 0s`)
    }
    for (const [index, task] of slow.entries()) {
      expect(after.get(task.taskId)).toMatchObject({ status: "completed" })
      expect(after.get(task.taskId)?.result?.content[0]?.text).toBe(`Computed slow-${index} after 1.5s`)
    }
    // Terminal is forever: a while later every task reads the same.
    await sleep(1_500)
    for (const [taskId, task] of after) expect(await getTask(second.url, taskId)).toEqual(task)
    await second.stop()

    // The file itself: one row per task, each completed, the slow ones run twice (cut off, then recovered), the quick ones once.
    const db = new DatabaseSync(file, { readOnly: true })
    const rows = db.prepare("SELECT task_id, status, attempt, lease_owner FROM snodo_tasks").all() as unknown as ReadonlyArray<{
      readonly task_id: string
      readonly status: string
      readonly attempt: number
      readonly lease_owner: string | null
    }>
    db.close()
    const byId = new Map(rows.map((row) => [row.task_id, row]))
    expect(rows).toHaveLength(30)
    for (const task of quick) expect(byId.get(task.taskId)).toMatchObject({ status: "completed", attempt: 1, lease_owner: null })
    for (const task of slow) expect(byId.get(task.taskId)).toMatchObject({ status: "completed", attempt: 2, lease_owner: null })
    expect([...after.values()].every((task) => terminal(task.status))).toBe(true)
  }, 90_000)
})
