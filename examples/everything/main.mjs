/**
 * Runs the everything server (flags: `./cli.ts`, or `--help`).
 *
 *   npm run -s everything -- --stdio            # over stdio
 *   npm run -s everything -- --http --port 3000 # over Streamable HTTP (the default; PORT also works)
 *
 * What docs/startup.md recommends for a stdio server, done here:
 *
 * - It runs the **bundle** (`./bundle.ts`, built into `.bundle/` by `npm install`'s prepare
 *   script or `npm run everything:bundle`) while the bundle is fresh, and the TypeScript sources
 *   (`./cli.ts`) otherwise, so an edited checkout never runs stale code, it only starts slower.
 *   `SNODO_EVERYTHING_BUNDLE=0` asks for the sources (the bench's load scenarios run them on the
 *   packages' build).
 * - Node's **compile cache** is turned on before anything else is loaded (a static import would
 *   be loaded before this line runs), so every start after the first reuses the compiled code
 *   (`NODE_COMPILE_CACHE` picks the directory, else the OS's temporary directory;
 *   `NODE_DISABLE_COMPILE_CACHE=1` turns it off). The cache is written as soon as the server has
 *   started, not only at a clean exit: clients often end a stdio server with a signal.
 * - This file is JavaScript on purpose: Node strips a TypeScript entry's types before any of its
 *   lines run, so the compile cache cannot cover it, and loading Node's type stripper cost ~100 ms
 *   on every start.
 *
 * Freshness is `./freshness.mjs`'s check (also what `./bundle.ts` asks before rebuilding).
 */
import module from "node:module"
import { bundleEntry, bundleIsFresh } from "./freshness.mjs"

module.enableCompileCache()

const useBundle = process.env["SNODO_EVERYTHING_BUNDLE"] !== "0" && bundleIsFresh()
await import(useBundle ? bundleEntry.href : "./cli.ts")
module.flushCompileCache()
