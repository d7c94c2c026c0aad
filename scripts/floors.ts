/**
 * The import check of `npm test`: no import circle in any package's `src/` (type-only imports and
 * `import()` included), and in `@snodo/core` no import that runs up the declared floors.
 *
 * Each floor is a folder of `packages/core/src`, listed bottom first; a module may import modules
 * of its own floor and of the floors below it. The entry points at the root of `src/` (the barrels)
 * stand above every floor. Exits 1, naming each circle and each upward import, when either is found.
 *
 * Our own small script rather than dependency-cruiser: TypeScript 7 ships no compiler API for
 * such tools to read type-only imports with, and the sources use erasable syntax only, so every
 * import is a plain `import`/`export … from`/`import()` statement.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** `@snodo/core`'s floors, bottom first. */
export const coreFloors = [
  "wire",
  "pipeline",
  "mrtr",
  "catalog",
  "peer",
  "runtime",
  "observability",
  "routes",
  "dialects",
  "server",
  "transports"
] as const

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

/** Each module's relative imports, as paths relative to `src`. */
export const graphOf = (src: string): Map<string, Array<string>> => {
  const graph = new Map<string, Array<string>>()
  for (const file of sourcesOf(src)) {
    const text = fs.readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "")
    const targets: Array<string> = []
    for (const match of text.matchAll(importPattern)) {
      const specifier = match[1] ?? match[2]!
      if (specifier.startsWith(".")) targets.push(path.relative(src, path.resolve(path.dirname(file), specifier)))
    }
    graph.set(path.relative(src, file), targets)
  }
  return graph
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

/** The floor of a module of `@snodo/core` (`Infinity` for the entry points at the root). */
const floorOf = (module: string): number => {
  const folder = module.split(path.sep)[0]!
  if (!module.includes(path.sep)) return Infinity
  const floor = (coreFloors as ReadonlyArray<string>).indexOf(folder)
  return floor === -1 ? -1 : floor
}

/** Every import of a core module that runs up the floors, and every module outside a floor. */
export const upwardImportsOf = (graph: Map<string, ReadonlyArray<string>>): Array<string> => {
  const problems: Array<string> = []
  for (const [module, targets] of graph) {
    const floor = floorOf(module)
    if (floor === -1) problems.push(`${module} is in no declared floor (${coreFloors.join(", ")})`)
    for (const target of targets) {
      const targetFloor = floorOf(target)
      if (targetFloor > floor) problems.push(`${module} imports ${target}, a floor above it`)
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
    if (name === "core") for (const problem of upwardImportsOf(graph)) problems.push(`packages/core: ${problem}`)
  }
  if (problems.length > 0) {
    process.stderr.write(`${problems.join("\n")}\n${problems.length} import problem(s)\n`)
    process.exit(1)
  }
  process.stdout.write(`imports: ${modules} modules, 0 circles, core floors respected (${coreFloors.join(" < ")})\n`)
}

if (import.meta.main) main()
