/**
 * Instructions per HTTP request, counted by valgrind's callgrind: a figure that does not move with
 * the machine's load the way wall-clock and `/proc` CPU figures do (see bench/PROFILE.md).
 *
 * The server runs under `valgrind --tool=callgrind --separate-threads=yes`; `--warm` requests
 * (default 500) over `--connections` keep-alive connections (default 16) warm it up,
 * `callgrind_control -z` zeroes the counts, `--count` more (default 1,000) are sent, and
 * `callgrind_control -d` dumps them. Printed per request: the main thread's instructions and all
 * threads' (V8's GC and compiler threads added).
 *
 *   npx node bench/callgrind.ts [--server snodo|canned|raw] [--scenario echo|list] [--count N] [--warm N] [--connections N] [--otlp] [--functions N]
 *
 * `snodo` is the everything server (tasks in memory), `canned` the same server with the core's
 * `handle` replaced by a canned answer (the HTTP adapter alone; `bench/callgrind-server.ts`), `raw`
 * the raw node:http floor. With `--otlp` the snodo echo server exports spans and metrics over OTLP
 * to a stand-in collector in this process (`bench/otlp-sink.ts`), as the observability scenario
 * runs it (the exporters' own work is counted in, as it is there). With `--functions N` the server
 * runs with `--perf-basic-prof` and the N functions of the main thread with the most instructions
 * of their own are printed per request, V8's generated code named through its perf map
 * (`bench/callgrind-functions.ts`; the flag itself costs a little start-up, not per request). Servers run from the packages' build (`npm run build` first), as the
 * bench runs them.
 */
import * as CallgrindChild from "./callgrind-child.ts"
import * as CallgrindFunctions from "./callgrind-functions.ts"
import * as CallgrindHttp from "./callgrind-http.ts"
import { freePort } from "./children.ts"
import * as OtlpSink from "./otlp-sink.ts"
import { checkEcho, checkList, echoBody, echoHeaders, frameOf, listBody, listHeaders } from "./wire.ts"
import { textOption } from "./argv.ts"

const argv = process.argv.slice(2)
const server = textOption("--server", "snodo")
const scenario = textOption("--scenario", "echo")
const count = Number(textOption("--count", "1000"))
const warm = Number(textOption("--warm", "500"))
const connections = Number(textOption("--connections", "16"))
const functions = Number(textOption("--functions", "0"))
const sink = argv.includes("--otlp") ? await OtlpSink.start() : undefined
if (sink !== undefined && (server !== "snodo" || scenario !== "echo")) throw new Error("--otlp is for --server snodo --scenario echo")

const port = await freePort()
const list = scenario === "list"
const script = server === "raw" ? "bench/peers/raw-http.ts" : list ? "bench/peers/snodo.ts" : "bench/callgrind-server.ts"
const args = server === "raw"
  ? ["--port", String(port), ...(list ? ["--tools", "list"] : [])]
  : list
  ? ["--http", "--port", String(port), "--tools", "list"]
  : ["--port", String(port), "--core", server === "canned" ? "canned" : "real", ...(sink === undefined ? [] : ["--otlp", sink.url])]
const counted = CallgrindChild.start(script, args, functions > 0 ? ["--perf-basic-prof"] : [])
const child = counted.child
// Over HTTP the server's stdout says nothing this script needs: drained, so it never blocks.
child.stdout.resume()

const body = list ? listBody() : echoBody()
const headers = list ? listHeaders : echoHeaders
const http = CallgrindHttp.poster(port, connections)

/** Sends `total` requests, `connections` at a time. */
const send = (total: number): Promise<void> =>
  CallgrindHttp.inParallel(total, connections, async () => {
    const answer = await http.post(body, headers)
    return answer.status === 200 ? undefined : `status ${answer.status}: ${answer.text}`
  })

/** Once the server answers the first request, checked. */
const ready = (): Promise<void> =>
  CallgrindHttp.whenServing(counted, async () => {
    const answer = await http.post(body, headers)
    const frame = frameOf(answer.type, answer.text)
    const problem = list ? checkList(frame, 100) : checkEcho(frame)
    if (problem !== undefined) throw new Error(problem)
  })

try {
  await ready()
  await send(warm)
  counted.zero()
  await send(count)
  const { all, main: mainCount, mainFile } = await counted.dump()
  const perRequest = (n: number) => `${(n / count / 1000).toFixed(1)}k`
  process.stdout.write(`${server}${sink === undefined ? "" : " --otlp"} ${scenario} c=${connections} n=${count}: main thread ${perRequest(mainCount)} instructions per request, all threads ${perRequest(all)}\n`)
  if (functions > 0) CallgrindFunctions.report(mainFile, child.pid, count, functions)
} catch (error) {
  throw new Error(`${String(error)}; the server's stderr: ${counted.stderr()}`, { cause: error })
} finally {
  http.destroy()
  await counted.stop()
  await sink?.close()
}
