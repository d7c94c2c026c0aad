/**
 * The official conformance suite's `auth/*` client scenarios for 2026-07-28 (and the client
 * credentials extension's `auth/client-credentials-basic`), run against the OAuth
 * client (`auth-client.ts` through `auth-run.ts`): every scenario must report checks, and every
 * check must be SUCCESS (or INFO, a note rather than a verdict); a FAILURE, WARNING or SKIPPED check
 * fails the test.
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { expect, it } from "vitest"

const runner = fileURLToPath(new URL("auth-run.ts", import.meta.url))

it("passes every auth/* client scenario of the 2026-07-28 requirements, and auth/client-credentials-basic, with no failing, warning or skipped check", () => {
  const run = spawnSync(process.execPath, [runner], { encoding: "utf8", timeout: 400_000 })
  const output = `${run.stdout}\n${run.stderr}`
  const lines = output.split("\n").filter((line) => line.startsWith("conformance-auth: auth/"))
  expect(lines.length, output).toBe(26)
  expect(output).toContain("conformance-auth: auth/client-credentials-basic: ")
  for (const line of lines) {
    expect(line, output).not.toContain("FAILED")
    expect(line).toMatch(/: \d+ checks, /)
    expect(line).not.toMatch(/FAILURE|WARNING|SKIPPED/)
  }
  expect(output).toContain("conformance-auth: all 25 auth scenarios and 1 extension scenario passed")
  expect(run.status, output.slice(-6000)).toBe(0)
}, 410_000)
