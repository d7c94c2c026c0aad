/**
 * After `tsc -b` (which emits only declarations): writes every package's JavaScript into its
 * `dist/`, with Rollup (the WebAssembly build: no native addon) and esbuild's TypeScript
 * transform. Other packages (effect, `@snodo/*`, anything under node_modules) stay imports.
 *
 * Why: Node's ES module loader pays per file (resolve, read, stat the package scope, link), and
 * that is a large part of a cold start. A one-tool stdio server loaded 87 files of `@snodo/core`
 * when each source module was a file, 14 with a chunk per folder, and now 4 (and 2 of
 * `@snodo/protocol`, where it loaded 20). The modules that any public module needs at load time
 * share one chunk per package (a server needs nearly all of them anyway), and every public module
 * (each path of the `exports` map) is a file that re-exports its part of that chunk. Every module
 * still has exactly one copy, so a service tag or class is the same object through whichever path
 * a program imports it. The other packages import `@snodo/protocol` through its root entry
 * (`protocolRoot` below).
 *
 * What stays lazy stays lazy: a module loaded by `import()` (the JSON Schema engine, the stdio
 * streams, `McpEvents`' hub), and what only such a module needs, are left out of the eager chunk, so they
 * are still loaded and evaluated only when the `import()` runs.
 *
 *   node scripts/bundle-dist.ts   # part of `npm run build`, after tsc and before effect-imports
 *
 * Source maps point into the TypeScript sources (their text included, as tsc's did).
 */
import { rollup, type GetModuleInfo, type Plugin } from "@rollup/wasm-node"
import * as esbuild from "esbuild"
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"

const packages = fileURLToPath(new URL("../packages/", import.meta.url))

/** An `exports` entry that has a source (`@snodo/source`) and a build (`default`). */
type Target = { readonly "@snodo/source": string; readonly default: string }

const isTarget = (value: unknown): value is Target =>
  typeof value === "object" && value !== null && "@snodo/source" in value && "default" in value

/** Every source file under `dir`, as paths relative to it, without `internal/` folders. */
const publicSources = (dir: string, prefix = ""): ReadonlyArray<string> =>
  readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`
    if (entry.isDirectory()) return entry.name === "internal" ? [] : publicSources(dir, path)
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : []
  })

/**
 * The public modules of a package, `{ [path under dist/ without ".js"]: source file }`: each
 * module its `exports` map publishes (a `./*` pattern publishes every source file outside
 * `internal/`).
 */
const entryPoints = (dir: string): Record<string, string> => {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { readonly exports: Readonly<Record<string, unknown>> }
  const entries: Record<string, string> = {}
  for (const target of Object.values(manifest.exports)) {
    if (!isTarget(target)) continue
    const source = target["@snodo/source"]
    const output = target.default
    if (!source.startsWith("./src/") || !output.startsWith("./dist/")) {
      throw new Error(`${relative(packages, dir)}: exports entry ${source} → ${output} is not ./src/… → ./dist/…`)
    }
    const name = (path: string) => path.slice("./dist/".length, -".js".length)
    if (!source.includes("*")) {
      entries[name(output)] = join(dir, source)
      continue
    }
    for (const path of publicSources(join(dir, "src"))) {
      entries[name(output.replace("*", path.slice(0, -".ts".length)))] = join(dir, "src", path)
    }
  }
  return entries
}

/** Relative imports name `./X.ts` or `./X.js` for a source `X.ts`; everything else is external. */
const typescript: Plugin = {
  name: "snodo-typescript",
  resolveId(source, importer) {
    if (importer === undefined || !source.startsWith(".")) return null
    const path = resolve(dirname(importer), source)
    return path.endsWith(".js") && !existsSync(path) ? `${path.slice(0, -".js".length)}.ts` : path
  },
  async transform(code, id) {
    if (!id.endsWith(".ts")) return null
    const output = await esbuild.transform(code, {
      loader: "ts",
      format: "esm",
      target: "es2024", // the packages' tsconfig target, as tsc emitted
      tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
      sourcemap: "external",
      sourcefile: id
    })
    return { code: output.code, map: output.map }
  }
}

/** The modules of a package's `src` that some module of it loads with `import()`, as absolute paths. */
const lazyModules = (src: string): ReadonlySet<string> => {
  const found = new Set<string>()
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith(".ts")) {
        // Comments (a doc example's `import("./X.ts")`) name no lazy module.
        const code = readFileSync(path, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "")
        for (const [, from] of code.matchAll(/import\(\s*"(\.[^"]+)"\s*\)/g)) found.add(resolve(folder, from!))
      }
    }
  }
  walk(src)
  return found
}

/**
 * Public modules that a server loads only when its own code imports them, by package (paths under
 * `src/`): kept out of the eager chunk as a module loaded by `import()` is, with what only they
 * need, so a server that does not import them does not read or parse them at start; one that does
 * loads them from their own file (and a chunk of what they share with a lazy module). Nothing else
 * of the package imports them at load time (the build checks: a module of the eager chunk that
 * imports one would load it at every start anyway).
 *
 * - core's `Input` (the asks of a handler that elicits, samples or lists roots: its forms and
 *   their checks). The runtime needs only the session service, `mrtr/internal/McpInput`.
 */
const apart: Readonly<Record<string, ReadonlyArray<string>>> = {
  core: ["mrtr/Input.ts"]
}

/**
 * Where each public module of every package is re-exported by one of that package's barrels (its
 * root-level entries, `index.ts` first): `"@snodo/protocol/wire/Tools"` → `["@snodo/protocol",
 * "Tools"]`, `"@snodo/core/transport/ServerRuntime"` → `["@snodo/core/transport", "ServerRuntime"]`.
 */
const barrelOf = (): ReadonlyMap<string, readonly [specifier: string, name: string]> => {
  const found = new Map<string, readonly [string, string]>()
  for (const dir of readdirSync(packages)) {
    const manifestPath = join(packages, dir, "package.json")
    if (!existsSync(manifestPath)) continue
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { readonly name: string; readonly exports: Readonly<Record<string, unknown>> }
    const sources = new Map<string, string>() // specifier → source path under the package
    const barrels: Array<readonly [string, string]> = [] // [specifier, source]
    for (const [key, target] of Object.entries(manifest.exports)) {
      if (!isTarget(target)) continue
      const source = target["@snodo/source"]
      const specifier = key === "." ? manifest.name : `${manifest.name}/${key.slice(2)}`
      if (source.includes("*")) {
        for (const path of publicSources(join(packages, dir, "src"))) {
          sources.set(specifier.replace("*", path.slice(0, -".ts".length)), `./src/${path}`)
        }
        continue
      }
      sources.set(specifier, source)
      if (/^\.\/src\/[^/]+\.ts$/.test(source)) barrels.push([specifier, source])
    }
    barrels.sort(([a], [b]) => (a === manifest.name ? -1 : b === manifest.name ? 1 : 0))
    // A barrel that re-exports (by name or as a namespace) a module the package loads with
    // `import()`, or one it keeps `apart`, imports that module's files at once: an import through
    // it would load them too (the root entry re-exports `BasicJsonSchema` and `Input`), so imports
    // of its modules keep their own paths.
    const lazy = new Set([...lazyModules(join(packages, dir, "src")), ...(apart[dir] ?? []).map((path) => join(packages, dir, "src", path))])
    const eagerBarrels = barrels.filter(([, source]) =>
      ![...readFileSync(join(packages, dir, source), "utf8").matchAll(/^export (?:\{[^}]*\}|\*(?: as \w+)?) from "(\.\/[^"]+)"/gm)]
        .some(([, from]) => lazy.has(resolve(join(packages, dir, "src"), from!)))
    )
    // A barrel's `export * as Name from "./path.ts"` (or from another package's module).
    const reexports = new Map<string, readonly [string, string]>() // source or specifier → [barrel, name]
    for (const [barrel, source] of eagerBarrels) {
      for (const [, name, from] of readFileSync(join(packages, dir, source), "utf8").matchAll(/^export \* as (\w+) from "([^"]+)"/gm)) {
        const key = from!.startsWith("./") ? `./src/${from!.slice(2)}` : from!
        if (!reexports.has(key)) reexports.set(key, [barrel, name!])
      }
    }
    for (const [specifier, source] of sources) {
      // A public module that is only `export * from "<another package's module>"` (core's McpError).
      const forwarded = /^export \* from "([^"]+)"$/m.exec(readFileSync(join(packages, dir, source), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").trim())
      const through = reexports.get(source) ?? (forwarded === null ? undefined : reexports.get(forwarded[1]!))
      if (through !== undefined && through[0] !== specifier) found.set(specifier, through)
    }
  }
  return found
}

/**
 * Imports of another snodo package's modules by path become imports from the barrel that
 * re-exports them as a namespace (`import * as Tools from "@snodo/protocol/wire/Tools"` becomes
 * `import { Tools } from "@snodo/protocol"`; named imports are read from that namespace). A
 * stdio server loaded 16 files of `@snodo/protocol` that only re-exported parts of its chunk,
 * and an HTTP server 8 such files of `@snodo/core` besides; a barrel is one file for all of them.
 * Each statement stays on its line, so source maps keep their lines. Runs on esbuild's output,
 * which writes every static import on one line and turns re-exports into imports.
 */
const throughBarrels = (own: string): Plugin => {
  const barrels = barrelOf()
  return {
    name: "snodo-through-barrels",
    transform(code, id) {
      if (!id.endsWith(".ts")) return null
      let count = 0
      const rewritten = code.replace(
        /^import (\* as (\w+)|\{([^}]*)\}) from "(@snodo\/[\w-]+\/[\w/-]+)";$/gm,
        (statement, _clause: string, namespace: string | undefined, names: string | undefined, specifier: string) => {
          const through = barrels.get(specifier)
          if (through === undefined || specifier.startsWith(`${own}/`)) return statement
          const [barrel, name] = through
          if (namespace !== undefined) return `import { ${name === namespace ? name : `${name} as ${namespace}`} } from "${barrel}";`
          const local = `__snodo_${name}_${count++}`
          const bindings = names!.split(",").map((part) => part.trim()).filter((part) => part !== "")
            .map((entry) => entry.replace(/^(\w+)\s+as\s+(\w+)$/, "$1: $2"))
          return `import { ${name} as ${local} } from "${barrel}"; const { ${bindings.join(", ")} } = ${local};`
        }
      )
      return rewritten === code ? null : { code: rewritten, map: null }
    }
  }
}

/**
 * The chunk of a module in a folder (the packages with floors: protocol, core): the package's one
 * eager chunk, when a public module needs it at load time; otherwise (a module loaded by
 * `import()`, or needed only by one) Rollup's choice, so it stays lazy. Modules at the root of
 * `src/` (the barrels; every module of the packages without floors, such as `@snodo/http`) are
 * chunked by Rollup, by the entries that need them: one chunk for all of `@snodo/http` made
 * `NodeServe` load Effect's HTTP server modules (50 more of effect's), which it does not need.
 * Except what `NodeServe` (the one-call server) needs at load time: one chunk of its own, so that
 * it is one file and that chunk (Rollup's cut by entries made it 13 files).
 */
const eagerChunk = (src: string, entries: ReadonlyArray<string>) => {
  let eager: Set<string> | undefined
  let served: Set<string> | undefined
  const server = join(src, "NodeServe.ts")
  const optional = new Set((apart[relative(packages, dirname(src))] ?? []).map((path) => join(src, path)))
  const eagerModules = (info: GetModuleInfo, from: ReadonlyArray<string>): Set<string> => {
    const found = new Set<string>()
    const isLazy = (id: string) => (info(id)?.dynamicImporters.length ?? 0) > 0 || optional.has(id)
    const pending = from.filter((id) => !isLazy(id))
    while (pending.length > 0) {
      const id = pending.pop()!
      if (found.has(id)) continue
      found.add(id)
      for (const imported of info(id)?.importedIds ?? []) {
        if (info(imported)?.isExternal === false && !isLazy(imported)) pending.push(imported)
      }
    }
    return found
  }
  return (id: string, { getModuleInfo }: { readonly getModuleInfo: GetModuleInfo }): string | undefined => {
    if (eager === undefined) {
      eager = eagerModules(getModuleInfo, entries)
      for (const module of eager) {
        if (relative(src, module).split(sep).length === 1) continue // a barrel: a file of its own
        const imported = getModuleInfo(module)?.importedIds.find((other) => optional.has(other))
        if (imported !== undefined) {
          throw new Error(`${relative(packages, module)} imports ${relative(packages, imported)} at load time, which bundle-dist's \`apart\` keeps out of the eager chunk`)
        }
      }
    }
    if (!eager.has(id)) return undefined
    if (relative(src, id).split(sep).length > 1) return "eager"
    // `@snodo/http`'s one-call server: every module it needs at load time in one chunk, which the
    // other entries that need some of it (`McpHttp`, `NodeEndpoint`) load whole.
    served ??= entries.includes(server) ? eagerModules(getModuleInfo, [server]) : new Set()
    return served.has(id) ? "NodeServe" : undefined
  }
}

/**
 * Rollup writes the namespace object of a module it bundles (`export * as Meta from …` in a
 * package's root entry, which the other packages import: `import { Meta } from "@snodo/protocol"`)
 * as `Object.freeze({ __proto__: null, … })`. V8 makes an object literal with a null prototype a
 * dictionary-mode object, so every `Meta.X` read on a hot path is a generic load with a dictionary
 * lookup (~70 instructions). This writes the same object, frozen, with a null prototype, from an
 * ordinary literal (`Object.freeze(Object.setPrototypeOf({ … }, null))`), which keeps its fast
 * properties. Lines stay where they were (the `__proto__` line is left empty), so the source map
 * still holds.
 */
const fastNamespaces: Plugin = {
  name: "snodo-fast-namespaces",
  renderChunk: (code) => {
    // `{`, `__proto__: null,` (no comma when the namespace is empty), the members, `});`.
    const rewritten = code.replace(
      /\/\*#__PURE__\*\/Object\.freeze\(\{\n(\s*)__proto__: null,?\n([\s\S]*?)\}\);/g,
      (_, indent: string, members: string) => `/*#__PURE__*/Object.freeze(/*#__PURE__*/Object.setPrototypeOf({\n${indent}\n${members}}, null));`
    )
    const missed = rewritten.search(/Object\.freeze\(\{\s*__proto__: null/)
    if (missed >= 0) throw new Error(`fastNamespaces: a namespace object not recognised: ${rewritten.slice(missed, missed + 120)}`)
    return rewritten === code ? null : { code: rewritten, map: null }
  }
}

/**
 * A public module whose code is in a chunk (a facade: `export { … } from "../chunks/X.js"`) gets
 * from Rollup a bare `import "…"` of each chunk its module's dependencies are in, to keep their
 * evaluation order. The packages declare `"sideEffects": false` and each chunk imports its own
 * dependencies, so those imports order nothing; a bundler that reads `sideEffects` drops them and
 * warns about each (esbuild's `ignored-bare-import`, at every build of a server that imports the
 * module, or a module that loads it by `import()`, as `McpServer` loads `BasicJsonSchema`). They are
 * removed from facades (lines stay, so the source map holds).
 */
const facadesWithoutBareImports: Plugin = {
  name: "snodo-facades-without-bare-imports",
  renderChunk: (code, chunk) => {
    if (!chunk.isEntry || Object.keys(chunk.modules).some((id) => chunk.modules[id]!.renderedLength > 0)) return null
    const rewritten = code.replace(/^import '\.[^']*';$/gm, "")
    return rewritten === code ? null : { code: rewritten, map: null }
  }
}

/** Removes the JavaScript (and its maps) of an earlier build; declarations stay. */
const removeJavaScript = (dir: string): void => {
  if (!existsSync(dir)) return
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) removeJavaScript(path)
    else if (entry.endsWith(".js") || entry.endsWith(".js.map")) rmSync(path)
  }
}

const bundle = async (dir: string): Promise<void> => {
  const dist = join(dir, "dist")
  const input = entryPoints(dir)
  removeJavaScript(dist)
  rmSync(join(dist, "chunks"), { recursive: true, force: true })
  const build = await rollup({
    input,
    external: (id) => !id.startsWith(".") && !id.startsWith("/"),
    plugins: [typescript, throughBarrels(`@snodo/${relative(packages, dir)}`)],
    // As the packages declare (`"sideEffects": false`): importing a module only for its effects
    // does nothing.
    treeshake: { moduleSideEffects: false },
    onwarn: (warning, warn) => {
      if (warning.code === "EMPTY_BUNDLE") return
      // A namespace a module imports only for its types was a namespace import (`import * as`)
      // that Rollup dropped silently; as a name of the root entry it is reported. Dropped all the same.
      if (warning.code === "UNUSED_EXTERNAL_IMPORT" && warning.exporter?.startsWith("@snodo/") === true) return
      warn(warning)
    }
  })
  await build.write({
    dir: dist,
    format: "es",
    sourcemap: true,
    hoistTransitiveImports: false,
    entryFileNames: "[name].js",
    chunkFileNames: "chunks/[name]-[hash].js",
    plugins: [fastNamespaces, facadesWithoutBareImports],
    manualChunks: eagerChunk(join(dir, "src"), Object.values(input))
  })
  await build.close()
}

/**
 * Writes `dist/package.json`, the package scope of every built file: the manifest's `type` and
 * `sideEffects` only (what Node and bundlers read of a file's nearest `package.json`).
 *
 * Why: Node resolves every bare import of every module again, even of a module already loaded, and
 * each time it reads the importer's nearest `package.json` and parses its `exports` map (to see
 * whether the import names the importer's own package). `@snodo/core`'s map lists every public
 * module with its conditions (10.9 KB, ~220 objects to build at each parse), and its eager chunk
 * imports 26 effect modules: a one-tool stdio server parsed it ~30 times. With this scope file
 * between the built files and the manifest, that parse reads a two-field object, and a package's
 * `exports` map is parsed only when something imports the package (one-tool stdio server by module
 * path: -9 M instructions, bench/PROFILE.md). No built file imports its own package by name, which
 * would need the manifest's `name` and `exports` in scope.
 */
const writeScope = (dir: string): void => {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { readonly name: string; readonly type?: string; readonly sideEffects?: unknown }
  const selfImport = new RegExp(`from ["']${manifest.name}["'/]`)
  const files = (folder: string): ReadonlyArray<string> =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(join(folder, entry.name)) : entry.name.endsWith(".js") ? [join(folder, entry.name)] : []
    )
  const importer = files(join(dir, "dist")).find((file) => selfImport.test(readFileSync(file, "utf8")))
  if (importer !== undefined) throw new Error(`${relative(packages, importer)} imports ${manifest.name} by name, which its dist/package.json scope cannot resolve`)
  const scope = { type: manifest.type, sideEffects: manifest.sideEffects }
  writeFileSync(join(dir, "dist", "package.json"), `${JSON.stringify(scope, null, 2)}\n`)
}

for (const name of readdirSync(packages)) {
  const dir = join(packages, name)
  if (!existsSync(join(dir, "package.json"))) continue
  await bundle(dir)
  writeScope(dir)
}
