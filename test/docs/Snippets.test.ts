/**
 * Every fenced `ts` block of README.md, docs/*.md and the packages' READMEs type-checks, against the packages' sources
 * under the repository's strict compiler options (unused names allowed: snippets show a part).
 *
 * Each block becomes a module of its own, in a folder per document. Markdown comments, invisible
 * when the page is read, say what a block needs:
 *
 * - `<!-- snippet: file src/server.ts -->` just before a block: the block is that file of the
 *   reader's project, complete (other blocks import it by that path); no prelude.
 * - `<!-- snippet: generator -->` just before a block: the block is the body of an `Effect.gen`
 *   (lines with `yield*`, as they appear inside a handler).
 * - `<!-- snippet: skip <why> -->` just before a block: not compiled, for a block that shows a
 *   shape rather than code (`...` for the parts left out). The reason is required, and the test
 *   lists every skipped block with it.
 * - `<!-- snippet-prelude … -->` anywhere in a document: code put before each of its blocks
 *   without a `file` comment, usually imports and `declare const` for the reader's own names
 *   (`declare const Index: …`). A prelude line that imports or declares a name the block imports
 *   or declares itself is left out of that block's module, so write one name per prelude line where
 *   blocks differ.
 * - `<!-- snippet-file test/support.ts … -->`: a file of the reader's project that the page does not
 *   show (what a shown file imports).
 *
 * One tsc run checks every module; an error is reported at its line in the document.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../../", import.meta.url))
const documents = [
  "README.md",
  ...readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md")).toSorted().map((name) => `docs/${name}`),
  ...readdirSync(join(root, "packages")).toSorted().map((name) => `packages/${name}/README.md`).filter((path) => existsSync(join(root, path)))
]

/** A module written for the check: its lines, each with the document line it came from. */
interface Module {
  readonly path: string
  readonly lines: Array<{ readonly text: string; readonly from: number }>
  /** The names its block imports or declares (the prelude leaves those out). */
  readonly own: Set<string>
  readonly prelude: boolean
  readonly generator: boolean
}

interface Extracted {
  readonly document: string
  readonly modules: Array<Module>
  readonly blocks: number
  /** Blocks not compiled: `document:line: reason`. */
  readonly skipped: Array<string>
}

const bound = (code: string): Set<string> => {
  const names = new Set<string>()
  for (const [, clause] of code.matchAll(/import\s+(?:type\s+)?([^'";]+?)\s+from\s+["']/g)) {
    for (const part of clause!.replace(/[{}]/g, ",").split(",")) {
      const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/).at(-1)!.replace(/^\*\s*/, "").trim()
      if (/^[A-Za-z_$][\w$]*$/.test(name)) names.add(name)
    }
  }
  for (const [, name] of code.matchAll(/(?:^|\n)\s*(?:export\s+)?(?:declare\s+)?(?:const|let|function\*?|class|type|interface)\s+([A-Za-z_$][\w$]*)/g)) {
    names.add(name!)
  }
  return names
}

/** Splits one document into modules, following its snippet comments. */
const extract = (document: string): Extracted => {
  const text = readFileSync(join(root, document), "utf8")
  const lines = text.split("\n")
  const prelude: Array<{ readonly text: string; readonly from: number }> = []
  const modules: Array<Module> = []
  let blocks = 0
  const skipped: Array<string> = []
  let directive: string | undefined
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at]!
    const hidden = /^<!-- snippet-(prelude|file)\s*(\S*)\s*$/.exec(line)
    if (hidden !== null) {
      const body: Array<{ readonly text: string; readonly from: number }> = []
      for (at++; at < lines.length && lines[at] !== "-->"; at++) body.push({ text: lines[at]!, from: at + 1 })
      if (hidden[1] === "prelude") prelude.push(...body)
      else modules.push({ path: hidden[2]!, lines: body, own: new Set(), prelude: false, generator: false })
      continue
    }
    const comment = /^\s*<!-- snippet: (.+?) -->\s*$/.exec(line)
    if (comment !== null) {
      directive = comment[1]
      continue
    }
    const fence = /^(\s*)```ts\s*$/.exec(line)
    if (fence === null) {
      if (line.trim() !== "") directive = undefined
      continue
    }
    const indent = fence[1]!.length
    const fenceLine = at + 1
    const body: Array<{ readonly text: string; readonly from: number }> = []
    for (at++; at < lines.length && lines[at]!.trim() !== "```"; at++) body.push({ text: lines[at]!.slice(indent), from: at + 1 })
    blocks++
    const own = bound(body.map((entry) => entry.text).join("\n"))
    if (directive?.startsWith("skip")) {
      skipped.push(`${document}:${fenceLine}: ${directive.slice("skip".length).trim()}`)
    } else if (directive?.startsWith("file ")) {
      modules.push({ path: directive.slice("file ".length).trim(), lines: body, own, prelude: false, generator: false })
    } else {
      modules.push({ path: `snippet-${body[0]?.from ?? at}.ts`, lines: body, own, prelude: true, generator: directive === "generator" })
    }
    directive = undefined
  }
  // The prelude goes in front of every module that takes it, less what the block binds itself.
  for (const module of modules) {
    if (!module.prelude) continue
    const kept = prelude.filter((entry) => [...bound(entry.text)].every((name) => !module.own.has(name)))
    const body = module.generator
      ? [{ text: "import * as SnippetEffect from \"effect/Effect\"; export const snippet = SnippetEffect.gen(function*() {", from: module.lines[0]?.from ?? 0 }, ...module.lines, { text: "})", from: module.lines.at(-1)?.from ?? 0 }]
      : module.lines
    module.lines.splice(0, module.lines.length, ...kept, ...body)
  }
  return { document, modules, blocks, skipped }
}

let work = ""
let extracted: ReadonlyArray<Extracted> = []
/** tsc's diagnostics, per document, as `document:line: message`. */
const errors = new Map<string, Array<string>>()

beforeAll(() => {
  work = mkdtempSync(join(root, ".doc-snippets-"))
  extracted = documents.map(extract)
  const origin = new Map<string, { readonly document: string; readonly lines: ReadonlyArray<{ readonly from: number }> }>()
  for (const { document, modules } of extracted) {
    const dir = join(work, document.replace(/[/.]/g, "_"))
    for (const module of modules) {
      const path = join(dir, module.path)
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, module.lines.map((entry) => entry.text).join("\n") + "\n")
      origin.set(path, { document, lines: module.lines })
    }
  }
  writeFileSync(join(work, "tsconfig.json"), JSON.stringify({
    extends: "../tsconfig.json",
    compilerOptions: { noUnusedLocals: false, noUnusedParameters: false, moduleDetection: "force" },
    include: ["**/*.ts"]
  }))
  const tsc = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", work, "--pretty", "false"], {
    cwd: root,
    encoding: "utf8",
    timeout: 120_000
  })
  let last: Array<string> | undefined
  for (const line of `${tsc.stdout}${tsc.stderr}`.split("\n")) {
    const match = /^(.+?\.ts)\((\d+),\d+\): (.*)$/.exec(line)
    if (match === null) {
      // An indented line continues the diagnostic before it.
      if (/^\s/.test(line) && last !== undefined) last.push(`${last.pop()!}\n${line}`)
      else if (line.trim() !== "") errors.set("(tsc)", [...errors.get("(tsc)") ?? [], line])
      continue
    }
    const source = origin.get(resolve(root, match[1]!))
    const document = source?.document ?? "(unknown)"
    const from = source?.lines[Number(match[2]) - 1]?.from ?? 0
    last = errors.get(document) ?? []
    last.push(`${document}:${from}: ${match[3]!}`)
    errors.set(document, last)
  }
}, 180_000)

afterAll(() => {
  if (work !== "") rmSync(work, { recursive: true, force: true })
})

describe("the ts snippets of README.md, docs/*.md and packages/*/README.md type-check", () => {
  it("finds the snippets, and tsc ran", () => {
    expect(extracted.reduce((sum, { blocks }) => sum + blocks, 0)).toBeGreaterThan(30)
    expect(errors.get("(tsc)") ?? []).toEqual([])
    expect(errors.get("(unknown)") ?? []).toEqual([])
  })

  it("skips only blocks that say why", () => {
    const skipped = extracted.flatMap((doc) => doc.skipped)
    for (const entry of skipped) expect(entry).toMatch(/^\S+:\d+: \S.{10,}/)
    expect(skipped.map((entry) => entry.replace(/:\d+:/, ":"))).toEqual(["docs/architecture.md: the shape of a route, with ... for what each field holds"])
  })

  for (const document of documents) {
    it(document, () => {
      expect(errors.get(document) ?? []).toEqual([])
    })
  }
})
