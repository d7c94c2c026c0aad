/**
 * Runs the everything server (flags: `./cli.ts`, or `--help`).
 *
 *   npm run -s everything -- --stdio            # over stdio
 *   npm run -s everything -- --http --port 3000 # over Streamable HTTP (the default; PORT also works)
 *
 * As docs/startup.md recommends for a stdio server: Node's compile cache is turned on before
 * anything else is loaded (a static import would be loaded before this line runs), so every start
 * after the first reuses the compiled code (and, for the TypeScript sources of this checkout, the
 * type-stripped output) from the cache directory (`NODE_COMPILE_CACHE`, else the OS's temporary
 * directory). `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
 */
import module from "node:module"

module.enableCompileCache()
await import("./cli.ts")
