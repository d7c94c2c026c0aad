/**
 * Bundles the everything server with esbuild, as docs/startup.md recommends for a stdio server an
 * application ships: `examples/everything/.bundle/` (gitignored) holds the entry `everything.mjs`
 * and the chunks it loads. Node's module loader, not the server, was most of the start-up: ~25
 * files instead of ~600 modules (effect, our packages, hyperjump, yaml), and what is loaded only
 * by some runs (HTTP, OTLP, the SQL stores, the 2025-11-25 dialect) is a chunk of its own, loaded
 * when `import()`ed, so a stdio server never evaluates Node's HTTP modules or compiles that code.
 *
 *   npm run -s everything:bundle                  # ~1 s; npm install runs it too (the prepare script)
 *   npm run -s everything -- --stdio              # main.mjs runs the bundle while it is fresh
 *
 * It bundles this checkout's TypeScript sources (the `@snodo/source` condition), so no
 * `npm run build` is needed first. `inputs.json` lists the source files the bundle was built from
 * with their sizes and mtimes: `./main.mjs` runs the bundle only while every one is unchanged, and the
 * sources otherwise, so an edited checkout never runs stale code (dependencies count as changed
 * when npm rewrites `node_modules/.package-lock.json`, as every install does).
 *
 * Processes may be running the previous bundle while this one is written (tests spawn the server
 * while one of them rebuilds): chunk names carry their content's hash and are written first, the
 * entry and `inputs.json` are replaced by a rename, and chunks no entry has named for an hour are
 * removed, so a running server still finds the chunks it loads late (HTTP, say).
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as esbuild from "esbuild"
import * as Freshness from "./freshness.mjs"

const here = fileURLToPath(new URL(".", import.meta.url))
const root = join(here, "..", "..")

/** The folder the bundle is written to. */
export const outdir = fileURLToPath(Freshness.bundleDirectory)

/** The bundle's entry: run it with the everything server's flags (`./main.mjs` does when it is fresh). */
export const entry = fileURLToPath(Freshness.bundleEntry)

const chunkMaxAgeMs = 60 * 60 * 1000

/** One input of the bundle as `inputs.json` lists it (`./freshness.mjs` checks them). */
type Input = readonly [path: string, size: number, mtimeMs: number]

const inputOf = (path: string): Input => {
  const stat = statSync(path)
  return [path, stat.size, stat.mtimeMs]
}

/** Replaces `path` by a rename: a reader sees the old file or the new one, never half of one. */
const writeAtomically = (path: string, contents: string | Uint8Array): void => {
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, contents)
  renameSync(temporary, path)
}

/** Builds the bundle unless the one on disk is fresh; resolves to its entry once it is written. */
export const bundle = async (options?: { readonly force?: boolean }): Promise<string> => {
  if (options?.force !== true && Freshness.bundleIsFresh()) return entry
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { everything: join(here, "cli.ts") },
    outdir,
    entryNames: "[name]",
    chunkNames: "[name]-[hash]",
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    write: false,
    metafile: true,
    platform: "node",
    format: "esm",
    target: "node22",
    conditions: ["@snodo/source"],
    // Whitespace and syntax only: ~30 % less source to read, hash (the compile cache's check) and
    // decode at every start, ~4 % fewer instructions to the first answer; names are kept, so stack
    // traces still name the functions.
    minifyWhitespace: true,
    minifySyntax: true,
    // The server finds its skills folder and data directory next to its sources, wherever the
    // bundle sits: `new URL("skills", import.meta.url)` in ./server.ts reads this URL.
    define: { "import.meta.url": JSON.stringify(pathToFileURL(join(here, "server.ts")).href) },
    // Bundled CommonJS dependencies (pg) call `require` for Node's built-ins.
    banner: { js: "import { createRequire as __snodoCreateRequire } from \"node:module\"; const require = __snodoCreateRequire(import.meta.url);" },
    logLevel: "warning"
  })
  mkdirSync(outdir, { recursive: true })
  const written = new Set<string>()
  // Chunks first (content-hashed names), then the entry: a process starting meanwhile sees either
  // the old entry with its chunks or the new one with its chunks.
  const files = result.outputFiles.toSorted((a, b) => Number(a.path === entry) - Number(b.path === entry))
  for (const file of files) {
    written.add(file.path)
    writeAtomically(file.path, file.contents)
  }
  // Our sources one by one; the dependencies through npm's record of what it installed, which
  // every `npm install` rewrites (~190 files to check at start instead of ~800).
  const sources = Object.keys(result.metafile.inputs).filter((input) => !input.includes("node_modules/"))
  writeAtomically(fileURLToPath(Freshness.inputsFile), JSON.stringify([...sources, "node_modules/.package-lock.json"].map((input) => inputOf(join(root, input)))))
  const now = Date.now()
  for (const name of readdirSync(outdir)) {
    const path = join(outdir, name)
    if (!name.endsWith(".mjs") || written.has(path)) continue
    if (!name.endsWith(".tmp") && now - statSync(path).mtimeMs > chunkMaxAgeMs) rmSync(path, { force: true })
  }
  return entry
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.stderr.write(`wrote ${relative(process.cwd(), await bundle({ force: process.argv.includes("--force") }))}\n`)
}
