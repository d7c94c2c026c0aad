/**
 * After `effect-imports.ts`: the other packages take the effect modules that `@snodo/protocol`'s
 * eager chunk already imports, and the protocol's own modules, from one internal entry of the
 * protocol (`@snodo/protocol/internal/shared`, the build's `dist/chunks/shared.js`), so that Node resolves
 * each of those effect modules once for the protocol instead of once more for every file that
 * imports it.
 *
 * Why: Node resolves every bare specifier of every module again, even of a module already loaded
 * (it reads the importer's `package.json` and parses its `exports` map, then the imported
 * package's, then checks the file): ~0.5-1 M instructions each, dearer from `@snodo/core`'s files
 * (its manifest lists every public module). `@snodo/core`'s eager chunk imported 26 effect modules,
 * 13 of them also imported by the protocol's chunk; a one-tool stdio server resolved them twice.
 *
 * What changes, in the built JavaScript only (sources keep their imports):
 *
 * - the protocol's eager chunk also exports the namespaces of the effect modules it imports
 *   (`export { Schema as __effect_Schema }`);
 * - `dist/chunks/shared.js` re-exports what the root entry exports, those namespaces, and the
 *   namespace of each protocol module another package imports by its path
 *   (`__snodo_peer_Immediate`);
 * - in every other package, a file with two or more such imports takes them from the shared
 *   entry: `import * as Schema from "effect/Schema"` becomes
 *   `import { __effect_Schema as Schema } from "@snodo/protocol/internal/shared"`, a named import
 *   `import { dual } from "effect/Function"` reads the namespace (`const { dual } = …`), and an
 *   import of the root entry or of a protocol module's path names the shared entry instead. Each
 *   statement stays on its line, so source maps keep their lines.
 *
 * The namespaces are the same module namespace objects, so every tag and class keeps its identity.
 * The effect modules the protocol's chunk does not import are still imported by each file itself:
 * taking them from the shared entry would make every user of the protocol (a client) load them.
 *
 *   node scripts/shared-imports.ts   # part of `npm run build`, after effect-imports.ts; idempotent
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const packages = fileURLToPath(new URL("../packages/", import.meta.url))
const protocolDist = join(packages, "protocol", "dist")

/** The specifier of the shared entry (the protocol's `exports` map names it). */
export const sharedSpecifier = "@snodo/protocol/internal/shared"

/** `effect/unstable/http/HttpServer` → `__effect_unstable_http_HttpServer`. */
const effectName = (module: string) => `__effect_${module.replaceAll("/", "_")}`
/** `peer/Immediate` → `__snodo_peer_Immediate`. */
const protocolName = (path: string) => `__snodo_${path.replaceAll("/", "_")}`

const namespaceImport = /import \* as ([\w$]+) from (["'])effect\/([\w/-]+)\2;/g
const statement = /import (\* as ([\w$]+)|\{([^}]*)\}) from (["'])(effect\/[\w/-]+|@snodo\/protocol(?:\/[\w/-]+)?)\4;/g

/** The protocol's eager chunk, made to export its effect namespaces; returns those modules. */
const exportNamespaces = (): { readonly chunk: string; readonly modules: ReadonlySet<string> } => {
  const chunk = readdirSync(join(protocolDist, "chunks")).find((file) => file.startsWith("eager-") && file.endsWith(".js"))
  if (chunk === undefined) throw new Error("@snodo/protocol has no eager chunk")
  const path = join(protocolDist, "chunks", chunk)
  const code = readFileSync(path, "utf8")
  const locals = new Map<string, string>() // effect module → local name in the chunk
  for (const [, local, , module] of code.matchAll(namespaceImport)) locals.set(module!, local!)
  const exported = `export { ${[...locals].map(([module, local]) => `${local} as ${effectName(module)}`).join(", ")} };`
  if (!code.includes(exported)) {
    const comment = code.lastIndexOf("\n//# sourceMappingURL=")
    writeFileSync(path, comment === -1 ? `${code}\n${exported}\n` : `${code.slice(0, comment)}\n${exported}${code.slice(comment)}`)
  }
  return { chunk, modules: new Set(locals.keys()) }
}

/** Every `.js` file under `dir`. */
const scripts = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return scripts(path)
    return entry.name.endsWith(".js") ? [path] : []
  })

/**
 * Rewrites one file's imports through the shared entry when it has two or more that can be (one
 * resolution where it had several); records the protocol modules it imports by path.
 */
const route = (file: string, effectModules: ReadonlySet<string>, protocolPaths: Set<string>): void => {
  const code = readFileSync(file, "utf8")
  const routable = (specifier: string) =>
    specifier === sharedSpecifier ? false :
    specifier.startsWith("@snodo/protocol") ? true :
    effectModules.has(specifier.slice("effect/".length))
  const count = [...code.matchAll(statement)].filter(([, , , , , specifier]) => routable(specifier!)).length
  if (count < 2) return
  let named = 0
  const rewritten = code.replace(statement, (whole, _clause: string, namespace: string | undefined, names: string | undefined, _quote: string, specifier: string) => {
    if (!routable(specifier)) return whole
    const from = `from "${sharedSpecifier}";`
    if (specifier === "@snodo/protocol") return `import ${namespace === undefined ? `{${names!}}` : `* as ${namespace}`} ${from}`
    let exported: string
    if (specifier.startsWith("@snodo/protocol/")) {
      const path = specifier.slice("@snodo/protocol/".length)
      protocolPaths.add(path)
      exported = protocolName(path)
    } else {
      exported = effectName(specifier.slice("effect/".length))
    }
    if (namespace !== undefined) return `import { ${exported} as ${namespace} } ${from}`
    const local = `__snodo_shared_${named++}`
    const bindings = names!.split(",").map((part) => part.trim()).filter((part) => part !== "")
      .map((entry) => entry.replace(/^([\w$]+)\s+as\s+([\w$]+)$/, "$1: $2"))
    return `import { ${exported} as ${local} } ${from} const { ${bindings.join(", ")} } = ${local};`
  })
  if (rewritten !== code) writeFileSync(file, rewritten)
}

/** Writes `dist/chunks/shared.js`: the root entry's exports, the effect namespaces, the protocol modules by path. */
const writeShared = (chunk: string, effectModules: ReadonlySet<string>, protocolPaths: ReadonlySet<string>): void => {
  const root = readFileSync(join(protocolDist, "index.js"), "utf8")
  const rootExports = /^export \{([^}]*)\} from '\.\/chunks\/([^']+)';$/m.exec(root)
  if (rootExports === null || rootExports[2] !== chunk) throw new Error("@snodo/protocol's index.js is not one re-export of its eager chunk")
  const lines = [
    "// The protocol's modules and the effect namespaces its chunk imports, for snodo's other packages (scripts/shared-imports.ts).",
    `export {${rootExports[1]!}} from './${chunk}';`,
    `export { ${[...effectModules].map(effectName).join(", ")} } from './${chunk}';`,
    ...[...protocolPaths].toSorted().map((path) => {
      if (!existsSync(join(protocolDist, `${path}.js`))) throw new Error(`@snodo/protocol/${path} has no dist/${path}.js`)
      return `export * as ${protocolName(path)} from '../${path}.js';`
    })
  ]
  writeFileSync(join(protocolDist, "chunks", "shared.js"), `${lines.join("\n")}\n`)
}

const { chunk, modules } = exportNamespaces()
const protocolPaths = new Set<string>()
for (const name of readdirSync(packages)) {
  const dist = join(packages, name, "dist")
  if (name === "protocol" || !existsSync(dist)) continue
  for (const file of scripts(dist)) route(file, modules, protocolPaths)
}
writeShared(chunk, modules, protocolPaths)
console.log(`shared-imports: ${modules.size} effect modules and ${protocolPaths.size} protocol paths through ${relative(packages, join(protocolDist, "chunks", "shared.js"))}`)
