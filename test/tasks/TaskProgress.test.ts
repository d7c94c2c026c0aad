/**
 * Issue 29, a rough edge: `Progress.report` inside a task sets the task's `statusMessage`, shown
 * by `tasks/get` (a tasks server over a real HTTP listener). On d04b984 it did nothing.
 */
import { afterAll, describe, expect, it } from "vitest"
import { serveTasksHttp } from "../support/TaskServer.ts"
import { post, sleep } from "../support/TaskServers.ts"

const disposers: Array<() => Promise<void>> = []
afterAll(() => Promise.all(disposers.map((dispose) => dispose())))

describe("progress inside a task", () => {
  it("each Progress.report becomes the task's statusMessage", async () => {
    const server = await serveTasksHttp()
    disposers.push(server.dispose)
    const as = { "x-test-user": "alice" }
    const created = await post(server.url, "tools/call", { name: "steps", arguments: { count: 3, ms: 400 } }, as)
    const taskId = (created.frame["result"] as { readonly taskId: string }).taskId
    const seen: Array<string> = []
    const deadline = Date.now() + 10_000
    for (;;) {
      const task = (await post(server.url, "tasks/get", { taskId }, as)).frame["result"] as { readonly status: string; readonly statusMessage?: string }
      if (task.statusMessage !== undefined && seen.at(-1) !== task.statusMessage) seen.push(task.statusMessage)
      if (task.status === "completed" || Date.now() > deadline) break
      await sleep(50)
    }
    process.stderr.write(`progress: statusMessages seen: ${JSON.stringify(seen)}\n`)
    expect(seen).toContain("step 2 of 3")
    expect(seen.at(-1)).toBe("step 3 of 3")
  }, 30_000)
})
