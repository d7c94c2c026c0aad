/**
 * Every process the bench starts goes through here, so every one of them is killed when the bench
 * ends: normally, on an error, or on SIGINT/SIGTERM/SIGHUP. Also: free loopback ports and RSS.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import net from "node:net"

const live = new Set<ChildProcess>()
/** Processes spawned by others on our behalf (the official client's stdio transport). */
const adopted = new Set<number>()

const killEverything = (): void => {
  for (const child of live) child.kill("SIGKILL")
  for (const pid of adopted) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // already gone
    }
  }
  live.clear()
  adopted.clear()
}

let installed = false
/** Installs the exit hooks once. */
export const installCleanup = (): void => {
  if (installed) return
  installed = true
  process.on("exit", killEverything)
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const) {
    process.on(signal, () => {
      process.stderr.write(`\nbench: ${signal}, stopping every child process\n`)
      killEverything()
      process.exit(code)
    })
  }
  process.on("uncaughtException", (error) => {
    process.stderr.write(`bench: ${error.stack ?? String(error)}\n`)
    killEverything()
    process.exit(1)
  })
  process.on("unhandledRejection", (error) => {
    process.stderr.write(`bench: unhandled rejection: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
    killEverything()
    process.exit(1)
  })
}

/** Registers a pid started by a library, so it is killed with ours. */
export const adopt = (pid: number | undefined): void => {
  if (pid !== undefined) adopted.add(pid)
}

export const release = (pid: number | undefined): void => {
  if (pid !== undefined) adopted.delete(pid)
}

export interface Child {
  readonly process: ChildProcess
  readonly pid: number
  /** The last 4 KiB the child wrote on stderr, for error reports. */
  readonly stderrTail: () => string
  /** Resolves with the exit code (or signal name) once the child is gone. */
  readonly exited: Promise<number | string>
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the child is gone. */
  readonly stop: (graceMs?: number) => Promise<void>
}

/** How a child starts: which of its stdin/stdout are piped, and environment variables on top of ours. */
export interface StartOptions {
  readonly stdin: boolean
  readonly stdout: boolean
  readonly env?: Readonly<Record<string, string>>
  /** The working directory (default: ours, the checkout). */
  readonly cwd?: string
}

/**
 * `NODE_OPTIONS` without the checkout's `@snodo/source` condition (which `.npmrc` adds to every npm
 * script): a server the bench starts imports `@snodo/*` from their build in dist/, as an installed
 * application does (`npm run bench` builds first).
 */
const builtNodeOptions = (): Readonly<Record<string, string>> => {
  const kept = (process.env["NODE_OPTIONS"] ?? "").split(/\s+/).filter((option) => option !== "" && option !== "--conditions=@snodo/source")
  return { NODE_OPTIONS: kept.join(" ") }
}

/** Starts `node script args` on this Node (the project's Node 24), tracked for cleanup. */
export const start = (script: string, args: ReadonlyArray<string>, options: StartOptions): Child => {
  const child = spawn(process.execPath, [script, ...args], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    stdio: [options.stdin ? "pipe" : "ignore", options.stdout ? "pipe" : "ignore", "pipe"],
    // The everything server runs its sources on the build here, not the esbuild bundle
    // `examples/everything/main.mjs` prefers; the start-up rows of the bundle ask for it.
    env: { ...process.env, ...builtNodeOptions(), NODE_ENV: "production", SNODO_EVERYTHING_BUNDLE: "0", ...options.env }
  })
  if (child.pid === undefined) throw new Error(`could not start ${script}`)
  live.add(child)
  let tail = ""
  child.stderr?.setEncoding("utf8")
  child.stderr?.on("data", (chunk: string) => {
    tail = (tail + chunk).slice(-4096)
  })
  const exited = new Promise<number | string>((resolve) => {
    child.on("exit", (code, signal) => {
      live.delete(child)
      resolve(code ?? signal ?? "unknown")
    })
  })
  const stop = async (graceMs = 2000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
    await exited
    clearTimeout(timer)
  }
  return { process: child, pid: child.pid, stderrTail: () => tail, exited, stop }
}

/** A port that was free on loopback a moment ago. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** Resident set size of a process in bytes (Linux `/proc`), or NaN when unreadable. */
export const rss = (pid: number): number => {
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
    return match === null ? Number.NaN : Number(match[1]) * 1024
  } catch {
    return Number.NaN
  }
}

/**
 * CPU time a process has used so far (user + system, all threads) in milliseconds (Linux `/proc`,
 * 10 ms ticks), or NaN when unreadable. CPU per request is far steadier than requests/s on a busy
 * machine: other processes slow a server down but do not make it use more CPU per request.
 */
export const cpuMs = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // Fields after the command name (which may contain spaces) start at the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return Number.NaN
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
