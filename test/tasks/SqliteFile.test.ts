/**
 * Issue 29, defect 8: the SQLite store refuses a file it cannot serve, at start, and notices the
 * file vanishing while it runs. The everything server runs as a child process on the file.
 *
 * - A file with corrupt pages: the server does not start, and says the file is corrupt (on d04b984
 *   it started and answered every task call 500).
 * - A migrated file the server's user cannot write (it runs as `nobody`, the file is root's,
 *   0444): the server does not start, and says the file does not take writes (on d04b984 it
 *   started, and every create failed).
 * - A read-only file in a folder the server's user cannot write (issue 38): the server does not
 *   start, with `SqliteFileUnusable` naming the file (before: a raw `SqlError` "Failed to
 *   configure the SQLite database", from `PRAGMA journal_mode = WAL`, naming nothing).
 * - The file deleted while the server runs: a create is refused as retryable (503), not
 *   acknowledged into a file that is gone (on d04b984 it was acknowledged, and lost at the next
 *   start).
 */
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs"
import { execFileSync } from "node:child_process"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { createTask, post, type Server, start } from "../support/TaskServers.ts"

const dir = mkdtempSync(join(tmpdir(), "snodo-sqlite-file-"))
chmodSync(dir, 0o777)
const servers: Array<Server> = []
afterAll(async () => {
  await Promise.all(servers.map((server) => server.kill9()))
  rmSync(dir, { recursive: true, force: true })
})

const everything = (file: string, user?: { readonly uid: number; readonly gid: number }) =>
  start("examples/everything/main.mjs", ["--tasks", `sqlite:${file}`], {}, user).then((server) => {
    servers.push(server)
    return server
  })

/** A migrated file holding a few tasks, closed cleanly (no WAL left beside it); the last task's id. */
const prepared = async (name: string): Promise<{ readonly file: string; readonly last: string }> => {
  const file = join(dir, name)
  const server = await everything(file)
  let last = ""
  for (let i = 0; i < 20; i++) last = (await createTask(server.url, "slow_compute", { seconds: 0, label: "x".repeat(2_000) })).taskId
  await server.stop()
  return { file, last }
}

/** What the server says when it does not start (or that it started). */
const outcome = (file: string, user?: { readonly uid: number; readonly gid: number }) =>
  everything(file, user).then(
    (server) => ({ started: true as const, server, stderr: server.stderr() }),
    (error: Error) => ({ started: false as const, server: undefined, stderr: error.message })
  )

describe("the SQLite file under the store", () => {
  it("a file with corrupt pages is refused at start, with a clear error", async () => {
    const { file, last } = await prepared("corrupt.sqlite")
    const size = statSync(file).size
    const fd = openSync(file, "r+")
    // Garbage over the last four pages: rows of tasks, written after the schema (which stays readable).
    for (let at = Math.max(4096, size - 4 * 4096); at < size; at += 4096) writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, at)
    closeSync(fd)
    const result = await outcome(file)
    let call = "-"
    if (result.started) call = String((await post(result.server.url, "tasks/get", { taskId: last })).status)
    process.stderr.write(`corrupt: started=${result.started} (a task call: HTTP ${call}); ${/is corrupt[^\n]*/.exec(result.stderr)?.[0] ?? "no file error"}\n`)
    expect(result.started).toBe(false)
    expect(result.stderr).toContain("SqliteFileUnusable")
    expect(result.stderr).toMatch(/is corrupt/)
  }, 60_000)

  it("a migrated file the server cannot write is refused at start, with a clear error", async () => {
    const { file } = await prepared("readonly.sqlite")
    chmodSync(file, 0o444)
    const id = (flag: string) => Number(execFileSync("id", [flag, "nobody"], { encoding: "utf8" }).trim())
    const result = await outcome(file, { uid: id("-u"), gid: id("-g") })
    let call = "-"
    if (result.started) {
      const created = await post(result.server.url, "tools/call", { name: "slow_compute", arguments: { seconds: 0 } })
      call = `${created.status} ${JSON.stringify(created.frame["error"] ?? created.frame["result"])}`
    }
    process.stderr.write(`readonly: started=${result.started} (a create: ${call}); ${/does not take writes[^\n]*/.exec(result.stderr)?.[0] ?? "no file error"}\n`)
    expect(result.started).toBe(false)
    expect(result.stderr).toContain("does not take writes")
  }, 60_000)

  it("a read-only file in a folder the server cannot write is refused at start as SqliteFileUnusable, naming the file", async () => {
    const { file: made } = await prepared("sealed.sqlite")
    // The file moves into a folder of its own, then both are made read-only for everyone.
    const folder = join(dir, "sealed")
    mkdirSync(folder)
    const file = join(folder, "sealed.sqlite")
    renameSync(made, file)
    chmodSync(file, 0o444)
    chmodSync(folder, 0o555)
    const id = (flag: string) => Number(execFileSync("id", [flag, "nobody"], { encoding: "utf8" }).trim())
    const result = await outcome(file, { uid: id("-u"), gid: id("-g") })
    process.stderr.write(`sealed: started=${result.started}; ${/SqliteFileUnusable[^\n]*|SqlError[^\n]*/.exec(result.stderr)?.[0] ?? "no error"}\n`)
    expect(result.started).toBe(false)
    // The error logged is the typed one (the SqlError is only its cause).
    expect(/ERROR[^\n]*/.exec(result.stderr)?.[0]).toContain(`SqliteFileUnusable: The SQLite task store ${file} does not take writes`)
  }, 60_000)

  it("a file deleted while the server runs: creates are refused as retryable, not acknowledged into nothing", async () => {
    const file = join(dir, "deleted.sqlite")
    const server = await everything(file)
    await createTask(server.url, "slow_compute", { seconds: 0 })
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${file}${suffix}`, { force: true })
    const created = await post(server.url, "tools/call", { name: "slow_compute", arguments: { seconds: 0 } })
    process.stderr.write(`deleted: a create after the file was deleted: HTTP ${created.status} ${JSON.stringify(created.frame["error"] ?? created.frame["result"])}\n`)
    expect(created.status).toBe(503)
    expect(created.frame["error"]).toMatchObject({ code: -32603, message: "Server busy: the task store is unavailable", data: { retryable: true } })
    expect(server.stderr()).toContain("was deleted or replaced")
  }, 60_000)
})
