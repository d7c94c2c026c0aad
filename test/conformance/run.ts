/**
 * Runs the official conformance suite against the everything server over HTTP.
 *
 *   npm run conformance [-- --verbose]
 *
 * Starts `examples/everything/main.mjs --http --port 0` (both dialects, HTTP sessions on, tasks in
 * an SQLite file of a temporary directory removed on exit), waits for the URL it logs on stderr,
 * then runs `@modelcontextprotocol/conformance` (pinned) twice against
 * that one server: `--requirements 2026-07-28` with `baseline.yml`, and `--requirements 2025-11-25`
 * (the initialize era) with `baseline-2025-11-25.yml`, each baseline the checked-in list of
 * expected failures. The suite's own baseline mode decides each exit code: a failing (or warning)
 * check that is not in the baseline fails the run, and so does a baseline entry that now passes,
 * so a baseline only shrinks. Results go to `.conformance-results/`.
 *
 * The Tasks extension's `tasks-*` scenarios are run too, one by one: inside a requirements run the
 * suite lists them as not scored (and its baseline filter drops them), so that run would pass
 * whatever they say. Run alone (without `--spec-version`, which would skip them), a scenario exits
 * non-zero on any failure, and so does this script.
 *
 * So are the Skills extension's three `sep-2640-skills-*` scenarios, held to more: every check
 * must have run and passed. A scenario exits 0 with warnings, and reports a check whose feature it
 * did not find as SKIPPED, so this script reads each one's `checks.json` and fails on any status
 * but SUCCESS (or on no check at all).
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../", import.meta.url))
/** Each requirement set the server is held to, with its baseline of expected failures. */
const requirementSets = [
  { revision: "2026-07-28", baseline: fileURLToPath(new URL("baseline.yml", import.meta.url)) },
  { revision: "2025-11-25", baseline: fileURLToPath(new URL("baseline-2025-11-25.yml", import.meta.url)) }
]
const suite = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url))
const extra = process.argv.slice(2)

// The tasks scenarios run on the SQLite store, the everything server's default over HTTP.
const data = mkdtempSync(join(tmpdir(), "snodo-conformance-"))
const server = spawn(process.execPath, ["examples/everything/main.mjs", "--http", "--port", "0", "--tasks", `sqlite:${join(data, "tasks.sqlite")}`], {
  cwd: root,
  stdio: ["ignore", "ignore", "pipe"]
})

const stop = () => {
  if (server.exitCode === null) server.kill("SIGTERM")
  rmSync(data, { recursive: true, force: true })
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

/** Runs one requirement set against its baseline; resolves with the suite's exit code. */
const runRequirements = (revision: string, baseline: string) =>
  new Promise<number>((resolve) => {
    process.stdout.write(`conformance: --requirements ${revision}\n`)
    const run = spawn(process.execPath, [
      suite,
      "server",
      "--url",
      url,
      "--requirements",
      revision,
      "--expected-failures",
      baseline,
      "-o",
      ".conformance-results",
      ...extra
    ], { cwd: root, stdio: "inherit" })
    run.once("exit", (exit) => resolve(exit ?? 1))
  })

const failedSets: Array<string> = []
for (const { baseline, revision } of requirementSets) {
  if ((await runRequirements(revision, baseline)) !== 0) failedSets.push(revision)
}
process.stdout.write(
  failedSets.length === 0
    ? `conformance: requirements ${requirementSets.map((set) => set.revision).join(" and ")} passed against their baselines\n`
    : `conformance: requirements failed: ${failedSets.join(", ")}\n`
)
const code = failedSets.length === 0 ? 0 : 1

/** The extension's scenarios (`conformance list --server` marks them `[extension]`). */
const taskScenarios = [
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
  "tasks-status-notifications",
  "tasks-required-task-error",
  "tasks-mrtr-composition"
]

/** The Skills extension's scenarios: every check must run and pass. */
const skillScenarios = ["sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"]

/** Runs one scenario alone; resolves with its exit code and output. */
const runScenario = (scenario: string, results = ".conformance-results") =>
  new Promise<{ readonly scenario: string; readonly exit: number; readonly output: string }>((resolve) => {
    const single = spawn(process.execPath, [suite, "server", "--url", url, "--scenario", scenario, "-o", results], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    single.stdout.setEncoding("utf8")
    single.stderr.setEncoding("utf8")
    single.stdout.on("data", (chunk: string) => void (output += chunk))
    single.stderr.on("data", (chunk: string) => void (output += chunk))
    single.once("exit", (status) => resolve({ scenario, exit: status ?? 1, output }))
  })

// Most of a tasks scenario is waiting for tasks to finish: a few run at once.
const failedTasks: Array<string> = []
const pending = [...taskScenarios]
const worker = async () => {
  for (let scenario = pending.shift(); scenario !== undefined; scenario = pending.shift()) {
    const { exit, output } = await runScenario(scenario)
    const summary = /Passed: \d+\/\d+[^\n]*/.exec(output)?.[0] ?? "no summary"
    process.stdout.write(`conformance: ${scenario}: ${summary}${exit === 0 ? "" : " FAILED"}\n`)
    if (exit !== 0) {
      failedTasks.push(scenario)
      process.stdout.write(output)
    }
  }
}
await Promise.all([worker(), worker(), worker(), worker()])
process.stdout.write(
  failedTasks.length === 0
    ? `conformance: all ${taskScenarios.length} tasks-* scenarios passed\n`
    : `conformance: tasks-* scenarios failed: ${failedTasks.join(", ")}\n`
)

/** The statuses of a scenario's checks, counted, from the `checks.json` it wrote under `results`. */
const statusesOf = (results: string): Record<string, number> => {
  const counts: Record<string, number> = {}
  for (const run of readdirSync(results)) {
    const checks = JSON.parse(readFileSync(join(results, run, "checks.json"), "utf8")) as ReadonlyArray<{ readonly status: string }>
    for (const check of checks) counts[check.status] = (counts[check.status] ?? 0) + 1
  }
  return counts
}

const failedSkills: Array<string> = []
for (const scenario of skillScenarios) {
  const results = mkdtempSync(join(data, `${scenario}-`))
  const { exit, output } = await runScenario(scenario, results)
  const counts = statusesOf(results)
  const passed = counts["SUCCESS"] ?? 0
  const others = Object.entries(counts).filter(([status]) => status !== "SUCCESS")
  const ok = exit === 0 && passed > 0 && others.length === 0
  process.stdout.write(
    `conformance: ${scenario}: ${passed} checks passed${others.map(([status, count]) => `, ${count} ${status}`).join("")}${ok ? "" : " FAILED"}\n`
  )
  if (!ok) {
    failedSkills.push(scenario)
    process.stdout.write(output)
  }
}
process.stdout.write(
  failedSkills.length === 0
    ? `conformance: all ${skillScenarios.length} sep-2640-skills-* scenarios passed every check\n`
    : `conformance: sep-2640-skills-* scenarios failed: ${failedSkills.join(", ")}\n`
)
stop()
process.exit(code !== 0 ? code : failedTasks.length > 0 || failedSkills.length > 0 ? 1 : 0)
