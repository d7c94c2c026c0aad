/**
 * Per-process HTTP load figures, split where `npm run bench`'s CPU per request is one number:
 * user and system CPU, read and write system calls (`/proc/PID/io` `syscr`/`syscw`), and context
 * switches (`/proc/PID/status`), each per answered request, for several fresh server processes of
 * each peer. It is for telling a server process in a "bad state" (more CPU per request than another
 * process of the same build) from a quiet one, and what differs between them.
 *
 *   npx node bench/states.ts [--peers snodo,raw] [--processes 3] [--loads 1:5,16:5,64:5] [--rounds 2] [--node-args "--trace-deopt"] [--trace-dir DIR]
 *
 * Each process gets the bench's sequence: a 1 s warm-up at the first load's connections, then each
 * load (`connections:seconds`) `--rounds` times; peers are interleaved as the bench does it.
 */
import { openSync, readdirSync, readFileSync } from "node:fs"
import { cpus } from "node:os"
import { type ChildProcess, spawn } from "node:child_process"
import { adopt, freePort, installCleanup, release, sleep } from "./children.ts"
import type { LoadResult, LoadSpec } from "./load.ts"
import { firstAnswer } from "./probe.ts"
import { checkEcho, checkList, echoBody, echoHeaders, listBody, listHeaders } from "./wire.ts"
import { textOption } from "./argv.ts"

const peers = textOption("--peers", "snodo,raw").split(",")
const processes = Number(textOption("--processes", "3"))
const rounds = Number(textOption("--rounds", "2"))
const list = textOption("--scenario", "echo") === "list"
const loads = textOption("--loads", list ? "16:5" : "1:5,16:5,64:5").split(",").map((spec) => {
  const [connections, seconds] = spec.split(":").map(Number)
  return { connections: connections!, seconds: seconds! }
})
const nodeArgs = textOption("--node-args", "").split(/\s+/).filter((arg) => arg !== "")
/** Where each server's stdout goes (V8's `--trace-*` output): `DIR/PROCESS-PEER.txt`; default: dropped. */
const traceDir = textOption("--trace-dir", "")

installCleanup()
// The packages' build, as the bench runs it: without the checkout's `@snodo/source` condition.
const builtOptions = (process.env["NODE_OPTIONS"] ?? "").split(/\s+/).filter((option) => option !== "" && option !== "--conditions=@snodo/source").join(" ")

const launches: Record<string, { readonly script: string; readonly args: (port: number) => ReadonlyArray<string> }> = {
  snodo: list
    ? { script: "bench/peers/snodo.ts", args: (port) => ["--http", "--port", String(port), "--tools", "list"] }
    : { script: "examples/everything/main.mjs", args: (port) => ["--http", "--port", String(port)] },
  raw: { script: "bench/peers/raw-http.ts", args: (port) => ["--port", String(port), ...(list ? ["--tools", "list"] : [])] }
}

interface Counters {
  /** CPU of the threads other than the main one (V8's GC and compiler workers, libuv's pool), ms. */
  readonly workers: number
  readonly user: number
  readonly sys: number
  readonly syscr: number
  readonly syscw: number
  readonly voluntary: number
  readonly involuntary: number
}

const counters = (pid: number): Counters => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  const io = readFileSync(`/proc/${pid}/io`, "utf8")
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const field = (text: string, name: string) => Number(new RegExp(`^${name}:\\s*(\\d+)`, "m").exec(text)?.[1] ?? Number.NaN)
  let workers = 0
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    if (task === String(pid)) continue
    try {
      const taskStat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8")
      const taskFields = taskStat.slice(taskStat.lastIndexOf(")") + 2).split(" ")
      workers += (Number(taskFields[11]) + Number(taskFields[12])) * 10
    } catch {
      // the thread ended
    }
  }
  return {
    workers,
    user: Number(fields[11]) * 10,
    sys: Number(fields[12]) * 10,
    syscr: field(io, "syscr"),
    syscw: field(io, "syscw"),
    voluntary: field(status, "voluntary_ctxt_switches"),
    involuntary: field(status, "nonvoluntary_ctxt_switches")
  }
}

const runLoad = (spec: LoadSpec): Promise<LoadResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["bench/load.ts", JSON.stringify(spec)], { stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
    child.on("exit", (code) => code === 0 ? resolve(JSON.parse(out) as LoadResult) : reject(new Error(`loader exited ${code}`)))
  })

const body = list ? listBody() : echoBody()
const headers = list ? listHeaders : echoHeaders
const probe = list
  ? { body, headers, check: (frame: unknown) => checkList(frame, 100) }
  : { body, headers, check: (frame: unknown) => checkEcho(frame) }

const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ")[0]
process.stdout.write(`# ${cpus()[0]?.model ?? "?"}, ${cpus().length} cores; peers ${peers.join(",")}; loads ${loads.map((l) => `${l.connections}:${l.seconds}`).join(",")}\n`)
process.stdout.write("process\tpeer\tconn\tround\treq/s\tuser µs\tsys µs\tcpu µs\tworkers µs\treads\twrites\tvol cs\tinvol cs\tp99 ms\tload\n")
for (let index = 0; index < processes; index++) {
  const running: Array<{ readonly peer: string; readonly child: ChildProcess; readonly pid: number; readonly url: string }> = []
  for (const [at, peer] of peers.entries()) {
    const launch = launches[peer]!
    const port = await freePort()
    const url = `http://127.0.0.1:${port}/mcp`
    const child = spawn(process.execPath, [...nodeArgs, launch.script, ...launch.args(port)], {
      stdio: ["ignore", traceDir === "" ? "ignore" : openSync(`${traceDir}/${index}-${peer}${at}.txt`, "w"), "inherit"],
      env: { ...process.env, NODE_OPTIONS: builtOptions, NODE_ENV: "production", SNODO_EVERYTHING_BUNDLE: "0" }
    })
    adopt(child.pid)
    const answer = await firstAnswer(url, probe.body, probe.headers, { intervalMs: 5, timeoutMs: 30_000, postTimeoutMs: 2000, stopped: () => undefined })
    if (answer.status !== 200) throw new Error(`${peer}: HTTP ${answer.status}`)
    running.push({ peer: peers.indexOf(peer) === at ? peer : `${peer}#${at}`, child, pid: child.pid!, url })
  }
  await sleep(300)
  for (const { connections, seconds } of loads) {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? running : running.toReversed()
      for (const { peer, pid, url } of order) {
        const spec = { url, connections, durationS: seconds, headers, body, timeoutS: 10 }
        if (round === 0) await runLoad({ ...spec, durationS: 1 })
        const before = counters(pid)
        const result = await runLoad(spec)
        const after = counters(pid)
        const n = Math.max(1, result.completed)
        const per = (key: keyof Counters, scale = 1) => ((after[key] - before[key]) * scale) / n
        const user = per("user", 1000)
        const sys = per("sys", 1000)
        process.stdout.write(
          [index, peer, connections, round, Math.round(result.rps), user.toFixed(1), sys.toFixed(1), (user + sys).toFixed(1), per("workers", 1000).toFixed(1), per("syscr").toFixed(2), per("syscw").toFixed(2), per("voluntary").toFixed(3), per("involuntary").toFixed(3), result.p99Ms.toFixed(1), loadavg()].join("\t") + "\n"
        )
      }
    }
  }
  for (const { child, pid } of running) {
    child.kill("SIGTERM")
    await new Promise((resolve) => child.once("exit", resolve))
    release(pid)
  }
}
