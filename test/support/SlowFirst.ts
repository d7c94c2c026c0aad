/**
 * Vitest's file order for `npm test`: the slowest test files first, so that the two workers do not
 * end with one of them alone on a minute-long file while the other has finished.
 *
 * Vitest orders files by their duration in its last run, from the results it keeps in
 * `node_modules/.vite/vitest/`; a fresh clone (CI's `npm ci`) has none, and then it runs the
 * largest files first, which puts `test/client/HostileFloods.test.ts` (135 lines, ~45 s alone and
 * up to two minutes on a loaded machine) near the end. The files below, the slowest of a full run
 * on a 2-core machine (each over ~7 s there), start first in this order; every other file keeps
 * Vitest's order after them. A file missing from the list costs only its place.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node"

/**
 * The slowest files (paths from the repository root), about slowest first: what each took with its
 * hooks in a full run on a loaded 2-core machine. ClientConformance comes third: its first test
 * starts the conformance client ~33 times at once, which starves whatever runs beside it for tens
 * of seconds on a loaded machine. Started first it would crowd HostileFloods' first row (C1 asserts
 * that the flood ends within 5 s of its start); started after ForeignServers and Consumer it met
 * Consumer's last test, whose client and server must start within 30 s (they did not, once, with
 * the machine's load at 20). After Memory it starts past C1, and its burst is over by the time
 * HostileFloods ends and Consumer, ForeignServers and the rest begin.
 */
export const slowest: ReadonlyArray<string> = [
  "test/client/HostileFloods.test.ts", // 131 s
  "test/http/Memory.test.ts", // 27 s
  "test/conformance/ClientConformance.test.ts", // 143 s
  "test/client/ForeignServers.test.ts", // 43 s (a Python venv made on a fresh clone)
  "test/consumer/Consumer.test.ts", // 41 s
  "test/conformance/Conformance.test.ts", // 30 s
  "test/tasks/ManyInstances.test.ts", // 25 s
  "test/stdio/Overload.test.ts", // 22 s
  "test/tasks/PostgresOutage.test.ts", // 15 s
  "test/tasks/StoreQuota.test.ts", // 13 s
  "test/sessions/ManyInstances.test.ts", // 13 s
  "test/http/OAuth.test.ts", // 11 s
  "test/stdio/Lifetimes.test.ts", // 11 s
  "test/http/Http2.test.ts", // 10 s
  "test/client/Hostile.test.ts", // 8 s
  "test/tasks/SqliteCrash.test.ts", // 7 s
  "packages/postgres/test/SessionCache.test.ts", // 7 s
  "test/sessions/SharedStore.test.ts", // 7 s
  "test/tasks/PostgresInstances.test.ts", // 7 s
  "test/tasks/SqliteFile.test.ts", // 7 s
  "test/conformance/ClientAuth.test.ts" // 7 s
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
