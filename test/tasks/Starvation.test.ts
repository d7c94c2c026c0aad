/**
 * Issue 29, defect 1: tasks waiting for their client must not starve everyone else, and the
 * runner's places are fair across principals.
 *
 * - The everything server over HTTP (a child process, tasks in memory, 32 runner places by
 *   default): 33 `confirm_delete` tasks are never answered (the attack: one principal, or
 *   anonymous callers), then a `slow_compute` of 0 s is created. It completes at once; on d04b984
 *   it stayed `working` (each parked task held a place, for up to the 1 h maximum run).
 * - A tasks server over a real HTTP listener with callers named by `x-test-user` and 2 places:
 *   alice queues 6 one-second jobs, then bob one short job. Bob's job runs at the first free place,
 *   not after alice's backlog.
 */
import { afterAll, describe, expect, it } from "vitest"
import { serveTasksHttp } from "../support/TaskServer.ts"
import { createTask, getTask, post, type Server, settle, sleep, start, terminal } from "../support/TaskServers.ts"

/** A client that can answer elicitations and negotiated the Tasks extension. */
const eliciting = { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } }

const servers: Array<Server> = []
const disposers: Array<() => Promise<void>> = []
afterAll(async () => {
  await Promise.all(servers.map((server) => server.kill9()))
  await Promise.all(disposers.map((dispose) => dispose()))
})

describe("parked tasks and fair places", () => {
  it("33 unanswered confirm_delete tasks do not keep a quick task from running", async () => {
    const server = await start("examples/everything/main.mjs", ["--tasks", "memory"])
    servers.push(server)
    const parked: Array<{ readonly taskId: string }> = []
    for (let i = 0; i < 33; i++) {
      const exchange = await post(server.url, "tools/call", { name: "confirm_delete", arguments: { filename: `file-${i}.txt` } }, {}, eliciting)
      parked.push(exchange.frame["result"] as { readonly taskId: string })
    }
    // Every one of them is waiting for its client.
    const waiting = await settleOn(server.url, parked.map((task) => task.taskId), "input_required", 10_000)
    // (On d04b984 only 32 get there: the 33rd waits for a place.)
    expect(waiting).toBeGreaterThanOrEqual(32)

    const started = Date.now()
    const quick = await createTask(server.url, "slow_compute", { seconds: 0, label: "quick" })
    const done = await settle([server.url], [quick.taskId], 10_000).catch(() => new Map())
    const tookMs = Date.now() - started
    const status = done.get(quick.taskId)?.status ?? (await getTask(server.url, quick.taskId)).status
    process.stderr.write(`starvation: ${waiting} parked; a quick task is ${status} after ${tookMs} ms\n`)
    expect(waiting).toBe(33)
    expect(done.get(quick.taskId)).toMatchObject({ status: "completed", result: { content: [{ text: "Computed quick after 0s" }] } })
    expect(tookMs).toBeLessThan(5_000)

    // And the parked tasks still finish once answered: each takes a place again.
    const first = parked[0]!
    const answered = await post(server.url, "tasks/update", {
      taskId: first.taskId,
      inputResponses: { confirm_delete: { action: "accept", content: { confirm: true } } }
    }, {}, eliciting)
    expect(answered.frame["result"]).toMatchObject({ resultType: "complete" })
    expect((await settle([server.url], [first.taskId], 10_000)).get(first.taskId)?.result?.content[0]?.text).toBe("Deleted file-0.txt")
  }, 60_000)

  it("a second principal's job runs at the first free place, ahead of the first principal's backlog", async () => {
    const server = await serveTasksHttp({ tasks: { runner: { maxRunning: 2, claimIntervalMs: 200 } } })
    disposers.push(server.dispose)
    const as = (user: string) => ({ "x-test-user": user })
    const created = async (user: string, ms: number) => {
      const exchange = await post(server.url, "tools/call", { name: "job", arguments: { ms } }, as(user))
      const result = exchange.frame["result"] as { readonly taskId: string } | undefined
      if (result === undefined) throw new Error(JSON.stringify(exchange.frame))
      return result.taskId
    }
    const started = Date.now()
    const backlog: Array<string> = []
    for (let i = 0; i < 6; i++) backlog.push(await created("alice", 1_000))
    const bobs = await created("bob", 50)
    let bobDoneMs: number | undefined
    const finished = new Map<string, number>()
    while (finished.size < 7 && Date.now() - started < 20_000) {
      for (const [id, user] of [...backlog.map((taskId) => [taskId, "alice"] as const), [bobs, "bob"] as const]) {
        if (finished.has(id)) continue
        const task = (await post(server.url, "tasks/get", { taskId: id }, as(user))).frame["result"] as { readonly status: string }
        if (terminal(task.status)) finished.set(id, Date.now() - started)
      }
      await sleep(50)
    }
    bobDoneMs = finished.get(bobs)
    const aliceDone = backlog.map((id) => finished.get(id) ?? Infinity).toSorted((a, b) => a - b)
    process.stderr.write(`fairness: bob's job done at ${bobDoneMs} ms; alice's at ${aliceDone.join(", ")} ms\n`)
    expect(bobDoneMs).toBeDefined()
    // Two places: alice's first two run for a second, then bob's job takes the next free place,
    // before alice's third round (at about 3 s).
    expect(bobDoneMs!).toBeLessThan(aliceDone[4]!)
    expect(bobDoneMs!).toBeLessThan(2_500)
  }, 60_000)

  it("past maxParked a parking task gives its run up, and runs again from the top once answered", async () => {
    const server = await serveTasksHttp({ tasks: { runner: { maxParked: 1, claimIntervalMs: 200 } } })
    disposers.push(server.dispose)
    const as = { "x-test-user": "alice" }
    const ids: Array<string> = []
    for (let i = 0; i < 3; i++) {
      const exchange = await post(server.url, "tools/call", { name: "two_inputs", arguments: {} }, as, eliciting)
      ids.push((exchange.frame["result"] as { readonly taskId: string }).taskId)
    }
    const statusOf = async (taskId: string) =>
      ((await post(server.url, "tasks/get", { taskId }, as, eliciting)).frame["result"] as { readonly status: string; readonly result?: unknown })
    const deadline = Date.now() + 10_000
    while ((await Promise.all(ids.map(statusOf))).some((task) => task.status !== "input_required") && Date.now() < deadline) await sleep(50)
    for (const [index, taskId] of ids.entries()) {
      await post(server.url, "tasks/update", {
        taskId,
        inputResponses: {
          first: { action: "accept", content: { choice: `a${index}` } },
          second: { action: "accept", content: { choice: `b${index}` } }
        }
      }, as, eliciting)
    }
    const results: Array<unknown> = []
    for (const taskId of ids) {
      let task = await statusOf(taskId)
      while (task.status !== "completed" && Date.now() < deadline + 10_000) {
        await sleep(50)
        task = await statusOf(taskId)
      }
      results.push(task.result)
    }
    for (const [index, result] of results.entries()) {
      expect(result).toMatchObject({ content: [{ type: "text", text: `first=a${index} second=b${index}` }] })
    }
    // One run was kept waiting; the two parked past it gave their runs up and ran again once answered.
    process.stderr.write(`maxParked: 3 tasks parked at a limit of 1: ${server.counters.asked} runs\n`)
    expect(server.counters.asked).toBe(5)
  }, 60_000)
})

/** Polls until every task has `status`; how many do. */
const settleOn = async (url: string, taskIds: ReadonlyArray<string>, status: string, timeoutMs: number): Promise<number> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const statuses = await Promise.all(taskIds.map((id) => getTask(url, id).then((task) => task.status)))
    const count = statuses.filter((s) => s === status).length
    if (count === taskIds.length || Date.now() > deadline) return count
    await sleep(100)
  }
}
