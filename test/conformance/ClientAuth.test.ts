/**
 * The client credentials extension's `auth/client-credentials-basic` scenario, which the
 * 2026-07-28 requirements do not list (the requirements' own `auth/*` scenarios run in
 * `ClientConformance.test.ts`): the conformance client (`client.ts`, `@snodo/client` with its
 * OAuth client as a machine client) run through `auth-run.ts`; every check must be SUCCESS (or
 * INFO, a note rather than a verdict).
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { expect, it } from "vitest"

const runner = fileURLToPath(new URL("auth-run.ts", import.meta.url))

it("passes the client credentials extension's auth/client-credentials-basic with no failing, warning or skipped check", () => {
  const run = spawnSync(process.execPath, [runner, "auth/client-credentials-basic"], { encoding: "utf8", timeout: 120_000 })
  const output = `${run.stdout}\n${run.stderr}`
  const lines = output.split("\n").filter((line) => line.startsWith("conformance-auth: auth/"))
  expect(lines, output).toHaveLength(1)
  expect(lines[0]).toMatch(/^conformance-auth: auth\/client-credentials-basic: \d+ checks, .*SUCCESS \d+/)
  expect(lines[0]).not.toMatch(/FAILED|FAILURE|WARNING|SKIPPED/)
  expect(output).toContain("conformance-auth: all 1 scenarios passed")
  expect(run.status, output.slice(-6000)).toBe(0)
}, 130_000)
