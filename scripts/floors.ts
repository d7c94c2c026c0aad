/**
 * The import check of `npm test`: no import circle in any package's `src/` (type-only imports and
 * `import()` included); in `@snodo/protocol` and `@snodo/core` no import that runs up the declared
 * floors; and across packages, no import of a `@snodo/*` package a package may not stand on
 * (dependencies run one way: protocol < core < the server packages; the client stands on the
 * protocol alone).
 *
 * Each floor is a folder of a package's `src`, listed bottom first; a module may import modules
 * of its own floor and of the floors below it. The entry points at the root of `src/` (the barrels)
 * stand above every floor. Exits 1, naming each circle, each upward import and each import of a
 * package out of reach, when any is found.
 *
 * Our own small script rather than dependency-cruiser: TypeScript 7 ships no compiler API for
 * such tools to read type-only imports with, and the sources use erasable syntax only, so every
 * import is a plain `import`/`export … from`/`import()` statement.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** `@snodo/protocol`'s floors, bottom first. */
export const protocolFloors = ["wire", "jsonrpc", "methods", "peer"] as const

/** `@snodo/core`'s floors, bottom first. */
export const coreFloors = [
  "pipeline",
  "mrtr",
  "catalog",
  "runtime",
  "observability",
  "routes",
  "dialects",
  "server",
  "transports"
] as const

/** The packages with floors, and their floors. */
export const floorsOf: Readonly<Record<string, ReadonlyArray<string>>> = {
  protocol: protocolFloors,
  core: coreFloors
}

/**
 * The `@snodo/*` packages each package may import. A package missing here may import none: a new
 * package says where it stands.
 */
export const packageImports: Readonly<Record<string, ReadonlyArray<string>>> = {
  protocol: [],
  core: ["protocol"],
  "json-schema": ["protocol", "core"],
  http: ["protocol", "core"],
  oauth: ["protocol", "core", "http"],
  tasks: ["protocol", "core"],
  "tasks-sqlite": ["protocol", "core", "tasks"],
  postgres: ["protocol", "core", "http", "tasks", "oauth"],
  skills: ["protocol", "core"],
  apps: ["protocol", "core"],
  client: ["protocol"],
  testing: ["protocol", "core", "client"]
}

const root = path.resolve(import.meta.dirname, "..")
const importPattern = /(?:^|[\n;])\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g

const sourcesOf = (directory: string): Array<string> => {
  const found: Array<string> = []
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.endsWith(".ts")) found.push(full)
    }
  }
  walk(directory)
  return found.toSorted()
}

/** Each module's import specifiers (comments left out), by path relative to `src`. */
const specifiersOf = (src: string): Map<string, Array<string>> => {
  const found = new Map<string, Array<string>>()
  for (const file of sourcesOf(src)) {
    const text = fs.readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "")
    found.set(path.relative(src, file), Array.from(text.matchAll(importPattern), (match) => match[1] ?? match[2]!))
  }
  return found
}

/** Each module's relative imports, as paths relative to `src`. */
export const graphOf = (src: string): Map<string, Array<string>> => {
  const graph = new Map<string, Array<string>>()
  for (const [module, specifiers] of specifiersOf(src)) {
    graph.set(
      module,
      specifiers.filter((specifier) => specifier.startsWith(".")).map((specifier) =>
        path.relative(src, path.resolve(path.dirname(path.join(src, module)), specifier))
      )
    )
  }
  return graph
}

/** Every import of a `@snodo/*` package that `name` may not stand on ({@link packageImports}). */
export const packageImportsOf = (name: string, src: string): Array<string> => {
  const allowed = packageImports[name]
  const problems: Array<string> = []
  for (const [module, specifiers] of specifiersOf(src)) {
    for (const specifier of specifiers) {
      const target = /^@snodo\/([^/]+)/.exec(specifier)?.[1]
      if (target === undefined || target === name) continue
      if (allowed === undefined) problems.push(`${module} imports ${specifier}, and ${name} is not in packageImports`)
      else if (!allowed.includes(target)) problems.push(`${module} imports ${specifier}: ${name} stands on ${allowed.join(", ") || "no other package"}`)
    }
  }
  return problems
}

/** The strongly connected components of more than one module (or a module importing itself). */
export const circlesOf = (graph: Map<string, ReadonlyArray<string>>): Array<Array<string>> => {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const circles: Array<Array<string>> = []
  const visit = (module: string) => {
    index.set(module, counter)
    low.set(module, counter)
    counter++
    stack.push(module)
    onStack.add(module)
    for (const target of graph.get(module) ?? []) {
      if (!graph.has(target)) continue
      if (!index.has(target)) {
        visit(target)
        low.set(module, Math.min(low.get(module)!, low.get(target)!))
      } else if (onStack.has(target)) {
        low.set(module, Math.min(low.get(module)!, index.get(target)!))
      }
    }
    if (low.get(module) !== index.get(module)) return
    const component: Array<string> = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== module)
    if (component.length > 1 || (graph.get(module) ?? []).includes(module)) circles.push(component.toSorted())
  }
  for (const module of graph.keys()) if (!index.has(module)) visit(module)
  return circles
}

/** The floor of a module (`Infinity` for the entry points at the root, -1 outside every floor). */
const floorOf = (floors: ReadonlyArray<string>, module: string): number => {
  if (!module.includes(path.sep)) return Infinity
  return floors.indexOf(module.split(path.sep)[0]!)
}

/** Every import of a module that runs up the floors, and every module outside a floor. */
export const upwardImportsOf = (
  graph: Map<string, ReadonlyArray<string>>,
  floors: ReadonlyArray<string> = coreFloors
): Array<string> => {
  const problems: Array<string> = []
  for (const [module, targets] of graph) {
    const floor = floorOf(floors, module)
    if (floor === -1) problems.push(`${module} is in no declared floor (${floors.join(", ")})`)
    for (const target of targets) {
      if (floorOf(floors, target) > floor) problems.push(`${module} imports ${target}, a floor above it`)
    }
  }
  return problems
}

const main = () => {
  const problems: Array<string> = []
  let modules = 0
  for (const name of fs.readdirSync(path.join(root, "packages")).toSorted()) {
    const src = path.join(root, "packages", name, "src")
    if (!fs.existsSync(src)) continue
    const graph = graphOf(src)
    modules += graph.size
    for (const circle of circlesOf(graph)) problems.push(`packages/${name}: import circle: ${circle.join(" -> ")}`)
    const floors = floorsOf[name]
    if (floors !== undefined) for (const problem of upwardImportsOf(graph, floors)) problems.push(`packages/${name}: ${problem}`)
    for (const problem of packageImportsOf(name, src)) problems.push(`packages/${name}: ${problem}`)
  }
  if (problems.length > 0) {
    process.stderr.write(`${problems.join("\n")}\n${problems.length} import problem(s)\n`)
    process.exit(1)
  }
  process.stdout.write(
    `imports: ${modules} modules, 0 circles, floors respected (protocol: ${protocolFloors.join(" < ")}; core: ${
      coreFloors.join(" < ")
    }), every package on the packages it may stand on\n`
  )
}

if (import.meta.main) main()
