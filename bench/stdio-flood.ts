/**
 * The stdio flood of `test/stdio/Overload.test.ts`, measured: the everything server as a child
 * process, `count` `tools/list` lines written at once, every answer read (counted, not kept), and
 * the child's RSS sampled every 50 ms. Prints the idle RSS, the peak and the final RSS over idle,
 * the time the flood took, and the heap and Buffers the server holds after a full GC at idle and
 * once the flood is answered (a preload in the child answers SIGUSR2 with `gc()` and
 * `process.memoryUsage()` on stderr): what the transport keeps, apart from where V8's heap sizing
 * lands.
 *
 *   npx node bench/stdio-flood.ts                          # 100,000 lines, Node's default young generation
 *   npx node bench/stdio-flood.ts --count 400000 --semi 4  # the test's pinned young generation (--max-semi-space-size=4)
 *   npx node bench/stdio-flood.ts --runs 3
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"

const { values } = parseArgs({
  options: { count: { type: "string", default: "100000" }, semi: { type: "string" }, runs: { type: "string", default: "1" } }
})
const count = Number(values.count)

const rssMiB = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "flood", version: "1.0.0" }
}
const line = (id: number) => `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params: { _meta: meta } })}\n`

const probe = join(mkdtempSync(join(tmpdir(), "snodo-flood-")), "probe.mjs")
writeFileSync(probe, `process.on("SIGUSR2", () => { globalThis.gc(); const m = process.memoryUsage(); process.stderr.write("PROBE " + JSON.stringify(m) + "\\n") })\n`)

const run = async () => {
  const flags = [...(values.semi === undefined ? [] : [`--max-semi-space-size=${values.semi}`]), "--expose-gc", `--import=${probe}`]
  const child = spawn(process.execPath, [...flags, "examples/everything/main.mjs", "--stdio"], { stdio: ["pipe", "pipe", "pipe"] })
  const seen = { answers: 0 }
  child.stdout.on("data", (chunk: Buffer) => {
    for (let index = 0; index < chunk.length; index++) if (chunk[index] === 10) seen.answers++
  })
  let stderr = ""
  const probes: Array<{ readonly heapUsed: number; readonly arrayBuffers: number }> = []
  child.stderr.setEncoding("utf8")
  child.stderr.on("data", (text: string) => {
    stderr = (stderr + text).slice(-2000)
    for (const match of text.matchAll(/PROBE (\{[^\n]*\})/g)) probes.push(JSON.parse(match[1]!))
  })
  /** The heap and Buffers after a full GC in the child, in MiB. */
  const held = async () => {
    const before = probes.length
    child.kill("SIGUSR2")
    while (probes.length === before) await sleep(20)
    const last = probes[probes.length - 1]!
    return Math.round((last.heapUsed + last.arrayBuffers) / 1024 / 1024)
  }
  let exited = false
  child.on("exit", () => void (exited = true))
  child.stdin.on("error", () => undefined)
  child.stdin.write(line(0))
  while (seen.answers < 1) await sleep(20)
  await sleep(500)
  const heldIdle = await held()
  await sleep(200)
  const idle = rssMiB(child.pid!)
  const started = performance.now()
  let batch = ""
  for (let id = 1; id <= count; id++) {
    batch += line(id)
    if (batch.length > 1024 * 1024) {
      child.stdin.write(batch)
      batch = ""
      // Written without waiting for answers, but this process keeps reading them: building 400,000
      // lines in one synchronous loop on a loaded machine outlasts the server's 5 s write timeout.
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  child.stdin.write(batch)
  let peak = idle
  while (seen.answers < count + 1) {
    await sleep(50)
    if (exited) throw new Error(`the server exited after ${seen.answers} answers: ${stderr}`)
    peak = Math.max(peak, rssMiB(child.pid!))
  }
  const seconds = (performance.now() - started) / 1000
  const after = rssMiB(child.pid!)
  const heldAfter = await held()
  child.stdin.end()
  if (!exited) await new Promise((resolve) => child.on("exit", resolve))
  return { count, semi: values.semi ?? "default", idleMiB: Math.round(idle), peakOverIdleMiB: Math.round(peak - idle), afterOverIdleMiB: Math.round(after - idle), seconds: Number(seconds.toFixed(1)), heldIdleMiB: heldIdle, heldAfterMiB: heldAfter }
}

for (let index = 0; index < Number(values.runs); index++) console.log(JSON.stringify(await run()))
