/**
 * After `tsc -b`: removes from every `packages/<name>/dist` the declarations of a source that no
 * longer exists (a module moved or deleted since the last build). tsc never deletes outputs, and
 * the `exports` map publishes every path under dist/, so a stale file would ship as a module. The
 * JavaScript is `scripts/bundle-dist.ts`'s, which rewrites all of it (and `dist/chunks/`) on every
 * build.
 *
 *   node scripts/prune-dist.ts         # part of `npm run build`
 *   node scripts/prune-dist.ts --all   # `npm run clean`: removes every dist/ (and its tsbuildinfo)
 */
import { existsSync, readdirSync, rmdirSync, rmSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const packages = fileURLToPath(new URL("../packages/", import.meta.url))
const outputs = /\.d\.ts$/

/** Prunes one directory of dist/; answers whether it is empty afterwards. */
const prune = (dist: string, src: string, dir: string): boolean => {
  let left = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) {
      if (dir === dist && entry.name === "chunks") continue
      if (prune(dist, src, path)) rmdirSync(path)
      else left++
      continue
    }
    const source = join(src, relative(dist, path)).replace(outputs, ".ts")
    if (outputs.test(entry.name) && !existsSync(source)) {
      rmSync(path)
      process.stderr.write(`prune-dist: removed ${relative(packages, path)} (no ${relative(packages, source)})\n`)
    } else {
      left++
    }
  }
  return left === 0
}

const all = process.argv.includes("--all")
for (const name of readdirSync(packages)) {
  const dist = join(packages, name, "dist")
  if (!existsSync(dist)) continue
  if (all) rmSync(dist, { recursive: true })
  else prune(dist, join(packages, name, "src"), dist)
}
