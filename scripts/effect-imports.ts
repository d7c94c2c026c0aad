/**
 * After `tsc -b`: rewrites the emitted JavaScript's imports of effect's barrels into imports of
 * the modules they re-export, so that loading a snodo package loads only the effect modules it
 * uses. `import { Effect, Schema } from "effect"` becomes
 * `import * as Effect from "effect/Effect"; import * as Schema from "effect/Schema";` (the same
 * module namespace objects the barrel re-exports), on the same line, so source maps keep their
 * lines. The barrel `effect` re-exports every module of the package (~250 with what they import):
 * an application that imports effect by module path (`effect/Effect`) starts noticeably faster
 * when our packages do the same. Sources keep the barrel imports.
 *
 *   node scripts/effect-imports.ts   # part of `npm run build`; idempotent
 *
 * A name that a barrel does not re-export from one module fails the build, naming the file.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const packages = fileURLToPath(new URL("../packages/", import.meta.url))
const effectRoot = dirname(createRequire(import.meta.url).resolve("effect/package.json"))
const effectExports = (JSON.parse(readFileSync(join(effectRoot, "package.json"), "utf8")) as { readonly exports: Readonly<Record<string, unknown>> }).exports

/** What a barrel re-exports: a namespace (`export * as X from "./X.js"`) or a name of one module. */
type Target = { readonly _tag: "Namespace"; readonly module: string } | { readonly _tag: "Named"; readonly module: string; readonly name: string }

const barrels = new Map<string, ReadonlyMap<string, Target> | undefined>()

/** The re-exports of the barrel `specifier` ("effect", "effect/http", …), or undefined if it is no barrel. */
const barrel = (specifier: string): ReadonlyMap<string, Target> | undefined => {
  if (barrels.has(specifier)) return barrels.get(specifier)
  const subpath = specifier === "effect" ? "." : `./${specifier.slice("effect/".length)}`
  const target = effectExports[subpath]
  let table: Map<string, Target> | undefined
  if (typeof target === "string" && target.endsWith("/index.js")) {
    const source = readFileSync(join(effectRoot, target), "utf8").replace(/\/\*[\s\S]*?\*\//g, "")
    table = new Map()
    for (const [, name, module] of source.matchAll(/export \* as (\w+) from "\.\/([\w/]+)\.js";/g)) {
      table.set(name!, { _tag: "Namespace", module: `${specifier}/${module!}` })
    }
    for (const [, names, module] of source.matchAll(/export \{([^}]*)\} from "\.\/([\w/]+)\.js";/g)) {
      for (const entry of names!.split(",").map((part) => part.trim()).filter((part) => part !== "")) {
        const [imported, exported = imported] = entry.split(/\s+as\s+/)
        table.set(exported!, { _tag: "Named", module: `${specifier}/${module!}`, name: imported! })
      }
    }
  }
  barrels.set(specifier, table)
  return table
}

const rewrite = (file: string, code: string): string =>
  code.replace(/^import \{([^}]*)\} from (["'])(effect(?:\/[\w-]+)?)\2;$/gm, (statement, names: string, _quote: string, specifier: string) => {
    const table = barrel(specifier)
    if (table === undefined) return statement
    return names.split(",").map((part) => part.trim()).filter((part) => part !== "").map((entry) => {
      const [imported, local = imported] = entry.split(/\s+as\s+/)
      const target = table.get(imported!)
      if (target === undefined) throw new Error(`${relative(packages, file)}: "${specifier}" re-exports no ${imported} from one module`)
      return target._tag === "Namespace"
        ? `import * as ${local!} from "${target.module}";`
        : `import { ${target.name === local ? local : `${target.name} as ${local!}`} } from "${target.module}";`
    }).join(" ")
  })

const visit = (dir: string): void => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) visit(path)
    else if (entry.name.endsWith(".js")) {
      const code = readFileSync(path, "utf8")
      const rewritten = rewrite(path, code)
      if (rewritten !== code) writeFileSync(path, rewritten)
    }
  }
}

for (const name of readdirSync(packages)) {
  const dist = join(packages, name, "dist")
  try {
    visit(dist)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
  }
}
