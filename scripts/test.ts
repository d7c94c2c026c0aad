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
import { spawn } from "node:child_process"

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

/** Runs a step with its output held; prints it when the step ends; answers whether it passed. */
const run = (step: Step): Promise<boolean> =>
  new Promise((resolve) => {
    const started = performance.now()
    const child = spawn(step.command, step.args, { stdio: ["ignore", "pipe", "pipe"], shell: process.platform === "win32" })
    const output: Array<Buffer> = []
    child.stdout.on("data", (chunk: Buffer) => output.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => output.push(chunk))
    const end = (passed: boolean, why: string) => {
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
  process.exit(1)
}
process.stdout.write("\n> vitest run\n")
// The build above is the one test/consumer/ packs: SNODO_TEST_BUILT spares it a second (~4 s).
const vitest = spawn(npm, ["run", "-s", "vitest", "--", ...process.argv.slice(2)], {
  stdio: "inherit",
  shell: process.platform === "win32",
  env: { ...process.env, SNODO_TEST_BUILT: "1" }
})
vitest.once("close", (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)))
