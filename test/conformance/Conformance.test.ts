/**
 * `npm run conformance` as part of `npm test`: the official suite against the everything server
 * over HTTP (both dialects, one server) must match the checked-in baselines exactly, for the
 * 2026-07-28 and the 2025-11-25 requirements (no new failure, no stale entry); the extensions'
 * scenarios run alone, the Skills ones with every check run and passed (none skipped, no warning).
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { expect, it } from "vitest"

const runner = fileURLToPath(new URL("run.ts", import.meta.url))

it("passes the official conformance suite (2026-07-28 and 2025-11-25) against the baselines, every tasks-* scenario, and every check of the sep-2640-skills-* scenarios", () => {
  const run = spawnSync(process.execPath, [runner], { encoding: "utf8", timeout: 240_000 })
  const output = `${run.stdout}\n${run.stderr}`
  expect(output.match(/Baseline check passed/g)?.length).toBe(2)
  expect(output).toContain("requirements 2026-07-28 and 2025-11-25 passed against their baselines")
  expect(output).toContain("all 10 tasks-* scenarios passed")
  expect(output).toContain("all 3 sep-2640-skills-* scenarios passed every check")
  for (const [scenario, checks] of [["enumeration", 32], ["manifest", 6], ["directory", 7]] as const) {
    expect(output).toContain(`conformance: sep-2640-skills-${scenario}: ${checks} checks passed\n`)
  }
  expect(run.status, output.slice(-6000)).toBe(0)
}, 250_000)
