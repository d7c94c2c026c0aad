import { readdirSync, rmSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"
import { SlowFirst } from "./test/support/SlowFirst.ts"

/**
 * Tests run the packages' TypeScript sources, not their build: the `@snodo/source` export
 * condition of every package points at `src/`. Vite's own server conditions stay after it; Vitest
 * also starts its workers with these conditions, so Node resolves them the same way. Processes a
 * test spawns get the condition from `NODE_OPTIONS` (the repository's `.npmrc` sets it for every
 * npm script and `npx`), except where a test passes it on the command line.
 */
const conditions = ["@snodo/source", "module", "node", "development|production"]

/** The bytes of the files under a folder (0 when it does not exist). */
function bytesIn(folder: string): number {
  let total = 0
  try {
    for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size
    }
  } catch {
    return total
  }
  return total
}

/**
 * Node's compile cache for the whole run: Vitest's workers (one per test file) load `effect` and
 * the other dependencies natively, and the tests spawn hundreds of Node processes on the sources
 * (clients, servers, the conformance suite's runs); with the cache each compiles a module once per
 * run, not once per process (a file's import took ~25 % less CPU). The cache checks each file's
 * contents, so an edited source is compiled again. Set here, before Vitest starts its workers, so
 * they and every process a test spawns inherit it; `NODE_COMPILE_CACHE` or
 * `NODE_DISABLE_COMPILE_CACHE` set by the caller wins.
 */
if (process.env["NODE_COMPILE_CACHE"] === undefined && process.env["NODE_DISABLE_COMPILE_CACHE"] === undefined) {
  const cache = join(fileURLToPath(new URL(".", import.meta.url)), "node_modules", ".cache", "snodo-compile-cache")
  // Node never drops an entry, and tests run modules from new temporary folders every run: the
  // cache is emptied when it passes 256 MiB (a full run fills an empty one with ~20 MiB).
  if (bytesIn(cache) > 256 * 1024 * 1024) rmSync(cache, { recursive: true, force: true })
  process.env["NODE_COMPILE_CACHE"] = cache
}

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@snodo/source"] } },
  test: {
    // Two test files at a time on these 2-core machines (Vitest's default leaves one core idle):
    // most files wait on child processes, sockets and PostgreSQL, not on the CPU.
    maxWorkers: 2,
    // The slowest files first (test/support/SlowFirst.ts), so that the run does not end on one of them.
    sequence: { sequencer: SlowFirst },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      // Cross-package, end-to-end and interop tests: they spawn processes, bind ports, set the
      // environment of what they spawn; each file in a fresh worker.
      { extends: true, test: { name: "end-to-end", include: ["test/**/*.test.ts"] } },
      // The packages' own tests, in-process against the sources: the files share a worker and its
      // loaded modules (a fresh worker per file spent most of these files' time importing effect
      // and the sources again, ~0.5 s of CPU each). They keep no state between files: no
      // environment, globals or process listeners, every server and client scoped to its test.
      { extends: true, test: { name: "packages", include: ["packages/*/test/**/*.test.ts"], isolate: false } }
    ]
  }
})
