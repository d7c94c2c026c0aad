/**
 * The auth extension scenarios of the conformance suite, which the 2026-07-28 requirements do not
 * list (the requirements' own `auth/*` scenarios run in `ClientConformance.test.ts`): client
 * credentials with `client_secret_basic` and with `private_key_jwt` (RFC 7523), enterprise-managed
 * authorization (RFC 8693 token exchange, then the JWT bearer grant), DPoP with and without server
 * nonces (RFC 9449 / SEP-1932), and workload identity federation's JWT bearer grant. The
 * conformance client (`client.ts`, `@snodo/client` with its OAuth client) runs through
 * `auth-run.ts`; every check of every scenario must be SUCCESS (or INFO, a note rather than a
 * verdict), and each scenario must record its own verdict checks, so a scenario that stopped early
 * cannot pass on the request log alone.
 */
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { expect, it } from "vitest"

const runner = fileURLToPath(new URL("auth-run.ts", import.meta.url))

/** Each extension scenario with the least number of SUCCESS checks it records when it passes. */
const scenarios: ReadonlyArray<readonly [string, number]> = [
  ["auth/client-credentials-basic", 7],
  ["auth/client-credentials-jwt", 7],
  ["auth/enterprise-managed-authorization", 8],
  ["auth/dpop", 13],
  ["auth/dpop-nonce", 15],
  ["auth/wif-jwt-bearer", 7]
]

it("passes every auth extension scenario with no failing, warning or skipped check", () => {
  const run = spawnSync(process.execPath, [runner, ...scenarios.map(([name]) => name)], { encoding: "utf8", timeout: 240_000 })
  const output = `${run.stdout}\n${run.stderr}`
  const lines = output.split("\n").filter((line) => line.startsWith("conformance-auth: auth/"))
  expect(lines, output).toHaveLength(scenarios.length)
  for (const [name, least] of scenarios) {
    const line = lines.find((candidate) => candidate.startsWith(`conformance-auth: ${name}: `))
    expect(line, output).toBeDefined()
    expect(line).not.toMatch(/FAILED|FAILURE|WARNING|SKIPPED/)
    const successes = Number(/SUCCESS (\d+)/.exec(line ?? "")?.[1] ?? 0)
    expect([name, successes >= least], line).toEqual([name, true])
  }
  expect(output).toContain(`conformance-auth: all ${scenarios.length} scenarios passed`)
  expect(run.status, output.slice(-6000)).toBe(0)
}, 250_000)
