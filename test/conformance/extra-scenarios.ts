/**
 * The client scenarios beyond the scored 2026-07-28 set that `@snodo/client` is held to: the
 * 2025-11-25 client scenarios (which our 2025-11-25 fallback must pass), JSON Schema 2020-12
 * preservation, and the Skills extension's client scenarios (SEP-2640). `runScenario` runs one of
 * them against a client program and returns its checks; run as a script, this prints the
 * comparison table of docs/client.md for our client (`client.ts`) and the official client 2.4.0
 * (`official-client.ts`), from the same run:
 *
 *   node test/conformance/extra-scenarios.ts
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../", import.meta.url))
const suite = join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js")

/** The scenarios, as the runner names them. */
export const scenarios = [
  "initialize",
  "tools_call",
  "elicitation-sep1034-client-defaults",
  "sse-retry",
  "json-schema-2020-12-preservation",
  "sep-2640-client-no-prefetch",
  "sep-2640-client-verify-digest",
  "sep-2640-client-verify-size",
  "sep-2640-client-verify-frontmatter"
] as const

/** The client programs: ours from its sources, the official one as an application runs it. */
export const programs = {
  snodo: `${process.execPath} --conditions=@snodo/source ${join(root, "test/conformance/client.ts")}`,
  official: `${process.execPath} ${join(root, "test/conformance/official-client.ts")}`
} as const

export interface Check {
  readonly id: string
  readonly name: string
  readonly status: string
  readonly errorMessage?: string
}

export interface Outcome {
  readonly scenario: string
  readonly checks: ReadonlyArray<Check>
  /** The runner's output and the client's stdout/stderr (for a failure's message). */
  readonly output: string
}

/** Runs one scenario against `command` (the runner's default spec version for it). */
export const runScenario = (command: string, scenario: string): Promise<Outcome> =>
  new Promise((resolve) => {
    const out = mkdtempSync(join(tmpdir(), "snodo-client-extra-"))
    const child = spawn(process.execPath, [suite, "client", "--command", command, "--scenario", scenario, "--timeout", "60000", "-o", out], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => output += chunk.toString())
    child.stderr.on("data", (chunk: Buffer) => output += chunk.toString())
    child.on("close", () => {
      const folder = readdirSync(out).find((entry) => entry.startsWith(scenario))
      const read = (file: string) => {
        try {
          return readFileSync(join(out, folder ?? "", file), "utf8")
        } catch {
          return ""
        }
      }
      const json = read("checks.json")
      const checks = json === "" ? [] : JSON.parse(json) as ReadonlyArray<Check>
      rmSync(out, { recursive: true, force: true })
      resolve({ scenario, checks, output: `${output}\n${read("stdout.txt")}\n${read("stderr.txt")}` })
    })
  })

/** What the scenario's verdict is: every check that ran passed (INFO and SKIPPED are not verdicts). */
export const problemsOf = (outcome: Outcome): ReadonlyArray<string> => {
  const verdicts = outcome.checks.filter((check) => check.status !== "INFO" && check.status !== "SKIPPED")
  if (!verdicts.some((check) => check.status === "SUCCESS")) return [`${outcome.scenario}: no check passed`]
  return verdicts.filter((check) => check.status !== "SUCCESS").map((check) =>
    `${outcome.scenario}: ${check.name} ${check.status} ${check.errorMessage ?? ""}`
  )
}

const summary = (outcome: Outcome): string => {
  const verdicts = outcome.checks.filter((check) => check.status !== "INFO" && check.status !== "SKIPPED")
  const passed = verdicts.filter((check) => check.status === "SUCCESS").length
  return `${passed}/${verdicts.length}${problemsOf(outcome).length === 0 ? "" : " ✗"}`
}

if (import.meta.main) {
  console.log("| scenario | @snodo/client | official client 2.4.0 |")
  console.log("|---|---|---|")
  for (const scenario of scenarios) {
    const ours = await runScenario(programs.snodo, scenario)
    const theirs = await runScenario(programs.official, scenario)
    console.log(`| \`${scenario}\` | ${summary(ours)} | ${summary(theirs)} |`)
  }
}
