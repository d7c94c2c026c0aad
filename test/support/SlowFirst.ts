/**
 * Vitest's file order for `npm test`: the slowest test files first, so that the two workers do not
 * end with one of them alone on a minute-long file while the other has finished.
 *
 * Vitest orders files by their duration in its last run, from the results it keeps in
 * `node_modules/.vite/vitest/`; a fresh clone (CI's `npm ci`) has none, and then it runs the
 * largest files first, which puts `test/client/HostileFloods.test.ts` (135 lines, ~45 s alone and
 * up to two minutes on a loaded machine) near the end. The files below, the slowest of a full run
 * on a 2-core machine (each over ~8 s there), start first in this order; every other file keeps
 * Vitest's order after them. A file missing from the list costs only its place.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node"

/** The slowest files, slowest first (paths from the repository root). */
export const slowest: ReadonlyArray<string> = [
  "test/client/HostileFloods.test.ts",
  "test/conformance/ClientConformance.test.ts",
  "test/http/Memory.test.ts",
  "test/conformance/Conformance.test.ts",
  "test/client/ForeignServers.test.ts",
  "test/tasks/ManyInstances.test.ts",
  "test/stdio/Overload.test.ts",
  "test/stdio/Lifetimes.test.ts",
  "test/tasks/PostgresOutage.test.ts",
  "test/conformance/ClientAuth.test.ts",
  "packages/postgres/test/SessionCache.test.ts",
  "test/http/OAuth.test.ts",
  "test/sessions/ManyInstances.test.ts",
  "test/consumer/Consumer.test.ts",
  "test/http/Http2.test.ts",
  "test/tasks/StoreQuota.test.ts"
]

/** Vitest's order, with the files of `slowest` moved to the front in its order. */
export class SlowFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    // oxlint-disable-next-line unicorn/no-array-sort -- Vitest's sequencer method, not Array#sort
    const sorted = await super.sort(files)
    const rank = (file: TestSpecification): number => {
      const root = file.project.config.root.replace(/\/?$/, "/")
      const index = slowest.indexOf(file.moduleId.startsWith(root) ? file.moduleId.slice(root.length) : file.moduleId)
      return index === -1 ? slowest.length : index
    }
    // Array.prototype.sort is stable: the files of equal rank (all the unlisted ones) keep Vitest's order.
    return sorted.toSorted((a, b) => rank(a) - rank(b))
  }
}
