/**
 * Counts a package's public surface: the modules its `exports` map resolves (each entry's
 * `@snodo/source`) and the declarations they export, one per `export` statement (`export const`,
 * `function`, `class`, `interface`, `type`, `enum`, each overload signature) and one per name of an
 * `export { … }` list. A barrel's `export * as X from` adds nothing: the module it names is counted
 * where the map lists it. This is how issue 34 measured core's 728 declarations before `internal/`.
 *
 * `node scripts/surface.ts [package…]` prints each package's modules and declarations, the largest
 * modules first with `--modules`.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** One public module and how many declarations it exports. */
export interface Module {
  readonly file: string
  readonly declarations: number
}

/** A package's public modules, by the file each `exports` entry's `@snodo/source` names. */
export const publicModulesOf = (packageDir: string): ReadonlyArray<string> => {
  const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8")) as {
    readonly exports?: Readonly<Record<string, unknown>>
  }
  const files = new Set<string>()
  for (const target of Object.values(manifest.exports ?? {})) {
    if (typeof target !== "object" || target === null) continue
    const source = (target as Readonly<Record<string, unknown>>)["@snodo/source"]
    // A pattern (`./*`) opens every module of its folder: counted by listing the folder's files.
    if (typeof source !== "string") continue
    if (source.includes("*")) {
      const folder = path.join(packageDir, path.dirname(source))
      for (const file of fs.readdirSync(folder, { recursive: true, encoding: "utf8" })) {
        if (file.endsWith(".ts") && !file.split(path.sep).includes("internal")) files.add(path.join(folder, file))
      }
    } else {
      files.add(path.join(packageDir, source))
    }
  }
  return [...files].toSorted()
}

const declaration = /^export (?:declare )?(?:const|function|class|interface|type(?!\s*\{)|enum|abstract class|namespace|let)\b/gm
const list = /^export (?:type )?\{([^}]*)\}/gm

/** The declarations one module's text exports (see the module's comment for what counts). */
export const declarationsOf = (text: string): number => {
  let count = text.match(declaration)?.length ?? 0
  for (const match of text.matchAll(list)) count += match[1]!.split(",").filter((name) => name.trim() !== "").length
  return count
}

/** A package's public modules with their declarations. */
export const surfaceOf = (packageDir: string): ReadonlyArray<Module> =>
  publicModulesOf(packageDir).map((file) => ({ file, declarations: declarationsOf(fs.readFileSync(file, "utf8")) }))

if (import.meta.main) {
  const packages = path.resolve(import.meta.dirname, "../packages")
  const names = process.argv.slice(2).filter((arg) => !arg.startsWith("--"))
  for (const name of names.length > 0 ? names : fs.readdirSync(packages).toSorted()) {
    const surface = surfaceOf(path.join(packages, name))
    const total = surface.reduce((sum, module) => sum + module.declarations, 0)
    console.log(`@snodo/${name}: ${surface.length} public modules, ${total} declarations`)
    if (process.argv.includes("--modules")) {
      for (const module of surface.toSorted((a, b) => b.declarations - a.declarations)) {
        console.log(`  ${String(module.declarations).padStart(4)}  ${path.relative(packages, module.file)}`)
      }
    }
  }
}
