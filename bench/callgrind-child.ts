/**
 * A server under `valgrind --tool=callgrind --separate-threads=yes`, for the instruction-count
 * scripts (`bench/callgrind.ts` over HTTP, `bench/callgrind-stdio.ts` over stdio): started from
 * the packages' build (the checkout's `@snodo/source` condition dropped, production mode, the
 * everything server unbundled), counts zeroed before the measured requests and dumped after them,
 * per thread.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

export interface Counted {
  readonly child: ChildProcessWithoutNullStreams
  /** The last 8 KiB the server wrote to stderr. */
  readonly stderr: () => string
  /** Zeroes the counts (`callgrind_control -z`). */
  readonly zero: () => void
  /**
   * Dumps the counts since `zero` (`callgrind_control -d`): the main thread's instructions, every
   * thread's, and the main thread's dump file (removed by `stop`).
   */
  readonly dump: () => Promise<{ readonly main: number; readonly all: number; readonly mainFile: string }>
  /** Stops the server and removes its dumps. */
  readonly stop: () => Promise<void>
}

const summary = (file: string): number => {
  const text = Fs.readFileSync(file, "utf8")
  const match = /^summary: (\d+)$/m.exec(text) ?? /^totals: (\d+)$/m.exec(text)
  return match === null ? 0 : Number(match[1])
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Starts `script` with `args` under callgrind; `nodeFlags` are added to its `NODE_OPTIONS`
 * (`--perf-basic-prof`, for a split by function).
 */
export const start = (script: string, args: ReadonlyArray<string>, nodeFlags: ReadonlyArray<string> = []): Counted => {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "snodo-callgrind-"))
  const nodeOptions = [
    ...(process.env["NODE_OPTIONS"] ?? "").split(/\s+/).filter((option) => option !== "" && option !== "--conditions=@snodo/source"),
    ...nodeFlags
  ]
  const child = spawn("valgrind", [
    "--tool=callgrind",
    "--separate-threads=yes",
    `--callgrind-out-file=${dir}/out.%p`,
    process.execPath,
    script,
    ...args
  ], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: nodeOptions.join(" "), NODE_ENV: "production", SNODO_EVERYTHING_BUNDLE: "0" }
  })
  let stderr = ""
  child.stderr.setEncoding("utf8")
  child.stderr.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-8192)
  })
  const control = (flag: string): void => {
    const done = spawnSync("callgrind_control", [flag, String(child.pid)], { encoding: "utf8" })
    if (done.status !== 0) throw new Error(`callgrind_control ${flag}: ${done.stderr}`)
  }
  let before = new Set<string>()
  const dumpsSince = () => Fs.readdirSync(dir).filter((name) => !before.has(name) && /\.\d+-\d+$/.test(name))
  return {
    child,
    stderr: () => stderr,
    zero: () => {
      before = new Set(Fs.readdirSync(dir))
      control("-z")
    },
    dump: async () => {
      control("-d")
      // The dump is written asynchronously, by the server's own threads.
      for (let tries = 0; tries < 200 && dumpsSince().length === 0; tries++) await sleep(250)
      await sleep(1000)
      const dumped = dumpsSince().toSorted()
      const main = dumped.find((name) => name.endsWith("-01"))
      if (main === undefined) throw new Error(`no dump of the main thread in ${dir}: ${dumped.join(", ")}`)
      return {
        main: summary(Path.join(dir, main)),
        all: dumped.reduce((sum, name) => sum + summary(Path.join(dir, name)), 0),
        mainFile: Path.join(dir, main)
      }
    },
    stop: async () => {
      child.stdin.end()
      child.kill("SIGINT")
      await sleep(500)
      if (child.exitCode === null) child.kill("SIGKILL")
      Fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}
