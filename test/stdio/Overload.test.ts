/**
 * stdio under abuse, on a real child process: a client that floods requests while not reading
 * the answers cannot grow the server's memory without bound (stdin stops being read), and every
 * way the process ends says why on stderr, never on stdout.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { requestLine, spawnServer } from "../support/StdioProcess.ts"

const listenArgs = (...extra: Array<string>) => ["test/support/ListenServerMain.ts", ...extra]

/** The resident set of a process, in MiB (Linux). */
const rssMiB = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kib = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1])
  return kib / 1024
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("stdio read backpressure", () => {
  it("100,000 echo calls with stdout not read: stdin is paused, RSS stays bounded, and serving resumes", async () => {
    const server = spawnServer(listenArgs("--write-timeout", "60000"))
    const pid = server.child.pid!
    server.write(requestLine("warm", "tools/list"))
    await server.read(1)
    const before = rssMiB(pid)
    server.child.stdout.pause()
    const count = 100_000
    const lines: Array<string> = []
    for (let id = 1; id <= count; id++) lines.push(requestLine(id, "tools/call", { name: "echo", arguments: { text: "x" } }))
    server.write(lines.join(""))
    let peak = before
    for (let i = 0; i < 25; i++) {
      await sleep(100)
      peak = Math.max(peak, rssMiB(pid))
    }
    // The server stopped reading: most of what was written still waits on our side of the pipe.
    const unread = server.child.stdin.writableLength
    console.info(`stdio flood: RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB; ${(unread / 1024 / 1024).toFixed(1)} MiB left unread`)
    expect(unread).toBeGreaterThan(1024 * 1024)
    expect(peak - before).toBeLessThan(120)
    // Reading again, the server drains its answers and reads the rest: the last one arrives.
    server.child.stdout.resume()
    const deadline = Date.now() + 60_000
    while (server.lines().length < count + 1 && Date.now() < deadline) await sleep(50)
    const answered = server.lines().slice(1)
    expect(answered.length).toBe(count)
    // In order, every one a result (the ids are read without parsing 150 MB of JSON).
    expect(answered.every((line, index) => line.startsWith(`{"jsonrpc":"2.0","id":${index + 1},"result":`))).toBe(true)
    server.child.stdin.end()
    expect((await server.exited).code).toBe(0)
  }, 90_000)
})
