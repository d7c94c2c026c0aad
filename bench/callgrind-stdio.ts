/**
 * Instructions per stdio `tools/call echo`, counted by valgrind's callgrind (the stdio companion of
 * `bench/callgrind.ts`): the server runs under `valgrind --tool=callgrind --separate-threads=yes`,
 * `--warm` sequential calls (default 500) warm it up, `callgrind_control -z` zeroes the counts,
 * `--count` more (default 1,000) are sent, one after another (each waits for its answer), or all
 * at once with `--burst`, and `callgrind_control -d` dumps them. Printed per call: the main
 * thread's instructions and all threads'.
 *
 *   npx node bench/callgrind-stdio.ts [--server snodo|raw] [--count N] [--warm N] [--burst] [--functions N]
 *
 * `snodo` is the everything server's bench peer (`bench/peers/snodo.ts --stdio`), `raw` the stdio
 * floor (`bench/peers/raw-stdio.ts`). Servers run from the packages' build (`npm run build` first).
 */
import * as CallgrindChild from "./callgrind-child.ts"
import * as CallgrindFunctions from "./callgrind-functions.ts"
import { checkEcho, echoBody } from "./wire.ts"
import { textOption } from "./argv.ts"

const argv = process.argv.slice(2)
const server = textOption("--server", "snodo")
const count = Number(textOption("--count", "1000"))
const warm = Number(textOption("--warm", "500"))
const burst = argv.includes("--burst")
const functions = Number(textOption("--functions", "0"))

const script = server === "raw" ? "bench/peers/raw-stdio.ts" : "bench/peers/snodo.ts"
const args = server === "raw" ? [] : ["--stdio"]
const counted = CallgrindChild.start(script, args, functions > 0 ? ["--perf-basic-prof"] : [])
const child = counted.child

/** Answers by id, as they come. */
const waiting = new Map<number, (line: string) => void>()
let buffered = ""
child.stdout.setEncoding("utf8")
child.stdout.on("data", (chunk: string) => {
  buffered += chunk
  let newline = buffered.indexOf("\n")
  while (newline >= 0) {
    const line = buffered.slice(0, newline)
    buffered = buffered.slice(newline + 1)
    newline = buffered.indexOf("\n")
    const id = (JSON.parse(line) as { readonly id?: unknown }).id
    if (typeof id !== "number") continue
    const resolve = waiting.get(id)
    waiting.delete(id)
    resolve?.(line)
  }
})

let nextId = 1
const call = (): Promise<void> => {
  const id = nextId++
  return new Promise<string>((resolve) => {
    waiting.set(id, resolve)
    child.stdin.write(`${echoBody(id)}\n`)
  }).then((line) => {
    const problem = checkEcho(JSON.parse(line), id)
    if (problem !== undefined) throw new Error(problem)
  })
}

const send = async (total: number, atOnce: boolean): Promise<void> => {
  if (atOnce) {
    await Promise.all(Array.from({ length: total }, call))
    return
  }
  for (let i = 0; i < total; i++) await call()
}

try {
  await Promise.race([
    call(),
    new Promise((_, reject) => child.on("exit", (code) => reject(new Error(`server exited ${code}: ${counted.stderr()}`))))
  ])
  await send(warm, false)
  counted.zero()
  await send(count, burst)
  const { all, main: mainCount, mainFile } = await counted.dump()
  const perCall = (n: number) => `${(n / count / 1000).toFixed(1)}k`
  process.stdout.write(`${server} stdio ${burst ? "burst" : "sequential"} n=${count}: main thread ${perCall(mainCount)} instructions per call, all threads ${perCall(all)}\n`)
  if (functions > 0) CallgrindFunctions.report(mainFile, child.pid, count, functions)
} finally {
  await counted.stop()
}
