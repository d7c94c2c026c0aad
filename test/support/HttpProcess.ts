/**
 * The HTTP test server (`HttpServerMain.ts`) as a real child process: its URL, its resident
 * memory, and a way to stop it.
 */
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"

export interface HttpProcess {
  readonly pid: number
  readonly port: number
  readonly url: string
  /** Resident memory of the server process, in MiB (Linux `/proc`). */
  readonly rssMiB: () => number
  /** Resident memory right after a full garbage collection in the server, in MiB. */
  readonly rssAfterGc: () => Promise<number>
  /**
   * What the server's objects hold right after a full garbage collection, in MiB: its JavaScript
   * heap in use and its Buffers (external memory). Unlike the RSS, it falls when memory is freed.
   */
  readonly heldAfterGc: () => Promise<number>
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

/** The resident set of a process, in MiB (Linux). */
export const rssMiB = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024
}

/** Starts the server with this configuration and resolves once it listens. */
export const spawnHttpServer = (config: Record<string, unknown> = {}): Promise<HttpProcess> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", "test/support/HttpServerMain.ts", JSON.stringify(config)], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stderr = ""
    let stdout = ""
    child.stderr.setEncoding("utf8")
    child.stderr.on("data", (chunk: string) => (stderr += chunk))
    child.stdout.setEncoding("utf8")
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    const timer = setTimeout(() => reject(new Error(`server did not start; stderr: ${stderr}`)), 15_000)
    const rssWaiters: Array<(rss: number) => void> = []
    const heldWaiters: Array<(held: number) => void> = []
    let started = false
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk
      for (const line of stdout.split("\n").slice(0, -1)) {
        const rss = /^rss ([\d.]+)$/.exec(line)
        if (rss !== null) rssWaiters.shift()?.(Number(rss[1]))
        const held = /^held ([\d.]+)$/.exec(line)
        if (held !== null) heldWaiters.shift()?.(Number(held[1]))
      }
      stdout = stdout.slice(stdout.lastIndexOf("\n") + 1)
      if (started) return
      const match = /listening (\d+)/.exec(chunk)
      if (match === null) return
      started = true
      clearTimeout(timer)
      const port = Number(match[1])
      resolve({
        pid: child.pid!,
        port,
        url: `http://127.0.0.1:${port}/mcp`,
        rssMiB: () => rssMiB(child.pid!),
        rssAfterGc: () =>
          new Promise((done) => {
            rssWaiters.push(done)
            child.kill("SIGUSR2")
          }),
        heldAfterGc: () =>
          new Promise((done) => {
            heldWaiters.push(done)
            child.kill("SIGUSR2")
          }),
        stderr: () => stderr,
        stop: () => {
          child.kill("SIGTERM")
          return exited
        }
      })
    })
  })
