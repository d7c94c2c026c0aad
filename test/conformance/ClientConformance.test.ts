/**
 * The client side of the official conformance suite, in `npm test`: `conformance client
 * --requirements 2026-07-28` runs `test/conformance/client.ts` against each of the revision's
 * client scenarios, and every check of every scored scenario that ran must be SUCCESS (a WARNING
 * or a FAILURE fails the test, naming the scenario and the check; a scenario without a passed check
 * fails too). SKIPPED is the runner's word for a check of a method the client never sent: the
 * `initialize` handshake, which a 2026-07-28 client does not perform. INFO is a note, not a
 * verdict: the `auth/*` scenarios log every request as INFO, and record where the spec leaves the
 * client free (how many authorization attempts, whether `offline_access` was asked for).
 *
 * Beyond the scored set, each scenario of `extra-scenarios.ts` (the 2025-11-25 client scenarios,
 * `json-schema-2020-12-preservation`, the four Skills client scenarios) is held to SUCCESS too.
 *
 * The `auth/*` scenarios run `client.ts` with the OAuth client (`packages/client/src/oauth/`)
 * around its `HttpClient`; `auth-run.ts` prints their check counts one scenario per line.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import * as Extra from "./extra-scenarios.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))
const suite = join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js")
const client = fileURLToPath(new URL("client.ts", import.meta.url))

/** The scored client scenarios of the frozen requirements file. */
const scoredScenarios = (): ReadonlyArray<string> => {
  const yaml = readFileSync(join(root, "node_modules/@modelcontextprotocol/conformance/requirements/2026-07-28.yaml"), "utf8")
  const section = yaml.slice(yaml.indexOf("\nclient:\n"), yaml.indexOf("\nnot_scored:"))
  return [...section.matchAll(/^ {2}- (\S+)$/gm)].map((match) => match[1]!)
}

/** The client's stdout and stderr in each scenario (shown with a failure). */
const stderrs = new Map<string, string>()

interface Check {
  readonly id: string
  readonly name: string
  readonly status: string
  readonly errorMessage?: string
  readonly details?: unknown
}

/** Every `checks.json` under `dir`, by scenario name (`auth/…` for the nested ones), with the client's stderr. */
const checksBy = (dir: string): Map<string, ReadonlyArray<Check>> => {
  const found = new Map<string, ReadonlyArray<Check>>()
  stderrs.clear()
  const walk = (folder: string, prefix: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue
      const path = join(folder, entry.name)
      if (readdirSync(path).includes("checks.json")) {
        const scenario = `${prefix}${entry.name.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "")}`
        found.set(scenario, JSON.parse(readFileSync(join(path, "checks.json"), "utf8")) as ReadonlyArray<Check>)
        const logs = ["stdout.txt", "stderr.txt"].filter((file) => readdirSync(path).includes(file))
        stderrs.set(scenario, logs.map((file) => readFileSync(join(path, file), "utf8")).join("\n"))
      } else {
        walk(path, `${prefix}${entry.name}/`)
      }
    }
  }
  walk(dir, "")
  return found
}

it("passes every check of the 2026-07-28 client requirements, the auth/* scenarios included", () => {
  const output = mkdtempSync(join(tmpdir(), "snodo-client-conformance-"))
  try {
    const run = spawnSync(process.execPath, [
      suite,
      "client",
      "--command",
      `${process.execPath} --conditions=@snodo/source ${client}`,
      "--requirements",
      "2026-07-28",
      "--timeout",
      "120000",
      "-o",
      output
    ], { encoding: "utf8", timeout: 400_000, maxBuffer: 64 * 1024 * 1024 })
    const checks = checksBy(output)
    const held = scoredScenarios()
    expect(held.filter((scenario) => scenario.startsWith("auth/")).length).toBeGreaterThanOrEqual(25)
    expect(held.filter((scenario) => !scenario.startsWith("auth/")).length).toBeGreaterThanOrEqual(7)
    const problems: Array<string> = []
    for (const scenario of held) {
      const results = checks.get(scenario)
      if (results === undefined || !results.some((check) => check.status === "SUCCESS")) {
        problems.push(`${scenario}: no checks ran`)
        continue
      }
      for (const check of results) {
        // a check of a method this era never sends (initialize, on 2026-07-28) did not run
        if (check.status === "SKIPPED" || check.status === "INFO") continue
        if (check.status !== "SUCCESS") {
          problems.push(`${scenario}: ${check.name} ${check.status} ${check.errorMessage ?? ""} ${JSON.stringify(check.details ?? {})} output: ${stderrs.get(scenario)?.slice(-500) ?? ""}`)
        }
      }
    }
    expect(problems, `${run.stdout.slice(-3000)}\n${run.stderr.slice(-2000)}`).toEqual([])
  } finally {
    rmSync(output, { recursive: true, force: true })
  }
}, 420_000)

describe("beyond the scored set: the 2025-11-25 client scenarios, JSON Schema preservation, the Skills client scenarios", () => {
  it.each(Extra.scenarios.map((scenario) => [scenario]))("%s: every check that ran is SUCCESS", async (scenario) => {
    const outcome = await Extra.runScenario(Extra.programs.snodo, scenario)
    expect(Extra.problemsOf(outcome), outcome.output.slice(-3000)).toEqual([])
  }, 120_000)
})
