/**
 * `npm test`: the checks that need no test run side by side, then the test suite.
 *
 *   node scripts/test.ts [vitest arguments]   # `npm test -- --reporter=verbose` passes them on
 *
 * The system programs some tests drive (`scripts/system-deps.ts`, an `apt-get install` when one is
 * missing), the build, the type-check, the lint and the import check are independent of each other:
 * the type-check, the lint and the import check read the sources (the `@snodo/source` condition),
 * never `dist/`, and only the tests need the system programs. They run at once, each one's output
 * printed whole when it ends; on these 2-core machines the build and the type-check (two tsc runs
 * that wait on the disk as much as on a core) took 14 s and 18 s one after the other, 11 s together.
 * Any failure ends `npm test` once they all have, before the tests; then `vitest run`, told that
 * the build is fresh (`SNODO_TEST_BUILT=1`: `test/consumer/` packs it rather than building again).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { constants } from "node:os"

interface Step {
  /** What the output's header names it. */
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
}

const npm = process.platform === "win32" ? "npm.cmd" : "npm"
const script = (name: string): Step => ({ name: `npm run ${name}`, command: npm, args: ["run", "-s", name] })

const checks: ReadonlyArray<Step> = [
  { name: "system-deps", command: process.execPath, args: ["scripts/system-deps.ts"] },
  script("build"),
  script("typecheck"),
  script("lint"),
  script("imports")
]

/** The children running now: a SIGINT or SIGTERM to `npm test` is passed on to them. */
const running = new Set<ChildProcess>()
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    for (const child of running) child.kill(signal)
    process.exitCode = 128 + constants.signals[signal]
  })
}

/** A shell's exit status for a child that ended with `code` or by `signal`. */
const statusOf = (code: number | null, signal: NodeJS.Signals | null): number =>
  code ?? (signal === null ? 1 : 128 + constants.signals[signal])

/** Runs a step with its output held; prints it when the step ends; answers whether it passed. */
const run = (step: Step): Promise<boolean> =>
  new Promise((resolve) => {
    const started = performance.now()
    const child = spawn(step.command, step.args, { stdio: ["ignore", "pipe", "pipe"], shell: process.platform === "win32" })
    running.add(child)
    const output: Array<Buffer> = []
    child.stdout?.on("data", (chunk: Buffer) => output.push(chunk))
    child.stderr?.on("data", (chunk: Buffer) => output.push(chunk))
    let ended = false
    // A child that cannot start emits `error` and then `close`: the step is reported once.
    const end = (passed: boolean, why: string) => {
      if (ended) return
      ended = true
      running.delete(child)
      const seconds = ((performance.now() - started) / 1000).toFixed(1)
      process.stdout.write(`\n> ${step.name} (${seconds} s${why})\n${Buffer.concat(output).toString("utf8")}`)
      resolve(passed)
    }
    child.once("error", (error) => end(false, `, failed to start: ${error.message}`))
    child.once("close", (code, signal) => end(code === 0, code === 0 ? "" : `, failed: ${signal ?? `exit ${code}`}`))
  })

const results = await Promise.all(checks.map(run))
const failed = checks.filter((_, index) => !results[index]).map((step) => step.name)
if (failed.length > 0) {
  process.stderr.write(`\nnpm test: ${failed.join(", ")} failed; the tests did not run\n`)
  // exitCode, not exit(): the steps' output written above is not cut short where stdout is a pipe.
  process.exitCode ??= 1
} else if (process.exitCode === undefined) {
  process.stdout.write("\n> vitest run\n")
  // The build above is the one test/consumer/ packs: SNODO_TEST_BUILT spares it a second (~4 s).
  const vitest = spawn(npm, ["run", "-s", "vitest", "--", ...process.argv.slice(2)], {
    stdio: "inherit",
    shell: process.platform === "win32",
    env: { ...process.env, SNODO_TEST_BUILT: "1" }
  })
  running.add(vitest)
  vitest.once("error", (error) => {
    running.delete(vitest)
    process.stderr.write(`\nnpm test: vitest failed to start: ${error.message}\n`)
    process.exitCode = 1
  })
  vitest.once("close", (code, signal) => {
    running.delete(vitest)
    process.exitCode ??= statusOf(code, signal)
  })
}
