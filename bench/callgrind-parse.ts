/**
 * Instructions per parse of the bench's `tools/call echo` body, counted by valgrind's callgrind:
 * the strict JSON parser alone (`StrictJson.parse` of the build, `bench/peers/parse-loop.ts`), or
 * `JSON.parse` with `--json`. `--warm` parses (default 20,000) warm it up, `callgrind_control -z`
 * zeroes the counts, `--count` more (default 5,000) are counted. With `--functions N` the N functions
 * with the most instructions of their own are printed per parse (`bench/callgrind-functions.ts`).
 *
 *   npx node bench/callgrind-parse.ts [--json] [--warm N] [--count N] [--functions N]
 *
 * Run `npm run build` first: the loop parses with the packages' build.
 */
import * as CallgrindChild from "./callgrind-child.ts"
import * as CallgrindFunctions from "./callgrind-functions.ts"
import { textOption } from "./argv.ts"

const json = process.argv.includes("--json")
const warm = Number(textOption("--warm", "20000"))
const count = Number(textOption("--count", "5000"))
const functions = Number(textOption("--functions", "0"))

const counted = CallgrindChild.start("bench/peers/parse-loop.ts", json ? ["--json"] : [], functions > 0 ? ["--perf-basic-prof"] : [])
const child = counted.child
child.stdout.setEncoding("utf8")
let answered: (() => void) | undefined
child.stdout.on("data", () => {
  const resolve = answered
  answered = undefined
  resolve?.()
})
const parseMany = (total: number): Promise<void> =>
  new Promise<void>((resolve) => {
    answered = resolve
    child.stdin.write(`${total}\n`)
  })

try {
  await parseMany(warm)
  counted.zero()
  await parseMany(count)
  const { all, main, mainFile } = await counted.dump()
  process.stdout.write(
    `${json ? "JSON.parse" : "StrictJson.parse"} of the echo body n=${count}: main thread ${(main / count / 1000).toFixed(2)}k instructions per parse, all threads ${(all / count / 1000).toFixed(2)}k\n`
  )
  if (functions > 0) CallgrindFunctions.report(mainFile, child.pid, count, functions)
} finally {
  await counted.stop()
}
