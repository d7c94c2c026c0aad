/**
 * Runs the official conformance suite against the everything server over HTTP.
 *
 *   npm run conformance [-- --verbose]
 *
 * Starts `examples/everything/main.ts --http --port 0`, waits for the URL it logs on stderr, then
 * runs `@modelcontextprotocol/conformance` (pinned) with `--requirements 2026-07-28` and the
 * checked-in baseline of expected failures. The suite's own baseline mode decides the exit code: a
 * failing (or warning) check that is not in `baseline.yml` fails the run, and so does a baseline
 * entry that now passes, so the baseline only shrinks. Results go to `.conformance-results/`.
 */
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../", import.meta.url))
const baseline = fileURLToPath(new URL("baseline.yml", import.meta.url))
const suite = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url))
const extra = process.argv.slice(2)

const server = spawn(process.execPath, ["examples/everything/main.ts", "--http", "--port", "0"], {
  cwd: root,
  stdio: ["ignore", "ignore", "pipe"]
})

const stop = () => {
  if (server.exitCode === null) server.kill("SIGTERM")
}
process.on("exit", stop)

const url = await new Promise<string>((resolve, reject) => {
  let seen = ""
  const timer = setTimeout(() => reject(new Error(`the everything server did not start:\n${seen}`)), 20_000)
  server.stderr.setEncoding("utf8")
  server.stderr.on("data", (chunk: string) => {
    seen += chunk
    const match = /listening on (http:\/\/\S+)/.exec(seen)
    if (match !== null) {
      clearTimeout(timer)
      resolve(match[1]!)
    }
  })
  server.once("exit", (code) => reject(new Error(`the everything server exited (${code}):\n${seen}`)))
})

process.stdout.write(`conformance: everything server at ${url}\n`)
const run = spawn(process.execPath, [
  suite,
  "server",
  "--url",
  url,
  "--requirements",
  "2026-07-28",
  "--expected-failures",
  baseline,
  "-o",
  ".conformance-results",
  ...extra
], { cwd: root, stdio: "inherit" })

const code = await new Promise<number>((resolve) => run.once("exit", (exit) => resolve(exit ?? 1)))
stop()
process.exit(code)
