/**
 * Issue 29, defect 4: one principal cannot fill the task store.
 *
 * - A tasks server over a real HTTP listener (callers named by `x-test-user`), 20 tasks stored at
 *   most, 5 per principal, a 1 h time to live: alice's instant jobs are refused at her quota with
 *   the time her first task expires as `Retry-After` (about 3,600 s), and bob still gets his task.
 *   On d04b984 alice filled the store and bob was refused with `Retry-After: 1` for the hour.
 * - The everything server on an SQLite file (a child process, default limits): 160 tasks with
 *   250 KB arguments (whose results repeat them) from one caller. The byte budget of a principal
 *   (32 MiB) refuses the rest, and the file stays near it; on d04b984 all 160 were stored.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { serveTasksHttp } from "../support/TaskServer.ts"
import { post, type Server, start } from "../support/TaskServers.ts"

const dir = mkdtempSync(join(tmpdir(), "snodo-quota-"))
const servers: Array<Server> = []
const disposers: Array<() => Promise<void>> = []
afterAll(async () => {
  await Promise.all(servers.map((server) => server.kill9()))
  await Promise.all(disposers.map((dispose) => dispose()))
  rmSync(dir, { recursive: true, force: true })
})

const MiB = 1024 * 1024

describe("stored quotas", () => {
  it("one principal's instant tasks stop at its own quota, with an honest Retry-After; another principal is served", async () => {
    const server = await serveTasksHttp({ ttlMs: 3_600_000, tasks: { maxStored: 20, maxStoredPerPrincipal: 5 } })
    disposers.push(server.dispose)
    const call = (user: string) => post(server.url, "tools/call", { name: "job", arguments: { ms: 0 } }, { "x-test-user": user })
    const refusals: Array<{ readonly status: number; readonly retryAfter: string | undefined; readonly error: unknown }> = []
    let accepted = 0
    for (let i = 0; i < 20; i++) {
      const exchange = await call("alice")
      if (exchange.status === 200 && exchange.frame["result"] !== undefined) accepted++
      else refusals.push({ status: exchange.status, retryAfter: exchange.headers["retry-after"] as string | undefined, error: exchange.frame["error"] })
    }
    const bob = await call("bob")
    process.stderr.write(
      `quota: alice ${accepted} stored, ${refusals.length} refused (first: ${refusals[0]?.status} Retry-After ${refusals[0]?.retryAfter}); ` +
        `bob: HTTP ${bob.status} Retry-After ${bob.headers["retry-after"] ?? "-"}\n`
    )
    expect(bob.status).toBe(200)
    expect(bob.frame["result"]).toMatchObject({ resultType: "task" })
    expect(accepted).toBe(5)
    expect(refusals[0]).toMatchObject({
      status: 503,
      error: { code: -32603, data: { retryable: true, limit: 5 } }
    })
    // The first of alice's tasks expires in about an hour: no room for her before then.
    expect(Number(refusals[0]!.retryAfter)).toBeGreaterThan(3_500)
    expect(Number(refusals[0]!.retryAfter)).toBeLessThanOrEqual(3_600)
  }, 60_000)

  it("a principal's tasks with 250 KB arguments stop at its byte budget; the SQLite file stays near it", async () => {
    const file = join(dir, "tasks.sqlite")
    const server = await start("examples/everything/main.mjs", ["--tasks", `sqlite:${file}`])
    servers.push(server)
    const label = "x".repeat(250_000)
    let accepted = 0
    const refused: Array<{ readonly status: number; readonly retryAfter: unknown; readonly message: unknown }> = []
    for (let i = 0; i < 160; i++) {
      const exchange = await post(server.url, "tools/call", { name: "slow_compute", arguments: { seconds: 0, label } })
      if (exchange.frame["result"] !== undefined) accepted++
      else {
        refused.push({
          status: exchange.status,
          retryAfter: exchange.headers["retry-after"],
          message: (exchange.frame["error"] as { readonly message?: unknown } | undefined)?.message
        })
      }
    }
    await server.stop()
    const size = (path: string) => {
      try {
        return statSync(path).size
      } catch {
        return 0
      }
    }
    const bytes = size(file) + size(`${file}-wal`)
    process.stderr.write(
      `bytes: ${accepted} of 160 stored, ${refused.length} refused (${refused[0]?.status} ${String(refused[0]?.message)}, ` +
        `Retry-After ${String(refused[0]?.retryAfter)}); file ${(bytes / MiB).toFixed(1)} MiB\n`
    )
    expect(refused.length).toBeGreaterThan(0)
    expect(refused[0]).toMatchObject({ status: 503, message: "Server busy: too many bytes of tasks stored for this caller" })
    expect(Number(refused[0]!.retryAfter)).toBeGreaterThan(3_000)
    // 32 MiB of budget, with the page overhead of SQLite's text columns.
    expect(bytes).toBeLessThan(48 * MiB)
  }, 120_000)
})
