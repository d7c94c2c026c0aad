/**
 * `npm run conformance` as part of `npm test`: the official suite against the everything server
 * over HTTP (both dialects, one server) must match the checked-in baselines exactly, for the
 * 2026-07-28 and the 2025-11-25 requirements (no new failure, no stale entry).
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { expect, it } from "vitest"

const runner = fileURLToPath(new URL("run.ts", import.meta.url))

it("passes the official conformance suite (2026-07-28 and 2025-11-25) against the baselines, and every tasks-* scenario", () => {
  const run = spawnSync(process.execPath, [runner], { encoding: "utf8", timeout: 240_000 })
  const output = `${run.stdout}\n${run.stderr}`
  expect(output.match(/Baseline check passed/g)?.length).toBe(2)
  expect(output).toContain("requirements 2026-07-28 and 2025-11-25 passed against their baselines")
  expect(output).toContain("all 10 tasks-* scenarios passed")
  expect(run.status, output.slice(-6000)).toBe(0)
}, 250_000)
