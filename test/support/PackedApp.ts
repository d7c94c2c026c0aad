/**
 * An application outside the workspace, on the packages as npm would deliver them: workspaces
 * packed with `npm pack` (from their build in `dist/`), installed into a folder of its own with
 * `npm ci --offline` from a lock file written here. The registry entries of that lock are copied
 * from our package-lock.json (so only tarballs the repository's own `npm ci` put in the npm cache
 * are needed, no registry metadata), the packed tarballs are named by their integrity.
 *
 * Used by `test/consumer/` (the packages as an application gets them) and the bench's start-up
 * scenario (`bench/startup.ts`: every peer started as its users start it). Every process started
 * in such an app should run with `cleanEnv`: without our `NODE_OPTIONS` (the checkout's
 * `@snodo/source` condition) or npm's script variables, as an application's would.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/** The checkout. */
export const root = fileURLToPath(new URL("../../", import.meta.url))

/**
 * The environment of every process in an app: ours without the checkout's condition, npm's script
 * variables or a compile cache in the checkout (the one `vitest.config.ts` sets for the tests: the
 * app's modules, in a new temporary folder each run, would add ~7 MB to it every run).
 */
const keptNpmVariables = new Set(["npm_config_cache", "npm_config_userconfig", "npm_config_globalconfig", "npm_config_registry"])
export const cleanEnv: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key, value]) =>
    key !== "NODE_OPTIONS" && key !== "INIT_CWD" && (!key.startsWith("npm_") || keptNpmVariables.has(key)) &&
    !(key === "NODE_COMPILE_CACHE" && value?.startsWith(root) === true)
  )
)

export const run = (command: string, args: ReadonlyArray<string>, cwd: string, timeoutMs: number): SpawnSyncReturns<string> =>
  spawnSync(command, args, { cwd, env: cleanEnv, encoding: "utf8", timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 })

export const must = (result: SpawnSyncReturns<string>, what: string): string => {
  if (result.status !== 0) {
    throw new Error(`${what} failed (${result.status ?? result.signal ?? String(result.error)}):\n${result.stdout}\n${result.stderr}`)
  }
  return result.stdout
}

export interface Packed {
  readonly name: string
  readonly version: string
  readonly filename: string
  readonly integrity: string
  readonly files: ReadonlyArray<{ readonly path: string }>
}

export interface Manifest {
  readonly name: string
  readonly version: string
  readonly license?: string
  readonly engines?: Readonly<Record<string, string>>
  readonly exports?: unknown
  readonly dependencies?: Readonly<Record<string, string>>
  readonly peerDependencies?: Readonly<Record<string, string>>
}

interface LockEntry {
  readonly version?: string
  readonly link?: boolean
  readonly dependencies?: Readonly<Record<string, string>>
  readonly optionalDependencies?: Readonly<Record<string, string>>
  readonly peerDependencies?: Readonly<Record<string, string>>
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>
}

export const readJson = <A>(path: string): A => JSON.parse(readFileSync(path, "utf8")) as A

/** A packed workspace: what `npm pack` said of it, and its package.json. */
export interface Tarball {
  readonly packed: Packed
  readonly manifest: Manifest
}

/** The manifest of an app: its dependencies (tarballs as `file:../packs/…`, the rest at our lock's versions). */
export interface AppManifest extends Manifest {
  readonly devDependencies: Readonly<Record<string, string>>
}

const ourLock = (): Readonly<Record<string, LockEntry>> =>
  readJson<{ readonly packages: Readonly<Record<string, LockEntry>> }>(join(root, "package-lock.json")).packages

/** The version of a top-level package in our package-lock.json. */
export const locked = (name: string): string => ourLock()[`node_modules/${name}`]?.version ?? `(${name} is not in package-lock.json)`

/**
 * Packs workspaces (`names`: the folders under `packages/`; all of them when omitted) into
 * `packs`, from their build: `npm run build` first.
 */
export const pack = (packs: string, names?: ReadonlyArray<string>): ReadonlyArray<Tarball> => {
  mkdirSync(packs, { recursive: true })
  const which = names === undefined ? ["--workspaces"] : names.flatMap((name) => ["--workspace", `packages/${name}`])
  const packed = JSON.parse(must(run("npm", ["pack", ...which, "--pack-destination", packs, "--json", "--loglevel=error"], root, 60_000), "npm pack")) as Array<Packed>
  return packed.map((one) => ({ packed: one, manifest: readJson<Manifest>(join(root, "packages", one.name.replace("@snodo/", ""), "package.json")) }))
}

/**
 * The app's lock file: the tarballs by integrity, and every registry package they or the app need,
 * copied with its place in the tree from our own lock (which `npm ci` installed from the cache).
 * The tarballs are expected in `../packs/` next to the app.
 */
export const lockFor = (app: AppManifest, tarballs: ReadonlyArray<Tarball>) => {
  const ours = ourLock()
  // Node's lookup: the package's own node_modules, then each ancestor's, then the top level.
  const locate = (from: string, name: string): string | undefined => {
    let dir = from
    for (;;) {
      const candidate = `${dir === "" ? "" : `${dir}/`}node_modules/${name}`
      if (ours[candidate] !== undefined) return candidate
      if (dir === "") return undefined
      const parent = dir.lastIndexOf("/node_modules/")
      dir = parent < 0 ? "" : dir.slice(0, parent)
    }
  }
  const copied: Record<string, LockEntry> = {}
  const visit = (from: string, name: string, optional: boolean): void => {
    if (name.startsWith("@snodo/")) return
    const at = locate(from, name)
    if (at === undefined) {
      if (optional) return
      throw new Error(`${name} (needed by ${from === "" ? "the app" : from}) is not in package-lock.json`)
    }
    if (copied[at] !== undefined) return
    const entry = ours[at]!
    if (entry.link === true) throw new Error(`${at} is a workspace link in package-lock.json`)
    copied[at] = entry
    for (const dep of Object.keys(entry.dependencies ?? {})) visit(at, dep, false)
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) visit(at, dep, true)
    for (const dep of Object.keys(entry.peerDependencies ?? {})) visit(at, dep, entry.peerDependenciesMeta?.[dep]?.optional === true)
  }
  for (const name of [...Object.keys(app.dependencies ?? {}), ...Object.keys(app.devDependencies)]) {
    if (!name.startsWith("@snodo/")) visit("", name, false)
  }
  for (const { manifest } of tarballs) {
    for (const name of [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]) visit("", name, false)
  }
  const packages: Record<string, unknown> = {
    "": { name: app.name, version: app.version, dependencies: app.dependencies, devDependencies: app.devDependencies }
  }
  for (const { packed, manifest } of tarballs) {
    packages[`node_modules/${manifest.name}`] = {
      version: manifest.version,
      resolved: `file:../packs/${packed.filename}`,
      integrity: packed.integrity,
      license: manifest.license,
      dependencies: manifest.dependencies,
      peerDependencies: manifest.peerDependencies,
      engines: manifest.engines
    }
  }
  for (const key of Object.keys(copied).toSorted()) packages[key] = copied[key]
  return { name: app.name, version: app.version, lockfileVersion: 3, requires: true, packages }
}

/**
 * Writes `dir/package.json` (the tarballs, and `registry` packages at our lock's versions) with its
 * lock file and installs it offline. The tarballs must be in `dir/../packs/`.
 */
export const install = (options: {
  readonly dir: string
  readonly name: string
  readonly tarballs: ReadonlyArray<Tarball>
  readonly registry: ReadonlyArray<string>
  readonly devRegistry?: ReadonlyArray<string>
}): AppManifest => {
  const manifest = {
    name: options.name,
    version: "1.0.0",
    private: true,
    type: "module",
    dependencies: {
      ...Object.fromEntries(options.tarballs.map(({ packed }) => [packed.name, `file:../packs/${packed.filename}`])),
      ...Object.fromEntries(options.registry.map((name) => [name, locked(name)]))
    },
    devDependencies: Object.fromEntries((options.devRegistry ?? []).map((name) => [name, locked(name)]))
  }
  mkdirSync(options.dir, { recursive: true })
  writeFileSync(join(options.dir, "package.json"), JSON.stringify(manifest, null, 2))
  writeFileSync(join(options.dir, "package-lock.json"), JSON.stringify(lockFor(manifest, options.tarballs), null, 2))
  must(run("npm", ["ci", "--offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], options.dir, 180_000), `npm ci --offline in ${options.dir}`)
  return manifest
}

/** Every installed package of that name under `dir` (a node_modules tree), as paths. */
export const installedCopies = (dir: string, name: string): Array<string> => {
  const found: Array<string> = []
  const walk = (modules: string): void => {
    if (!existsSync(modules)) return
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith(".")) continue
      const dirs = entry.startsWith("@") ? readdirSync(join(modules, entry)).map((scoped) => join(modules, entry, scoped)) : [join(modules, entry)]
      for (const pkg of dirs) {
        const manifest = join(pkg, "package.json")
        if (existsSync(manifest) && readJson<Manifest>(manifest).name === name) found.push(pkg)
        walk(join(pkg, "node_modules"))
      }
    }
  }
  walk(join(dir, "node_modules"))
  return found
}
