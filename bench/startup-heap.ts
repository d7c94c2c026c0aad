/**
 * Why a stdio start idles in the memory it does: every peer of the start-up scenario's app (the
 * app outside the repository, `node <file>` in it, cold) started with V8's `--trace-gc-nvp`, the
 * discover request written at spawn, the RSS read 0.5 s after the answer (as `bench/startup.ts`
 * reads it). Printed per peer: the median RSS, and of the run with that median the garbage
 * collections until the read (scavenges, full collections), what they saw allocated, the
 * young generation's semi-space capacity at the end, and at which scavenge it grew.
 *
 * Idle RSS moves in steps: V8 doubles the young generation's semi-space after a scavenge when the
 * bytes that survived scavenges since it last grew exceed its capacity, and keeps the pages while
 * the server idles (docs/startup.md, "Idle memory"; bench/PROFILE.md, "Start-up and memory").
 * `--retain KB[,KB…]` starts each peer once more per value with that many KB of small objects
 * allocated and kept before its own imports run (`--import` of a data: module): how far a peer
 * sits from its next step.
 *
 *   npx node bench/startup-heap.ts [--peers official,floor-modules,snodo-modules] [--repeat 5] [--retain 100,250]
 *
 * Run `npm run build` first: the app is packed from the packages' build.
 */
import { spawn } from "node:child_process"
import { cleanEnv } from "../test/support/PackedApp.ts"
import { rss } from "./children.ts"
import { ensureApp } from "./startup.ts"
import { discoverBody } from "./wire.ts"
import { textOption } from "./argv.ts"

const peers = textOption("--peers", "official,floor-modules,snodo-modules").split(",")
const repeat = Number(textOption("--repeat", "5"))
const retains = textOption("--retain", "").split(",").filter((value) => value !== "").map(Number)

/** One garbage collection as `--trace-gc-nvp` prints it. */
interface Collection {
  readonly kind: string
  readonly allocated: number
  readonly promoted: number
  readonly survived: number
  readonly semiSpace: number
}

/** One start: its RSS when read and the collections until then. */
interface Start {
  readonly rss: number
  readonly collections: ReadonlyArray<Collection>
}

const field = (line: string, name: string): number => Number(new RegExp(`\\b${name}=(\\d+)`).exec(line)?.[1] ?? Number.NaN)

/** A module that allocates `kb` KB of three-field objects and keeps them. */
const retainer = (kb: number): string =>
  `data:text/javascript,globalThis.__retained=Array.from({length:${Math.round((kb * 1024) / 32)}},(_,i)=>({a:i,b:null,c:undefined}))`

const startOnce = (app: string, peer: string, retain: number): Promise<Start> =>
  new Promise((resolve, reject) => {
    const flags = ["--trace-gc-nvp", ...(retain > 0 ? ["--import", retainer(retain)] : [])]
    const child = spawn(process.execPath, [...flags, `${peer}-stdio.mjs`], {
      cwd: app,
      env: { ...cleanEnv, NODE_DISABLE_COMPILE_CACHE: "1" },
      stdio: ["pipe", "pipe", "ignore"]
    })
    const collections: Array<Collection> = []
    let buffered = ""
    let answered = false
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk
      const lines = buffered.split("\n")
      buffered = lines.pop() ?? ""
      for (const line of lines) {
        // V8 prints its trace on the same stdout as the answers, a line at a time.
        const kind = / gc=(\w+) /.exec(line)?.[1]
        if (kind !== undefined) {
          collections.push({
            kind,
            allocated: field(line, "allocated"),
            promoted: field(line, "promoted"),
            survived: field(line, "new_space_survived"),
            semiSpace: field(line, "new_space_capacity")
          })
        } else if (line.includes("\"supportedVersions\"") && !answered) {
          answered = true
          setTimeout(() => {
            const resident = rss(child.pid!)
            child.kill("SIGKILL")
            resolve({ rss: resident, collections: [...collections] })
          }, 500)
        }
      }
    })
    child.on("exit", (code) => {
      if (!answered) reject(new Error(`${peer}: exited (${code}) before answering`))
    })
    child.stdin.write(`${discoverBody()}\n`)
  })

const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1)

const describe = (start: Start): string => {
  const scavenges = start.collections.filter((collection) => collection.kind === "s")
  const full = start.collections.length - scavenges.length
  const allocated = start.collections.reduce((sum, collection) => sum + (Number.isNaN(collection.allocated) ? 0 : collection.allocated), 0)
  const grown = scavenges.flatMap((collection, index) =>
    index > 0 && collection.semiSpace > scavenges[index - 1]!.semiSpace ? [`#${index + 1} → ${mib(collection.semiSpace)}`] : []
  )
  const last = scavenges.at(-1)
  return `${scavenges.length} scavenges, ${full} full; ${mib(allocated)} MiB allocated; semi-space ${last === undefined ? "?" : mib(last.semiSpace)} MiB (grew at ${grown.join(", ")})`
}

const app = await ensureApp((line) => console.error(line))
console.log("| peer (stdio, cold) | retained first | RSS idle (median, MiB) | runs (MiB) | collections until the read (run of the median) |")
console.log("|---|---:|---:|---|---|")
for (const peer of peers) {
  for (const retain of [0, ...retains]) {
    const starts: Array<Start> = []
    for (let run = 0; run < repeat; run++) starts.push(await startOnce(app, peer, retain))
    const sorted = starts.toSorted((a, b) => a.rss - b.rss)
    const middle = sorted[Math.floor(sorted.length / 2)]!
    console.log(`| ${peer} | ${retain === 0 ? "" : `${retain} KB`} | ${mib(middle.rss)} | ${starts.map((start) => mib(start.rss)).join(", ")} | ${describe(middle)} |`)
  }
}
