/**
 * The start-up scenario (`npm run bench -- --scenarios startup`): spawn → first answer of a
 * one-tool server, every peer started as its users start it.
 *
 * Once per bench run an application is built outside the repository (under the OS's temporary
 * directory): `@snodo/protocol`, `@snodo/core` and `@snodo/http` packed with `npm pack` from their
 * build, installed with `effect`, `@effect/platform-node`, `@modelcontextprotocol/server`,
 * `@modelcontextprotocol/node` and `zod` at our lock's versions (`npm ci --offline`,
 * `test/support/PackedApp.ts`). Every peer is a plain `.mjs` file of that app, written as a user
 * writes it (`bench/startup/*.mjs`, copied in), and started as `node <file>` in the app's folder:
 *
 * - the official SDK 2.4.0 (`official-*.mjs`; its Node adapter only in the HTTP server);
 * - the Effect floor, an Effect program with no MCP in it (NodeRuntime, NodeStdio or node:http, a
 *   Schema decode per message, canned answers), in both import styles: by module path
 *   (`floor-modules-*.mjs`: `effect/Effect`, `effect/Schema`) and from the root entry
 *   (`floor-root-*.mjs`: `import { Effect, Schema } from "effect"`);
 * - snodo's one-tool server in the same two styles (`snodo-modules-*.mjs`: `@snodo/core/Tool`, …;
 *   `snodo-root-*.mjs`: `import { McpServer, Tool } from "@snodo/core"`, `from "effect"`), so that
 *   snodo ÷ Effect floor of one style is what snodo adds;
 * - that server bundled by esbuild 0.28.2 as docs/startup.md bundles one (`snodo-bundle-*.mjs`
 *   and its `snodo-bundle-*-chunks/`, from the `readmeStyle` file, in the app; `splitting`, each
 *   part loaded by `import()` a chunk of its own; whitespace and syntax minified);
 * - and the everything server as the checkout starts it (`node examples/everything/main.mjs`:
 *   its esbuild bundle, with the compile cache on).
 *
 * A start is timed from `spawn` to the first `server/discover` answer that offers 2026-07-28 (the
 * first request a 2026-07-28 client sends; stdio: written at spawn; HTTP: a TCP connect tried every
 * millisecond until the port accepts, then posted, `probe.ts`), and the CPU time the server used to then (`/proc/<pid>/stat`, user + system, every
 * thread, 10 ms ticks). Cold: Node's compile cache disabled (`NODE_DISABLE_COMPILE_CACHE=1`); compile cache:
 * `NODE_COMPILE_CACHE` set to a directory per peer, filled by one untimed start first. Every run
 * starts every peer over both transports in both modes, the order rotating between runs so that
 * the machine's noise is shared; the medians of the runs are reported. The first cold start of
 * each also reads its RSS 0.5 s after the answer, then checks a `tools/call` of `echo`.
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import os from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { install, pack } from "../test/support/PackedApp.ts"
import { type Child, cpuMs, freePort, rss, sleep } from "./children.ts"
import { type Started, startHttp, startStdio, verify } from "./probe.ts"
import type { ImportStyle, Results, StartMode, StartupKey, StartupResults, StartupRole, StartupRow } from "./results.ts"
import { checkDiscover, checkEcho, discoverBody, discoverHeaders, echoBody, echoHeaders } from "./wire.ts"

/**
 * The style README.md and docs/getting-started.md show (the one that starts fastest unbundled);
 * the bundle rows bundle the server written in it.
 */
export const readmeStyle: ImportStyle = "modules"

interface Peer {
  readonly id: string
  readonly role: StartupRole
  readonly style?: ImportStyle
  readonly label: string
  readonly sources: ReadonlyArray<string>
  readonly stdio: { readonly script: string; readonly args: ReadonlyArray<string> }
  readonly http: { readonly script: string; readonly args: (port: number) => ReadonlyArray<string> }
  /** Where it runs: the app, or the checkout (the everything server). */
  readonly cwd: "app" | "checkout"
}

const checkout = fileURLToPath(new URL("../", import.meta.url))
const peerSources = fileURLToPath(new URL("startup/", import.meta.url))

const inApp = (id: string, role: StartupRole, label: string, style?: ImportStyle): Peer => ({
  id,
  role,
  ...(style === undefined ? {} : { style }),
  label,
  sources: role === "bundle"
    ? [`bench/startup/snodo-${readmeStyle}-stdio.mjs`, `bench/startup/snodo-${readmeStyle}-http.mjs`]
    : [`bench/startup/${id}-stdio.mjs`, `bench/startup/${id}-http.mjs`],
  stdio: { script: `${id}-stdio.mjs`, args: [] },
  http: { script: `${id}-http.mjs`, args: () => [] },
  cwd: "app"
})

const peers: ReadonlyArray<Peer> = [
  inApp("official", "official", "official SDK 2.4.0"),
  inApp("floor-modules", "floor", "Effect floor, imports by module path", "modules"),
  inApp("floor-root", "floor", "Effect floor, `effect` root entry", "root"),
  inApp("snodo-modules", "snodo", "snodo, imports by module path", "modules"),
  inApp("snodo-root", "snodo", "snodo, root entries (`@snodo/core`, `effect`)", "root"),
  inApp("snodo-bundle", "bundle", `snodo bundled with esbuild (the ${readmeStyle === "modules" ? "module-path" : "root-entry"} server)`),
  {
    id: "everything",
    role: "everything",
    label: "everything server (checkout, its bundle)",
    sources: ["examples/everything/main.mjs"],
    stdio: { script: "examples/everything/main.mjs", args: ["--stdio"] },
    http: { script: "examples/everything/main.mjs", args: (port) => ["--http", "--port", String(port)] },
    cwd: "checkout"
  }
]

/** The registry packages the app installs beside our tarballs. */
const registry = ["@effect/platform-node", "effect", "@modelcontextprotocol/server", "@modelcontextprotocol/node", "zod"] as const

/** Builds the app in `work/app` (tarballs in `work/packs`), with its peers and their bundles. */
const buildApp = async (work: string): Promise<string> => {
  const app = join(work, "app")
  if (existsSync(join(app, "snodo-bundle-http.mjs"))) return app
  const tarballs = pack(join(work, "packs"), ["protocol", "core", "http"])
  install({ dir: app, name: "snodo-startup-bench", tarballs, registry })
  for (const file of readdirSync(peerSources)) {
    if (file.endsWith(".mjs")) copyFileSync(join(peerSources, file), join(app, file))
  }
  const esbuild = await import("esbuild")
  for (const transport of ["stdio", "http"] as const) {
    await esbuild.build({
      absWorkingDir: app,
      entryPoints: [join(app, `snodo-${readmeStyle}-${transport}.mjs`)],
      // As docs/startup.md bundles a server: the entry, and a chunk for each part an `import()`
      // loads (one file would defer those parts behind initializers V8 parses twice).
      outdir: app,
      entryNames: `snodo-bundle-${transport}`,
      chunkNames: `snodo-bundle-${transport}-chunks/[name]-[hash]`,
      outExtension: { ".js": ".mjs" },
      splitting: true,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node22",
      // As docs/startup.md bundles a server: whitespace and syntax minified, names kept (stack traces).
      minifyWhitespace: true,
      minifySyntax: true,
      // Bundled CommonJS dependencies (ws, under the platform's HTTP server) call `require` for Node's built-ins.
      banner: { js: "import { createRequire as __snodoCreateRequire } from \"node:module\"; const require = __snodoCreateRequire(import.meta.url);" },
      logLevel: "warning"
    })
  }
  return app
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = values.toSorted((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const rotate = <A>(items: ReadonlyArray<A>, by: number): ReadonlyArray<A> =>
  items.length === 0 ? items : [...items.slice(by % items.length), ...items.slice(0, by % items.length)]

/** Writes one line to a stdio child and resolves with the next line it answers. */
const exchange = (child: Child, line: string, timeoutMs = 10_000): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const stdout = child.process.stdout
    if (stdout === null || child.process.stdin === null) return reject(new Error("no stdio pipes"))
    let buffered = ""
    const timer = setTimeout(() => done(() => reject(new Error(`no answer within ${timeoutMs} ms`))), timeoutMs)
    const onData = (chunk: string) => {
      buffered += chunk
      const newline = buffered.indexOf("\n")
      if (newline < 0) return
      const text = buffered.slice(0, newline)
      done(() => {
        try {
          resolve(JSON.parse(text) as unknown)
        } catch {
          reject(new Error(`not JSON: ${text.slice(0, 200)}`))
        }
      })
    }
    const done = (then: () => void) => {
      clearTimeout(timer)
      stdout.removeListener("data", onData)
      then()
    }
    stdout.on("data", onData)
    child.process.stdin.write(`${line}\n`)
  })

let work: string | undefined
let built: Promise<string> | undefined

/**
 * The app, built once per process (the start-up and clients scenarios share it) under the OS's
 * temporary directory, and removed when the process exits.
 */
export const ensureApp = (progress: (line: string) => void): Promise<string> => {
  if (built !== undefined) return built
  const dir = mkdtempSync(join(os.tmpdir(), "snodo-bench-startup-"))
  work = dir
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }))
  progress(`   building an app outside the repository (npm pack, npm ci --offline) in ${dir}`)
  built = buildApp(dir)
  return built
}

export interface StartupOptions {
  readonly runs: number
  /** Peer ids to start (default: all). */
  readonly only?: ReadonlySet<string>
  readonly command: string
  readonly machine: Results["machine"]
  readonly progress: (line: string) => void
  readonly overBudget: () => boolean
}

/** Runs the scenario (the compile caches are removed when it ends). */
export const runStartup = async (options: StartupOptions): Promise<StartupResults> => {
  const startedAt = performance.now()
  const problems: Array<{ readonly row: string; readonly message: string }> = []
  const problem = (row: string, message: string) => {
    problems.push({ row, message })
    options.progress(`!! start-up / ${row}: ${message}`)
  }
  try {
    const chosen = peers.filter((peer) => options.only === undefined || options.only.has(peer.id))
    const dir = await ensureApp(options.progress)
    if (chosen.some((peer) => peer.role === "everything")) {
      await import("../examples/everything/bundle.ts").then(({ bundle }) => bundle())
    }
    const cacheRoot = join(work!, "compile-cache")
    const samples = new Map<string, Array<number>>()
    const rssOf = new Map<string, number>()
    const failed = new Set<string>()
    const targets = chosen.flatMap((peer) => (["stdio", "http"] as const).map((transport) => ({ peer, transport })))
    const add = (key: string, ms: number) => samples.set(key, [...samples.get(key) ?? [], ms])
    for (let run = -1; run < options.runs && !options.overBudget(); run++) {
      for (const { peer, transport } of rotate(targets, Math.max(run, 0))) {
        const name = `${peer.id} ${transport}`
        if (failed.has(name)) continue
        // Run -1 fills each compile cache; the order of the two modes alternates between runs.
        const modes: ReadonlyArray<StartMode> = run < 0 ? ["cached"] : run % 2 === 0 ? ["cold", "cached"] : ["cached", "cold"]
        for (const mode of modes) {
          const env = {
            ...(peer.role === "everything" ? { SNODO_EVERYTHING_BUNDLE: "1" } : {}),
            ...mode === "cold" ? { NODE_DISABLE_COMPILE_CACHE: "1" } : { NODE_COMPILE_CACHE: join(cacheRoot, `${peer.id}-${transport}`) }
          }
          const launch = { env, cwd: peer.cwd === "app" ? dir : checkout }
          const first = run === 0 && mode === "cold"
          try {
            let started: Started
            let check: () => Promise<string | undefined>
            if (transport === "stdio") {
              const stdio = await startStdio(peer.stdio.script, peer.stdio.args, launch, { line: discoverBody(), check: (frame) => checkDiscover(frame) })
              started = stdio
              if (first && stdio.noise.length > 0) {
                problem(name, `wrote non-JSON lines on stdout (a protocol violation; skipped for the timing): ${JSON.stringify(stdio.noise[0])}`)
              }
              check = async () => checkEcho(await exchange(stdio.child, echoBody(2)), 2)
            } else {
              const port = await freePort()
              const url = `http://127.0.0.1:${port}/mcp`
              started = await startHttp(peer.http.script, peer.http.args(port), url, {
                body: discoverBody(),
                headers: discoverHeaders,
                check: (frame) => checkDiscover(frame)
              }, { ...launch, env: { ...env, PORT: String(port) } })
              check = () => verify(url, echoBody(2), echoHeaders, (frame) => checkEcho(frame, 2))
            }
            // CPU time (user + system, every thread) to the first answer: steadier than the wall
            // clock on a busy machine, where a start also waits for a core.
            const cpu = cpuMs(started.child.pid)
            try {
              if (run >= 0) {
                add(`${name} ${mode}`, started.startupMs)
                if (Number.isFinite(cpu)) add(`${name} ${mode} cpu`, cpu)
              }
              if (first) {
                await sleep(500)
                rssOf.set(name, rss(started.child.pid) / 1024 / 1024)
                const wrong = await check()
                if (wrong !== undefined) {
                  failed.add(name)
                  problem(name, `tools/call echo: ${wrong}`)
                }
              }
            } finally {
              started.child.process.stdin?.end()
              await started.child.stop()
            }
          } catch (error) {
            failed.add(name)
            problem(name, `${mode} start: ${error instanceof Error ? error.message : String(error)}`)
          }
        }
      }
    }
    const rows = chosen.map((peer): StartupRow => {
      const values: Partial<Record<StartupKey, number>> = {}
      const kept: Partial<Record<StartupKey, ReadonlyArray<number>>> = {}
      for (const transport of ["stdio", "http"] as const) {
        const name = `${peer.id} ${transport}`
        if (failed.has(name)) continue
        for (const mode of ["cold", "cached"] as const) {
          const measured = samples.get(`${name} ${mode}`)
          if (measured === undefined || measured.length === 0) continue
          values[`${transport}.${mode}`] = median(measured)
          kept[`${transport}.${mode}`] = measured.map((ms) => Math.round(ms))
          const cpu = samples.get(`${name} ${mode} cpu`)
          if (cpu !== undefined && cpu.length > 0) {
            values[`${transport}.${mode}.cpu`] = median(cpu)
            kept[`${transport}.${mode}.cpu`] = cpu
          }
        }
        const idle = rssOf.get(name)
        if (idle !== undefined && Number.isFinite(idle)) values[`${transport}.rss`] = idle
      }
      const where = peer.cwd === "app" ? "in the app" : "in the checkout"
      const row: StartupRow = {
        id: peer.id,
        role: peer.role,
        ...(peer.style === undefined ? {} : { style: peer.style }),
        label: peer.label,
        sources: peer.sources,
        commands: {
          stdio: `node ${[peer.stdio.script, ...peer.stdio.args].join(" ")} (${where})`,
          http: `node ${[peer.http.script, ...peer.http.args(3000)].join(" ")} (${where}${peer.cwd === "app" ? ", PORT=3000" : ""})`
        },
        values,
        samples: kept
      }
      const line = (["stdio", "http"] as const).map((transport) =>
        `${transport} ${["cold", "cached"].map((mode) => values[`${transport}.${mode as StartMode}`]?.toFixed(0) ?? "n/a").join(" / ")} ms, ` +
        `${values[`${transport}.rss`]?.toFixed(1) ?? "n/a"} MiB`
      ).join("; ")
      options.progress(`   ${peer.label}: ${line} (cold / compile cache, RSS)`)
      return row
    })
    return {
      date: new Date().toISOString(),
      command: options.command,
      machine: options.machine,
      runs: options.runs,
      readmeStyle,
      app: "`@snodo/protocol`, `@snodo/core` and `@snodo/http` packed from their build (`npm pack`), installed with " +
        `${registry.map((name) => `\`${name}\``).join(", ")} at the repository's locked versions (\`npm ci --offline\`) in a folder ` +
        "under the OS's temporary directory, outside the repository; the peers are `bench/startup/*.mjs`, copied into it",
      rows,
      problems,
      elapsedS: (performance.now() - startedAt) / 1000
    }
  } finally {
    if (work !== undefined) rmSync(join(work, "compile-cache"), { recursive: true, force: true })
  }
}
