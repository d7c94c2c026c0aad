import { defineConfig } from "vitest/config"

/**
 * Tests run the packages' TypeScript sources, not their build: the `@snodo/source` export
 * condition of every package points at `src/`. Vite's own server conditions stay after it; Vitest
 * also starts its workers with these conditions, so Node resolves them the same way. Processes a
 * test spawns get the condition from `NODE_OPTIONS` (the repository's `.npmrc` sets it for every
 * npm script and `npx`), except where a test passes it on the command line.
 */
const conditions = ["@snodo/source", "module", "node", "development|production"]

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@snodo/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    // Two test files at a time on these 2-core machines (Vitest's default leaves one core idle):
    // most files wait on child processes, sockets and PostgreSQL, not on the CPU.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
