/**
 * Runs every `auth/*` client scenario the 2026-07-28 requirements list (read from the suite's own
 * `requirements/2026-07-28.yaml`, so a scenario added there is run here), and the client
 * credentials extension's `auth/client-credentials-basic`, against
 * the conformance client (`client.ts`, `@snodo/client` with its OAuth client), a few at a time, each alone with `--spec-version 2026-07-28`, and prints one
 * line per scenario with its check counts by status:
 *
 *   conformance-auth: auth/metadata-default: 18 checks, SUCCESS 18
 *
 * A scenario fails on any check whose status is neither SUCCESS nor INFO (INFO checks record
 * what a client chose where the spec leaves it free, like `offline_access` not being asked for,
 * or number attempts; they are not verdicts), or on no check at all. The last line says
 * `conformance-auth: all N scenarios passed` or lists the failures; the exit code follows.
 *
 *   node test/conformance/auth-run.ts                                  # every one
 *   node test/conformance/auth-run.ts auth/client-credentials-basic    # some
 *   node test/conformance/auth-run.ts --official                       # the official client 2.4.0
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { parse } from "yaml"

const root = fileURLToPath(new URL("../../", import.meta.url))
const suite = join(root, "node_modules/@modelcontextprotocol/conformance")
const requirements = parse(readFileSync(join(suite, "requirements/2026-07-28.yaml"), "utf8")) as { readonly client: ReadonlyArray<string> }
const required = requirements.client.filter((name) => name.startsWith("auth/"))
/** Extension scenarios run too (forced to 2026-07-28, the extension being off the spec timeline). */
const extensions = [
  "auth/client-credentials-basic",
  "auth/client-credentials-jwt",
  "auth/enterprise-managed-authorization",
  "auth/dpop",
  "auth/dpop-nonce",
  "auth/wif-jwt-bearer"
]
/** `--official`: run the official client 2.4.0 (`official-auth-client.ts`) instead of ours. */
const official = process.argv.includes("--official")
const named = process.argv.slice(2).filter((arg) => arg !== "--official")
/** The scenarios named on the command line, else every one. */
const scenarios = named.length > 0 ? named : [...required, ...extensions]
const program = official ? "test/conformance/official-auth-client.ts" : "test/conformance/client.ts"
const command = `${process.execPath} --conditions=@snodo/source ${join(root, program)}`
const results = mkdtempSync(join(tmpdir(), "snodo-conformance-auth-"))
process.on("exit", () => rmSync(results, { recursive: true, force: true }))

interface Check {
  readonly id: string
  readonly status: string
  readonly description: string
}

/** Runs one scenario; resolves with its checks (from `checks.json`) and the runner's output. */
const run = (scenario: string) =>
  new Promise<{ readonly checks: ReadonlyArray<Check>; readonly output: string }>((resolve) => {
    const out = join(results, scenario.replace("/", "-"))
    const child = spawn(process.execPath, [
      join(suite, "dist/index.js"),
      "client",
      "--command",
      command,
      "--scenario",
      scenario,
      "--spec-version",
      "2026-07-28",
      ...(extensions.includes(scenario) ? ["--force"] : []),
      "-o",
      out
    ], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => void (output += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => void (output += chunk))
    child.once("exit", () => {
      // The suite writes `<out>/<scenario>-<timestamp>/checks.json`.
      const found = readdirSync(out, { recursive: true, encoding: "utf8" }).find((file) => file.endsWith("checks.json"))
      const checks = found === undefined ? [] : JSON.parse(readFileSync(join(out, found), "utf8")) as Array<Check>
      resolve({ checks, output })
    })
  })

const failed: Array<string> = []
const pending = [...scenarios]
const worker = async () => {
  for (let scenario = pending.shift(); scenario !== undefined; scenario = pending.shift()) {
    const { checks, output } = await run(scenario)
    const counts = new Map<string, number>()
    for (const check of checks) counts.set(check.status, (counts.get(check.status) ?? 0) + 1)
    const bad = checks.filter((check) => check.status !== "SUCCESS" && check.status !== "INFO")
    const summary = [...counts].toSorted().map(([status, count]) => `${status} ${count}`).join(", ")
    // INFO checks other than the request log (`incoming-*`, `outgoing-*`) are named.
    const notes = checks.filter((check) => check.status === "INFO" && !/^(incoming|outgoing)-/.test(check.id)).map((check) => check.id)
    const noted = notes.length === 0 ? "" : ` (INFO: ${notes.join(", ")})`
    process.stdout.write(`conformance-auth: ${scenario}: ${checks.length} checks, ${summary}${noted}${bad.length > 0 || checks.length === 0 ? " FAILED" : ""}\n`)
    if (bad.length > 0 || checks.length === 0) {
      failed.push(scenario)
      for (const check of bad) process.stdout.write(`  ${check.status} ${check.id}: ${check.description}\n`)
      if (checks.length === 0) process.stdout.write(output)
    }
  }
}
await Promise.all([worker(), worker(), worker()])
process.stdout.write(
  failed.length === 0
    ? `conformance-auth: all ${scenarios.length} scenarios passed\n`
    : `conformance-auth: failed: ${failed.join(", ")}\n`
)
process.exitCode = failed.length === 0 ? 0 : 1
