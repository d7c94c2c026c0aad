/**
 * Instructions a start executes, from spawn to the first `server/discover` answer, counted by
 * valgrind's callgrind: the start-up figure that does not move with the machine's load (see
 * docs/startup.md, "Measured"). Over stdio (the default) or HTTP (`--transport http`).
 *
 * Every peer runs as the start-up scenario runs it (`bench/startup.ts`: the app outside the
 * repository, `node <file>` in it), cold (`NODE_DISABLE_COMPILE_CACHE=1`), under
 * `valgrind --tool=callgrind` with V8 `--single-threaded` (no compiler or GC threads) and
 * `--predictable-gc-schedule` (heap growth and collections not timed by the wall clock, which
 * valgrind and a loaded machine stretch: without it one peer's count moved by up to 30 M from
 * start to start). Over stdio the discover request is written at spawn; over HTTP a TCP connect
 * is tried every 20 ms until the port accepts (a refused connect costs the server nothing), then
 * the request is posted (`PORT` set to a free port). When its answer is read,
 * `callgrind_control -d` dumps the counts and the child is killed. Printed per peer: the median of
 * `--repeat` starts (default 3) of the total, less V8's search for its random hash seed
 * (`detail::sprp`, 6-16 M from start to start), and its ratio to the Effect floor of the same
 * import style and to the official SDK's server.
 *
 *   npx node bench/startup-count.ts [--peers official,floor-modules,snodo-modules] [--transport stdio|http] [--repeat 3] [--parallel 2] [--keep DIR] [--app DIR]
 *
 * Run `npm run build` first: the app is packed from the packages' build. `--keep` leaves the
 * callgrind files in DIR (`callgrind_annotate DIR/<peer>.<n>.out.1`). `--app` counts in an app
 * folder kept from an earlier build of it (a copy of the bench's, edited by hand to try a change
 * without packing and installing again).
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import os from "node:os"
import { join } from "node:path"
import { cleanEnv } from "../test/support/PackedApp.ts"
import { freePort } from "./children.ts"
import { firstAnswer } from "./probe.ts"
import { ensureApp } from "./startup.ts"
import { discoverBody, discoverHeaders } from "./wire.ts"
import { textOption } from "./argv.ts"

const argv = process.argv.slice(2)
const peers = textOption("--peers", "official,floor-modules,snodo-modules,floor-root,snodo-root").split(",")
const repeat = Number(textOption("--repeat", "3"))
const parallel = Number(textOption("--parallel", "2"))
const keep = argv.includes("--keep") ? textOption("--keep", "") : undefined
const appOption = argv.includes("--app") ? textOption("--app", "") : undefined
const transport = textOption("--transport", "stdio")
if (transport !== "stdio" && transport !== "http") throw new Error(`--transport stdio or http, not ${transport}`)
const out = keep ?? mkdtempSync(join(os.tmpdir(), "snodo-startup-count-"))
if (!existsSync(out)) mkdirSync(out, { recursive: true })

/** The count of one start: total and the hash seed's prime search, in instructions. */
interface Count {
  readonly total: number
  readonly seed: number
}

const annotate = (file: string, pattern: RegExp): number => {
  const result = spawnSync("callgrind_annotate", ["--threshold=100", file], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
  const line = result.stdout.split("\n").find((candidate) => pattern.test(candidate))
  return line === undefined ? 0 : Number(line.trim().split(/\s+/)[0]!.replaceAll(",", ""))
}

const countOnce = async (app: string, peer: string, run: number): Promise<Count> => {
  const port = transport === "http" ? await freePort() : 0
  return new Promise((resolve, reject) => {
    const file = join(out, `${peer}.${run}.out`)
    for (const stale of [file, `${file}.1`]) rmSync(stale, { force: true })
    const child = spawn("valgrind", [
      "--tool=callgrind",
      "--dump-instr=no",
      `--callgrind-out-file=${file}`,
      process.execPath,
      "--single-threaded",
      "--predictable-gc-schedule",
      `${peer}-${transport}.mjs`
    ], { cwd: app, env: { ...cleanEnv, NODE_DISABLE_COMPILE_CACHE: "1", PORT: String(port) }, stdio: ["pipe", "pipe", "pipe"] })
    let buffered = ""
    let stderr = ""
    let answered = false
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000)
    })
    const onAnswer = (text: string) => {
      answered = true
      if (!text.includes("\"supportedVersions\"")) {
        child.kill("SIGKILL")
        return reject(new Error(`${peer}: not a discover result: ${text.slice(0, 200)}`))
      }
      const dumped = spawnSync("callgrind_control", ["-d", String(child.pid)], { encoding: "utf8" })
      child.kill("SIGKILL")
      if (dumped.status !== 0 || !existsSync(`${file}.1`)) return reject(new Error(`${peer}: callgrind_control -d failed: ${dumped.stderr}`))
      const summary = /\n(?:summary|totals): (\d+)/.exec(readFileSync(`${file}.1`, "utf8"))
      if (summary === null) return reject(new Error(`${peer}: no totals in ${file}.1`))
      resolve({ total: Number(summary[1]), seed: annotate(`${file}.1`, /detail::sprp/) })
    }
    let exited = false
    child.on("exit", (code) => {
      exited = true
      if (!answered) reject(new Error(`${peer}: exited (${code}) before answering:\n${stderr}`))
    })
    if (transport === "http") {
      // A refused connect costs the server nothing; under valgrind every 20 ms is often enough.
      firstAnswer(`http://127.0.0.1:${port}/mcp`, discoverBody(), discoverHeaders, {
        intervalMs: 20,
        timeoutMs: 300_000,
        postTimeoutMs: 120_000,
        stopped: () => exited ? "exited before answering" : undefined
      }).then((posted) => onAnswer(posted.text), (error: Error) => {
        child.kill("SIGKILL")
        reject(new Error(`${peer}: ${error.message}:\n${stderr}`))
      })
      return
    }
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk
      if (answered || !buffered.includes("\n")) return
      onAnswer(buffered.slice(0, buffered.indexOf("\n")))
    })
    child.stdin.write(`${discoverBody()}\n`)
  })
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = values.toSorted((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const app = appOption ?? await ensureApp((line) => console.error(line))
const jobs = peers.flatMap((peer) => Array.from({ length: repeat }, (_, run) => ({ peer, run })))
const counts = new Map<string, Array<number>>()
let next = 0
const worker = async () => {
  while (next < jobs.length) {
    const { peer, run } = jobs[next++]!
    const count = await countOnce(app, peer, run)
    console.error(`   ${peer} #${run + 1}: ${(count.total / 1e6).toFixed(1)} M (hash seed search ${(count.seed / 1e6).toFixed(1)} M)`)
    counts.set(peer, [...counts.get(peer) ?? [], count.total - count.seed])
  }
}
await Promise.all(Array.from({ length: Math.max(1, parallel) }, worker))

const medianOf = (peer: string): number | undefined => {
  const values = counts.get(peer)
  return values === undefined ? undefined : median(values)
}
const official = medianOf("official")
console.log(`| peer (${transport}, cold, to the first discover answer) | instructions (median, M) | runs (M) | ÷ Effect floor, same style | ÷ official |`)
console.log("|---|---:|---|---:|---:|")
for (const peer of peers) {
  const value = medianOf(peer)
  if (value === undefined) continue
  const style = peer.endsWith("-root") ? "root" : "modules"
  const floor = peer.startsWith("snodo-") ? medianOf(`floor-${style}`) : undefined
  const runs = counts.get(peer)!.map((count) => (count / 1e6).toFixed(1)).join(", ")
  console.log(
    `| ${peer} | ${(value / 1e6).toFixed(1)} | ${runs} | ${floor === undefined ? "" : (value / floor).toFixed(3)} | ${
      official === undefined ? "" : (value / official).toFixed(3)
    } |`
  )
}
if (keep === undefined) rmSync(out, { recursive: true, force: true })
