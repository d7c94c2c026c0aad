/**
 * One of the first steps of `npm test` (beside the build and the checks, `scripts/test.ts`): the
 * system programs some tests drive, installed when they are missing and this machine lets us (root
 * with Debian's `apt-get`, as CI and the development machines are), or named with the command to
 * install them and the tests that will fail without.
 *
 *   node scripts/system-deps.ts            # install what is missing (when root), report the rest
 *   node scripts/system-deps.ts --check    # report only, install nothing
 *
 * npm cannot bring these: Chromium for the MCP Apps browser test (`playwright-core` drives
 * Debian's build; `npx playwright install` downloads one, which the network here refuses), nginx
 * for the reverse-proxy test, `h2load` for the HTTP/2 bench rows (the bench only, never a test).
 * It never fails the run by itself: a missing program fails the tests that need it, by name.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"

interface Program {
  /** What the tests call it. */
  readonly name: string
  /** Where it may be installed. */
  readonly paths: ReadonlyArray<string>
  /** Debian's package. */
  readonly debian: string
  /** Who needs it. */
  readonly neededBy: string
}

const programs: ReadonlyArray<Program> = [
  { name: "chromium", paths: ["/usr/bin/chromium"], debian: "chromium", neededBy: "test/apps/Browser.test.ts" },
  { name: "nginx", paths: ["/usr/sbin/nginx", "/usr/bin/nginx"], debian: "nginx-light", neededBy: "test/http/Nginx.test.ts" },
  { name: "h2load", paths: ["/usr/bin/h2load"], debian: "nghttp2-client", neededBy: "npm run bench (the HTTP/2 rows)" }
]

const installed = (program: Program): boolean => program.paths.some((path) => existsSync(path))

const canInstall = (): boolean =>
  process.platform === "linux" && process.getuid?.() === 0 && spawnSync("sh", ["-c", "command -v apt-get"]).status === 0

const main = () => {
  const missing = programs.filter((program) => !installed(program))
  if (missing.length === 0) return
  const packages = missing.map((program) => program.debian)
  if (!process.argv.includes("--check") && canInstall()) {
    process.stderr.write(`system-deps: installing ${packages.join(", ")} with apt-get\n`)
    try {
      execFileSync("apt-get", ["update"], { stdio: ["ignore", "ignore", "inherit"] })
      execFileSync("apt-get", ["install", "-y", ...packages], { stdio: ["ignore", "ignore", "inherit"] })
    } catch (error) {
      process.stderr.write(`system-deps: apt-get failed (${String(error)})\n`)
    }
  }
  for (const program of missing.filter((candidate) => !installed(candidate))) {
    process.stderr.write(
      `system-deps: ${program.name} is missing: ${program.neededBy} will fail. Install it with: apt-get install -y ${program.debian}\n`
    )
  }
}

main()
