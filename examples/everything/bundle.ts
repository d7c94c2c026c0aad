/**
 * Bundles the everything server into one file, `examples/everything/everything.bundle.mjs`
 * (gitignored), with esbuild: what docs/startup.md recommends for a stdio server an application
 * ships. One module instead of ~600 (effect, our packages, hyperjump, yaml): Node's module
 * loader, not the server, was most of the start-up.
 *
 *   npm run -s everything:bundle                               # ~1 s
 *   node examples/everything/everything.bundle.mjs --stdio     # same flags as main.ts
 *
 * It bundles this checkout's TypeScript sources (the `@snodo/source` condition), so no
 * `npm run build` is needed first. The file sits beside `main.ts` because the server finds its
 * skills folder (`./skills`) next to its own module. The SQLite and PostgreSQL stores are
 * imported lazily in `./backend.ts`; in the bundle they stay lazy (evaluated on first use).
 */
import { fileURLToPath } from "node:url"
import * as esbuild from "esbuild"

/** Where the bundle is written. */
export const outfile = fileURLToPath(new URL("everything.bundle.mjs", import.meta.url))

/** Builds the bundle; resolves once it is written. */
export const bundle = async (): Promise<string> => {
  await esbuild.build({
    entryPoints: [fileURLToPath(new URL("main.ts", import.meta.url))],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    conditions: ["@snodo/source"],
    // Bundled CommonJS dependencies (pg) call `require` for Node's built-ins.
    banner: { js: "import { createRequire as __snodoCreateRequire } from \"node:module\"; const require = __snodoCreateRequire(import.meta.url);" },
    logLevel: "warning"
  })
  return outfile
}

if (import.meta.url === new URL(process.argv[1] ?? "", "file://").href) {
  process.stderr.write(`wrote ${await bundle()}\n`)
}
