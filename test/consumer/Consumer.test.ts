/**
 * The packages as an application gets them. Every package is built (by `npm test` just before, or
 * here when the file runs alone) and packed with `npm pack`;
 * an app (`test/consumer/app/`: its own package.json, a strict tsconfig.json with
 * `allowImportingTsExtensions: false`, `noPropertyAccessFromIndexSignature` and
 * `skipLibCheck: false`) is written to a folder outside the workspace, installs the tarballs with
 * `effect`, `@effect/platform-node` and `@types/node` at the versions of our lock, type-checks
 * with tsc, and is then run over stdio and over HTTP (NodeServe) and driven by the official client
 * 2.4.0: list, call, read, prompt. A second app installs `@snodo/client` alone (with the
 * `@snodo/protocol` it depends on): no server package comes with it, and it drives the first app's
 * server over stdio.
 *
 * The install is offline: `npm ci --offline` from a lock file written here, with the registry
 * entries copied from our package-lock.json (so only tarballs that the repository's own `npm ci`
 * put in the npm cache are needed, no registry metadata) and the packed tarballs by integrity.
 * Every process starts without our `NODE_OPTIONS` (the `@snodo/source` condition of the
 * checkout) or npm's script variables, as an application's would.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { type ChildProcess, spawn, type SpawnSyncReturns } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cleanEnv, install, installedCopies, type Manifest, must, pack as packWorkspaces, type Packed, readJson, root, run } from "../support/PackedApp.ts"

const appSource = fileURLToPath(new URL("app/", import.meta.url))
const tsc = join(root, "node_modules", "typescript", "bin", "tsc")
/** Every package of the workspace. */
const packageNames = readdirSync(join(root, "packages")).toSorted()

let work = ""
let app = ""
let clientApp = ""
let packed: ReadonlyArray<Packed> = []
let typecheck: SpawnSyncReturns<string> | undefined

/**
 * The tests that spawn a Node program of the app and wait for it to end (each process bounded at
 * 60 s): on a 2-core machine the rest of the suite keeps busy, one such start once took over the
 * default 30 s (a run with the load average at 20). A bound on a hang, not a speed check.
 */
const spawnedTestTimeout = 90_000

beforeAll(() => {
  // `npm test` (scripts/test.ts) has just built every package and says so; run alone, the test builds.
  if (process.env["SNODO_TEST_BUILT"] !== "1") must(run("npm", ["run", "-s", "build"], root, 180_000), "npm run build")
  work = mkdtempSync(join(tmpdir(), "snodo-consumer-"))
  app = join(work, "app")
  const tarballs = packWorkspaces(join(work, "packs"))
  packed = tarballs.map((tarball) => tarball.packed)

  cpSync(appSource, app, { recursive: true, filter: (path) => !/[/\\](dist|node_modules)$/.test(path) })
  install({ dir: app, name: "snodo-consumer-app", tarballs, registry: ["@effect/platform-node", "effect"], devRegistry: ["@types/node"] })
  typecheck = run(process.execPath, [tsc, "-p", "tsconfig.json", "--listFiles"], app, 120_000)

  // The client alone: @snodo/client and what it depends on, nothing else of ours.
  clientApp = join(work, "client-app")
  mkdirSync(clientApp)
  writeFileSync(join(clientApp, "agent.mjs"), clientScript)
  const clientTarballs = tarballs.filter((tarball) => tarball.manifest.name === "@snodo/client" || tarball.manifest.name === "@snodo/protocol")
  install({ dir: clientApp, name: "snodo-client-app", tarballs: clientTarballs, registry: ["@effect/platform-node", "effect"] })
}, 300_000)

// Two installed apps (tens of thousands of files): on a busy disk removing them takes longer than
// vitest's default 30 s hook timeout (seen with other builds running).
afterAll(() => {
  if (work !== "") rmSync(work, { recursive: true, force: true })
}, 180_000)

/** The client app: `@snodo/client` over stdio to the first app's server, printing what it got. */
const clientScript = `import { Effect, Layer } from "effect"
import { McpClient, StdioClientTransport } from "@snodo/client"
const [server] = process.argv.slice(2)
const program = Effect.gen(function*() {
  const client = yield* McpClient
  const tools = yield* client.listTools
  const added = yield* client.callTool("add", { a: 1, b: 2 })
  return { era: client.server.protocolVersion, tools: tools.map((tool) => tool.name), sum: added.structuredContent }
}).pipe(Effect.provide(McpClient.layer().pipe(
  Layer.provide(StdioClientTransport.layerNode({ command: process.execPath, args: [server, "--stdio"] }))
)))
process.stdout.write(JSON.stringify(await Effect.runPromise(program)))
`

const text = (content: unknown): unknown => Array.isArray(content) ? (content[0] as { readonly text?: unknown } | undefined)?.text : undefined

/** list, call, read and prompt through the official client, whatever the transport. */
const exercise = async (client: Client): Promise<void> => {
  expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28")
  expect(client.getServerVersion()).toMatchObject({ name: "consumer-app", version: "1.0.0" })
  const { tools } = await client.listTools()
  expect(tools.map((tool) => tool.name)).toEqual(["add", "shout"])
  // One copy of effect: with two, a Schema of the app's copy fails in ours ("Expected a finite number").
  const added = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } })
  expect(added.isError).not.toBe(true)
  expect(added.structuredContent).toEqual({ sum: 3 })
  expect(text((await client.callTool({ name: "shout", arguments: { word: "hi" } })).content)).toBe("HI")
  const refused = await client.callTool({ name: "shout", arguments: { word: "" } })
  expect(refused.isError).toBe(true)
  expect(String(text(refused.content))).toContain("/word")
  const { resources } = await client.listResources()
  expect(resources.map((resource) => resource.uri)).toEqual(["app://readme"])
  const read = await client.readResource({ uri: "app://readme" })
  expect(read.contents[0]).toMatchObject({ uri: "app://readme", text: "An app built from the snodo tarballs." })
  const { prompts } = await client.listPrompts()
  expect(prompts.map((prompt) => prompt.name)).toEqual(["greet"])
  const prompt = await client.getPrompt({ name: "greet", arguments: { name: "Ada" } })
  expect(prompt.messages[0]).toMatchObject({ role: "user", content: { type: "text", text: "Hello, Ada!" } })
}

const newClient = () =>
  new Client({ name: "snodo-consumer-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })

describe("an application outside the workspace, on the packed tarballs", () => {
  it("packs only the build: no sources, tests, fixtures, JSON Schema test suite or stale outputs", () => {
    expect(packageNames).toEqual(["apps", "client", "core", "http", "json-schema", "oauth", "postgres", "protocol", "skills", "tasks", "tasks-sqlite", "testing"])
    expect(packed.map((pack) => pack.name).toSorted()).toEqual(packageNames.map((name) => `@snodo/${name}`))
    for (const pack of packed) {
      const paths = pack.files.map((file) => file.path)
      const dir = join(root, "packages", pack.name.replace("@snodo/", ""))
      expect(paths, pack.name).toContain("package.json")
      expect(paths, pack.name).toContain("dist/index.js")
      expect(paths, pack.name).toContain("dist/index.d.ts")
      expect(paths, pack.name).toContain("dist/index.js.map")
      // The package scope of the built files (`type` and `sideEffects` only), by scripts/bundle-dist.ts.
      expect(paths, pack.name).toContain("dist/package.json")
      for (const path of paths) {
        if (path === "package.json" || path === "README.md" || path === "LICENSE" || path === "dist/package.json") continue
        expect(path, pack.name).toMatch(/^dist\/.+\.(js|js\.map|d\.ts)$/)
        expect(path, pack.name).not.toMatch(/(^|\/)(test|tests|__tests__|fixtures?)\/|\.test\.|json-schema-test-suite|tsbuildinfo/i)
        // The modules public modules share at load time, bundled by scripts/bundle-dist.ts.
        if (path.startsWith("dist/chunks/")) {
          expect(path, pack.name).toMatch(/^dist\/chunks\/[\w-]+\.js(\.map)?$/)
          continue
        }
        // Every other output has its source: nothing left over from a module that moved.
        expect(existsSync(join(dir, path.replace(/^dist\//, "src/").replace(/\.(js|js\.map|d\.ts)$/, ".ts"))), `${pack.name} ${path}`).toBe(true)
      }
    }
    const json = packed.find((pack) => pack.name === "@snodo/json-schema")!.files.map((file) => file.path)
    expect(json).toContain("dist/JsonSchemaValidator.js")
  })

  it("installs exactly one copy of effect (a peer dependency of every package)", () => {
    const copies = installedCopies(app, "effect")
    expect(copies).toEqual([join(app, "node_modules", "effect")])
    expect(readJson<Manifest>(join(copies[0]!, "package.json")).version).toBe(readJson<Manifest>(join(root, "node_modules", "effect", "package.json")).version)
    expect(installedCopies(app, "@effect/platform-node")).toHaveLength(1)
    for (const name of packageNames) {
      expect(installedCopies(app, `@snodo/${name}`)).toEqual([join(app, "node_modules", "@snodo", name)])
    }
  })

  it("resolves every import to the compiled JavaScript in dist/, which loads; no internal module resolves", () => {
    const specifiers = [
      ...packageNames.map((name) => `@snodo/${name}`),
      "@snodo/apps/AppResource",
      "@snodo/client/oauth/OAuthClient",
      "@snodo/client/McpClient",
      "@snodo/client/StreamableHttpClientTransport",
      "@snodo/core/Tool",
      "@snodo/core/StdioTransport",
      "@snodo/core/extension",
      "@snodo/core/dialect",
      "@snodo/core/transport",
      "@snodo/protocol/wire/Tools",
      "@snodo/protocol/methods/Methods",
      "@snodo/core/extension/Route",
      "@snodo/protocol/peer/Peer",
      "@snodo/http/McpHttp",
      "@snodo/http/NodeServe",
      "@snodo/oauth/ResourceServer",
      "@snodo/skills/NodeSkillSource"
    ]
    const internal = [
      "@snodo/core/pipeline/StrictJson",
      "@snodo/core/server/Round",
      "@snodo/core/routes/Complete",
      "@snodo/core/internal/StrictJson",
      "@snodo/core/extension/RateWindow",
      "@snodo/core/extension/Semconv",
      "@snodo/core/UriTemplate",
      "@snodo/core/runtime/internal/Invocation",
      "@snodo/core/dialect/Admission",
      "@snodo/json-schema/internal/compiler"
    ]
    // Resolved, then loaded: every entry point runs with only what the app installed (no @effect/vitest).
    const script = `const out = {}
for (const specifier of ${JSON.stringify([...specifiers, ...internal])}) {
  try { out[specifier] = import.meta.resolve(specifier) } catch (error) { out[specifier] = error.code }
}
for (const specifier of ${JSON.stringify(specifiers)}) {
  try { await import(specifier) } catch (error) { out[specifier] = "failed to load: " + error.message }
}
process.stdout.write(JSON.stringify(out))`
    const resolved = JSON.parse(must(run(process.execPath, ["--input-type=module", "-e", script], app, 30_000), "import.meta.resolve in the app")) as Record<string, string>
    for (const specifier of specifiers) {
      const pkg = specifier.split("/").slice(0, 2).join("/")
      expect(resolved[specifier], specifier).toMatch(new RegExp(`/node_modules/${pkg}/dist/[A-Za-z/]+\\.js$`))
    }
    for (const specifier of internal) expect(resolved[specifier], specifier).toBe("ERR_PACKAGE_PATH_NOT_EXPORTED")
  })

  it("type-checks under the app's strict tsconfig against the shipped .d.ts", () => {
    expect(typecheck?.status, `${typecheck?.stdout ?? ""}${typecheck?.stderr ?? ""}`).toBe(0)
    const files = (typecheck?.stdout ?? "").split("\n")
    expect(files.some((file) => file.endsWith("/node_modules/@snodo/core/dist/index.d.ts"))).toBe(true)
    expect(files.some((file) => file.endsWith("/node_modules/@snodo/http/dist/NodeServe.d.ts"))).toBe(true)
    expect(files.some((file) => file.endsWith("/node_modules/@snodo/apps/dist/AppTool.d.ts"))).toBe(true)
    expect(files.some((file) => file.endsWith("/node_modules/@snodo/client/dist/oauth/OAuthClient.d.ts"))).toBe(true)
    expect(files.filter((file) => file.includes("/node_modules/@snodo/") && !file.endsWith(".d.ts"))).toEqual([])
    const tsconfig = readJson<{ readonly compilerOptions: Readonly<Record<string, unknown>> }>(join(app, "tsconfig.json")).compilerOptions
    expect(tsconfig).toMatchObject({ strict: true, allowImportingTsExtensions: false, noPropertyAccessFromIndexSignature: true, skipLibCheck: false })
  })

  it("loads a server from a few files of @snodo/core and @snodo/http, one copy of each module, no file of the older dialect, neither Effect's HTTP nor its Stream modules", () => {
    // What scripts/bundle-dist.ts is for: Node pays per file loaded, and the one-tool server
    // loaded 87 files of @snodo/core when dist/ held one file per source module.
    const script = `import module from "node:module"
const loaded = []
module.registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context) } })
const McpServer = await import("@snodo/core/McpServer")
const Tool = await import("@snodo/core/Tool")
await import("@snodo/core/StdioTransport")
await import("@snodo/http/NodeServe")
const beforeIndex = loaded.length
const builtins = process.moduleLoadList.filter((name) => /undici|http2|tls|https/.test(name))
const core = await import("@snodo/core")
process.stdout.write(JSON.stringify({
  files: loaded.filter((url) => url.includes("/node_modules/@snodo/core/")).map((url) => url.split("/@snodo/core/")[1]),
  server: loaded.slice(0, beforeIndex).filter((url) => url.includes("/node_modules/@snodo/")).map((url) => url.split("/node_modules/")[1]),
  effectHttp: loaded.slice(0, beforeIndex).filter((url) => url.includes("/node_modules/effect/dist/http/HttpServer")),
  effectStream: loaded.slice(0, beforeIndex).filter((url) => ["Stream", "PubSub", "Stdio"].some((name) => url.endsWith("/node_modules/effect/dist/" + name + ".js"))),
  builtins,
  sameTool: core.Tool.make === Tool.make && core.McpServer.make === McpServer.make
}))`
    const out = JSON.parse(must(run(process.execPath, ["--input-type=module", "-e", script], app, 30_000), "loading @snodo/core")) as {
      readonly files: ReadonlyArray<string>
      readonly server: ReadonlyArray<string>
      readonly effectHttp: ReadonlyArray<string>
      readonly effectStream: ReadonlyArray<string>
      readonly builtins: ReadonlyArray<string>
      readonly sameTool: boolean
    }
    // NodeServe.serve answers on Node's own HTTP server: Effect's HTTP server modules are not loaded
    // (effect/Schema itself loads its header and cookie modules).
    expect(out.effectHttp).toEqual([])
    const beforeIndex = out.files.slice(0, out.files.indexOf("dist/index.js"))
    expect(beforeIndex).toContain("dist/catalog/Tool.js")
    expect(beforeIndex.length, beforeIndex.join("\n")).toBeLessThanOrEqual(32)
    expect(beforeIndex.filter((file) => /Dialect2025/.test(file))).toEqual([])
    // Every file the four imports load: no file of the older dialect is among them (its routes are
    // in the shared chunk, imported statically so that a one-file bundle of a server defers no
    // module: docs/startup.md), `@snodo/http/NodeServe` is one file and its chunk, and Effect's
    // `Stream` (with `Channel`, `Sink`, `Queue`), which only the `Stdio` service and `McpEvents`
    // use, is not loaded.
    expect(out.server.filter((file) => /Dialect2025/.test(file))).toEqual([])
    expect(out.server.filter((file) => file.startsWith("@snodo/http/")), out.server.join("\n")).toHaveLength(2)
    expect(out.effectStream).toEqual([])
    // Node's built-ins are got where used, not imported: an import of `node:http` reads every export
    // of its module facade, which loads undici; HTTP/2 and TLS are loaded only for h2c or tls.
    expect(out.builtins).toEqual([])
    expect(out.sameTool).toBe(true)
  })

  it("serves the official client over stdio", async () => {
    const client = newClient()
    const transport = new StdioClientTransport({ command: process.execPath, args: ["dist/main.js", "--stdio"], cwd: app, stderr: "pipe" })
    try {
      await client.connect(transport)
      await exercise(client)
    } finally {
      await client.close()
    }
  })

  it("serves the official client over HTTP (NodeServe)", async () => {
    const server: ChildProcess = spawn(process.execPath, ["dist/main.js", "--http"], { cwd: app, env: cleanEnv, stdio: ["ignore", "ignore", "pipe"] })
    const client = newClient()
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let seen = ""
        const timer = setTimeout(() => reject(new Error(`the app did not start:\n${seen}`)), 20_000)
        server.stderr?.setEncoding("utf8")
        server.stderr?.on("data", (chunk: string) => {
          seen += chunk
          const match = /listening on (http:\/\/\S+)/.exec(seen)
          if (match !== null) {
            clearTimeout(timer)
            resolve(match[1]!)
          }
        })
        server.once("exit", (code) => {
          clearTimeout(timer)
          reject(new Error(`the app exited (${code}):\n${seen}`))
        })
      })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      await exercise(client)
    } finally {
      await client.close()
      server.kill("SIGTERM")
    }
  })

  it("runs its own check with @snodo/testing's in-memory client", () => {
    // The last line: Effect's default logger writes to stdout too.
    const out = must(run(process.execPath, ["dist/selftest.js"], app, 60_000), "node dist/selftest.js").trim().split("\n").at(-1)
    expect(JSON.parse(out ?? "")).toEqual({ structured: { sum: 3 }, refused: true, tools: ["add", "shout"] })
  }, spawnedTestTimeout)

  it("loads what a server loads at first use from the installed package (basic JSON Schema backend, request events, listen streams, 2025-11-25 inputs)", () => {
    const out = must(run(process.execPath, ["dist/lazy.js"], app, 60_000), "node dist/lazy.js").trim().split("\n").at(-1)
    expect(JSON.parse(out ?? "")).toEqual({
      versions: ["2026-07-28", "2025-11-25"],
      listChanged: true,
      refused: true,
      shouted: [{ type: "text", text: "HI" }],
      stops: 3
    })
  }, spawnedTestTimeout)

  it("installs @snodo/client alone, with no server package, and drives a snodo server with it", () => {
    expect(installedCopies(clientApp, "@snodo/core")).toEqual([])
    expect(installedCopies(clientApp, "@snodo/http")).toEqual([])
    expect(installedCopies(clientApp, "@snodo/protocol")).toEqual([join(clientApp, "node_modules", "@snodo", "protocol")])
    expect(installedCopies(clientApp, "effect")).toEqual([join(clientApp, "node_modules", "effect")])
    const out = must(run(process.execPath, ["agent.mjs", join(app, "dist", "main.js")], clientApp, 60_000), "node agent.mjs")
    expect(JSON.parse(out)).toEqual({ era: "2026-07-28", tools: ["add", "shout"], sum: { sum: 3 } })
  }, spawnedTestTimeout)
})
