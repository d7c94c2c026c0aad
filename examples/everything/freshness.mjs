/**
 * Whether the everything server's bundle in `.bundle/` was built from the files as they are now:
 * `.bundle/inputs.json`, written by `./bundle.ts`, lists `[path, size, mtimeMs]` for each source
 * file the bundle was built from and for npm's installation record
 * (`node_modules/.package-lock.json`, rewritten by every install), and the bundle is fresh while
 * each still has its recorded size and modification time (~190 `stat` calls). JavaScript, with
 * its types in `./freshness.d.mts`: `./main.mjs` loads it at every start, before the compile
 * cache could cover a TypeScript module.
 */
import { readFileSync, statSync } from "node:fs"

/** The folder the bundle is written to. */
export const bundleDirectory = new URL(".bundle/", import.meta.url)

/** The bundle's entry. */
export const bundleEntry = new URL("everything.mjs", bundleDirectory)

/** Where the inputs of the bundle on disk are listed. */
export const inputsFile = new URL("inputs.json", bundleDirectory)

export const bundleIsFresh = () => {
  try {
    statSync(bundleEntry)
    /** @type {ReadonlyArray<readonly [string, number, number]>} */
    const inputs = JSON.parse(readFileSync(inputsFile, "utf8"))
    for (const [path, size, mtimeMs] of inputs) {
      const stat = statSync(path)
      if (stat.size !== size || stat.mtimeMs !== mtimeMs) return false
    }
    return inputs.length > 0
  } catch {
    return false
  }
}
