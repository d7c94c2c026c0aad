/**
 * The skills a server serves: loaded from a `SkillSource`, checked once, held as one immutable
 * snapshot that every request reads.
 *
 * Loading reads every file of the source, finds each folder with a `SKILL.md`, parses its
 * frontmatter (see `Frontmatter`), checks the rules of the specification and computes each file's
 * `sha256:` digest and size. A broken rule fails the Layer with a {@link SkillsError} naming the
 * file; nothing is half-served. The snapshot holds the files' bytes, so what a client reads is
 * always what the listing's digests promise.
 *
 * `reload` reads the source again and swaps the new snapshot in at once (all or nothing: on failure
 * the old one keeps serving), and announces what changed on `changes`; the Skills extension turns
 * that into `notifications/resources/list_changed` and `notifications/resources/updated` for
 * `subscriptions/listen` streams.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import * as SkillCatalog from "@snodo/skills/SkillCatalog"
 * import * as SkillSource from "@snodo/skills/SkillSource"
 *
 * const Catalog = SkillCatalog.layer({ prefix: "acme" }).pipe(Layer.provide(SkillSource.layerMemory({
 *   "refunds/SKILL.md": "---\nname: refunds\ndescription: Refund requests per policy\n---\n"
 * })))
 *
 * const reload = SkillCatalog.SkillCatalog.use((catalog) => catalog.reload) // Effect<Changes, SkillsError>
 * ```
 *
 * @since 0.1.0
 */
import * as Pagination from "@snodo/core/extension/Pagination"
import { Context, Effect, Layer, PubSub, type Scope, Semaphore } from "effect"
import * as Frontmatter from "./Frontmatter.ts"
import * as Sliced from "./internal/Sliced.ts"
import * as Skill from "./Skill.ts"
import type { SkillsError } from "./SkillsError.ts"
import * as Errors from "./SkillsError.ts"
import { type Files, SkillSource } from "./SkillSource.ts"

/**
 * Options of a catalog; every limit has a default.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** An organisational prefix: `"acme"` serves `skill://acme/<skill>/…`. Default none. */
  readonly prefix?: string
  /** Files per skill, `SKILL.md` included. Default 512 (the specification's limit). */
  readonly maxFilesPerSkill?: number
  /** Bytes per skill, summed over its files. Default 16 MiB (the specification's limit). */
  readonly maxBytesPerSkill?: number
  /** Skills per catalog. Default 10,000. */
  readonly maxSkills?: number
  /** Entries per page of `skills/list` and `resources/directory/read`. Default 100. */
  readonly pageSize?: number
}

/**
 * The defaults.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults = {
  maxFilesPerSkill: Skill.limits.files,
  maxBytesPerSkill: Skill.limits.bytes,
  maxSkills: 10_000,
  pageSize: Pagination.defaultPageSize
} as const

/**
 * One file as served.
 *
 * @since 0.1.0
 * @category models
 */
export interface File {
  readonly uri: string
  readonly bytes: Uint8Array
  readonly mimeType: string
  /** The UTF-8 text, when the file is textual and its bytes are UTF-8 (else it is sent as a blob). */
  readonly text: string | undefined
  readonly digest: string
  readonly size: number
}

/**
 * A `Resource` as `resources/list` and `resources/directory/read` carry it.
 *
 * @since 0.1.0
 * @category models
 */
export type ResourceInfo = Readonly<Record<string, unknown>> & { readonly uri: string }

/**
 * Everything served, as of one load.
 *
 * @since 0.1.0
 * @category models
 */
export interface Snapshot {
  /** The entries, sorted by URI, paged for `skills/list`. */
  readonly skills: Pagination.PagedList<Skill.Skill>
  /** Entries by the URI of their `SKILL.md`. */
  readonly byUri: ReadonlyMap<string, Skill.Skill>
  /** Every file by URI. */
  readonly files: ReadonlyMap<string, File>
  /** The direct children of every directory (skill roots and their subfolders), paged. */
  readonly directories: ReadonlyMap<string, Pagination.PagedList<ResourceInfo>>
  /** Each `SKILL.md` as a resource of `resources/list` (name and description from its frontmatter). */
  readonly listed: ReadonlyArray<ResourceInfo>
}

/**
 * What a `reload` changed.
 *
 * @since 0.1.0
 * @category models
 */
export interface Changes {
  /** `SKILL.md` URIs of skills added, removed, and changed (frontmatter or any file). */
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  readonly changed: ReadonlyArray<string>
  /** Files whose bytes changed or that are gone (`notifications/resources/updated`). */
  readonly updated: ReadonlyArray<string>
  /** Whether what `resources/list` and `skills/list` show changed (a skill added or removed, a name or description). */
  readonly listChanged: boolean
}

const segmentPattern = /^[A-Za-z0-9._~!$&'()*+,;=:@-]+$/

/** Why a relative path cannot be served, or `undefined`. */
const badPath = (path: string): string | undefined => {
  if (path.length === 0 || path.startsWith("/") || path.endsWith("/")) return "paths are relative, /-separated, without a trailing /"
  for (const segment of path.split("/")) {
    if (segment === "" || segment === "." || segment === "..") return "paths have no empty, . or .. segments"
    if (!segmentPattern.test(segment)) return `"${segment}" is not a valid URI path segment (letters, digits and -._~!$&'()*+,;=:@)`
  }
  return undefined
}

const decoder = new TextDecoder("utf-8", { fatal: true })

const textOf = (bytes: Uint8Array, mimeType: string): string | undefined => {
  if (!Skill.isTextual(mimeType)) return undefined
  try {
    return decoder.decode(bytes)
  } catch {
    return undefined
  }
}

const byUri = (a: { readonly uri: string }, b: { readonly uri: string }) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0)

/**
 * Builds a snapshot from a source's files, checking every rule.
 *
 * The work is linear in the files and their depth, and it runs in slices of a few milliseconds:
 * between slices the fiber lets the event loop run, so requests served from the current snapshot
 * keep being answered while a `reload` builds the next.
 *
 * @since 0.1.0
 * @category constructors
 */
export const build = (files: Files, options: Options = {}): Effect.Effect<Snapshot, SkillsError> =>
  Effect.flatMap(
    Sliced.run(() => buildSteps(files, options), (cause) => Errors.make("Source", "", `cannot build the catalog: ${String(cause)}`, cause)),
    (result) => result instanceof Errors.SkillsError ? Effect.fail(result) : Effect.succeed(result)
  )

/** Every ancestor folder of `path`, outermost first (`a/b/c.md`: `a`, `a/b`). */
const ancestorsOf = (path: string): Array<string> => {
  const ancestors: Array<string> = []
  for (let slash = path.indexOf("/"); slash >= 0; slash = path.indexOf("/", slash + 1)) ancestors.push(path.slice(0, slash))
  return ancestors
}

/**
 * The build as a sequence of steps: it yields after each unit of work (a path, a skill, a folder)
 * so that {@link build} can pause between slices; it returns the snapshot or the first broken rule.
 * Each path is visited a bounded number of times per folder above it: no step scans every path.
 */
function* buildSteps(files: Files, options: Options): Generator<void, Snapshot | SkillsError> {
  const limits = { ...defaults, ...options }
  const prefix = options.prefix
  if (prefix !== undefined) {
    const bad = badPath(prefix)
    if (bad !== undefined) return Errors.make("Layout", "", `prefix "${prefix}": ${bad}`)
  }
  const paths = [...files.keys()].toSorted()
  for (const path of paths) {
    const bad = badPath(path)
    if (bad !== undefined) return Errors.make("Layout", path, bad)
  }
  yield
  const uriOf = (path: string) => `${Skill.scheme}${prefix === undefined ? "" : `${prefix}/`}${path}`
  const roots = paths.filter((path) => path === "SKILL.md" || path.endsWith("/SKILL.md")).map((path) => path.slice(0, -"SKILL.md".length - 1))
  if (roots.includes("")) return Errors.make("Layout", "SKILL.md", "a SKILL.md at the root of the source: put each skill in a folder named after it")
  if (roots.length > limits.maxSkills) return Errors.make("Limit", "", `more than ${limits.maxSkills} skills`)
  for (const path of prefix === undefined ? roots : [prefix]) {
    const first = path.split("/")[0]!
    if (first !== first.toLowerCase()) {
      return Errors.make("Layout", prefix === undefined ? first : "", `"${first}" is the URI's authority, which clients may lowercase: use lowercase`)
    }
  }

  // The files of each skill, in path order: a file belongs to every skill folder above it (a skill
  // nested in another is part of the outer one too). One pass, looking up each ancestor folder.
  const inside = new Map<string, Array<string>>(roots.map((root) => [root, []]))
  /** Every file by its path in the source. */
  const served = new Map<string, File>()
  for (const path of paths) {
    for (const ancestor of ancestorsOf(path)) inside.get(ancestor)?.push(path)
    const bytes = files.get(path)!
    const mimeType = path.endsWith("/SKILL.md") ? Skill.markdownMimeType : Skill.mimeTypeOf(path)
    const uri = uriOf(path)
    served.set(path, { uri, bytes, mimeType, text: textOf(bytes, mimeType), digest: Skill.digestOf(bytes), size: bytes.byteLength })
    yield
  }

  const skills: Array<Skill.Skill> = []
  const listed: Array<ResourceInfo> = []
  // The direct children of every folder of a skill (its root and the folders below it), by name.
  const children = new Map<string, Map<string, ResourceInfo>>()
  const childOf = (directory: string, name: string, file: File | undefined) => {
    let entries = children.get(directory)
    if (entries === undefined) children.set(directory, entries = new Map())
    if (entries.has(name)) return
    const uri = uriOf(`${directory}/${name}`)
    entries.set(name, file === undefined ? { uri, name, mimeType: Skill.directoryMimeType } : { uri, name, mimeType: file.mimeType, size: file.size })
  }
  for (const root of roots) {
    const manifestPath = `${root}/SKILL.md`
    const manifest = served.get(manifestPath)!
    if (manifest.text === undefined) return Errors.make("Frontmatter", manifestPath, "SKILL.md is not UTF-8 text")
    const frontmatter = Frontmatter.parse(manifest.text)
    if (typeof frontmatter === "string") return Errors.make("Frontmatter", manifestPath, frontmatter)
    const folder = root.slice(root.lastIndexOf("/") + 1)
    if (!Skill.isValidName(frontmatter.name)) {
      return Errors.make("Name", manifestPath, `name "${frontmatter.name}" breaks the naming rules (1-64 lowercase letters, digits and hyphens; no leading, trailing or double hyphen)`)
    }
    if (frontmatter.name !== folder) return Errors.make("Name", manifestPath, `name "${frontmatter.name}" differs from its folder "${folder}"`)
    const own = inside.get(root)!
    if (own.length > limits.maxFilesPerSkill) {
      return Errors.make("Limit", root, `${own.length} files, more than the ${limits.maxFilesPerSkill} allowed per skill`)
    }
    const resources: Array<Skill.ResourceEntry> = []
    let total = 0
    for (const path of [manifestPath, ...own.filter((other) => other !== manifestPath)]) {
      const file = served.get(path)!
      total += file.size
      resources.push({ uri: file.uri, digest: file.digest, size: file.size })
      // Each folder from the skill's root down to the file's lists the next step towards it.
      let directory = root
      for (let slash = path.indexOf("/", root.length + 1); slash >= 0; slash = path.indexOf("/", slash + 1)) {
        childOf(directory, path.slice(directory.length + 1, slash), undefined)
        directory = path.slice(0, slash)
      }
      childOf(directory, path.slice(directory.length + 1), file)
    }
    if (total > limits.maxBytesPerSkill) {
      return Errors.make("Limit", root, `${total} bytes, more than the ${limits.maxBytesPerSkill} allowed per skill`)
    }
    skills.push({ uri: manifest.uri, frontmatter, resources })
    listed.push({
      uri: manifest.uri,
      name: frontmatter.name,
      description: frontmatter.description,
      mimeType: Skill.markdownMimeType,
      size: manifest.size
    })
    yield
  }

  const directories = new Map<string, Pagination.PagedList<ResourceInfo>>()
  for (const directory of [...children.keys()].toSorted()) {
    const uri = uriOf(directory)
    directories.set(uri, Pagination.makeList([...children.get(directory)!.values()].toSorted(byUri), limits.pageSize, uri))
    yield
  }

  // Only the files of skills are served (a file outside every skill folder is not a resource).
  const files_ = new Map<string, File>()
  for (const own of inside.values()) {
    for (const path of own) {
      const file = served.get(path)!
      files_.set(file.uri, file)
    }
    yield
  }
  const sorted = skills.toSorted(byUri)
  yield
  const skillList = Pagination.makeList(sorted, limits.pageSize)
  yield
  const byUri_ = new Map(sorted.map((skill) => [skill.uri, skill]))
  yield
  return { skills: skillList, byUri: byUri_, files: files_, directories, listed: listed.toSorted(byUri) }
}

/**
 * What changed between two snapshots.
 *
 * @since 0.1.0
 * @category utils
 */
export const diff = (before: Snapshot, after: Snapshot): Changes => {
  const added = [...after.byUri.keys()].filter((uri) => !before.byUri.has(uri))
  const removed = [...before.byUri.keys()].filter((uri) => !after.byUri.has(uri))
  const changed = [...after.byUri.entries()]
    .filter(([uri, skill]) => {
      const old = before.byUri.get(uri)
      return old !== undefined && !sameFiles(old, skill)
    })
    .map(([uri]) => uri)
  const updated = [...before.files.values()].filter((file) => after.files.get(file.uri)?.digest !== file.digest).map((file) => file.uri)
  return { added, removed, changed, updated, listChanged: !sameListing(before.listed, after.listed) }
}

/**
 * Whether two entries of a skill name the same files with the same digests. The frontmatter needs
 * no comparing: it is read from `SKILL.md`, whose digest is among them. (Comparing each entry's
 * JSON instead held a reload of 10,000 skills for a fifth of a second.)
 */
const sameFiles = (a: Skill.Skill, b: Skill.Skill): boolean =>
  a.resources.length === b.resources.length &&
  a.resources.every((file, index) => {
    const other = b.resources[index]!
    return file.uri === other.uri && file.digest === other.digest && file.size === other.size
  })

/** Whether `resources/list` and `skills/list` show the same skills, names and descriptions. */
const sameListing = (a: ReadonlyArray<ResourceInfo>, b: ReadonlyArray<ResourceInfo>): boolean =>
  a.length === b.length &&
  a.every((entry, index) => {
    const other = b[index]!
    return entry.uri === other.uri && entry["name"] === other["name"] && entry["description"] === other["description"]
  })

/**
 * @since 0.1.0
 * @category services
 */
export class SkillCatalog extends Context.Service<SkillCatalog, {
  /** The snapshot serving now (synchronous: requests read it without waiting). */
  readonly snapshot: () => Snapshot
  /** Reads the source again and swaps the result in; on failure the old snapshot keeps serving. */
  readonly reload: Effect.Effect<Changes, SkillsError>
  /** Receives the changes of every later `reload` until the scope closes. */
  readonly changes: Effect.Effect<PubSub.Subscription<Changes>, never, Scope.Scope>
}>()("@snodo/skills/SkillCatalog") {}

/**
 * Loads a catalog from the `SkillSource` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<SkillCatalog["Service"], SkillsError, SkillSource> =>
  Effect.gen(function*() {
    const source = yield* SkillSource
    let current = yield* Effect.flatMap(source.files, (files) => build(files, options))
    // Unbounded on purpose: each reload's diff must reach every subscriber (a lost one leaves
    // clients' caches stale), and a bounded publish would hold `reload` for a subscriber that
    // stopped reading. Reloads are the application's, one at a time, and rare.
    const pubsub = yield* PubSub.unbounded<Changes>()
    // One reload at a time: each diffs against the snapshot the previous one left.
    const lock = yield* Semaphore.make(1)
    const reload = Effect.gen(function*() {
      const next = yield* Effect.flatMap(source.files, (files) => build(files, options))
      const changes = diff(current, next)
      current = next
      yield* PubSub.publish(pubsub, changes)
      return changes
    })
    return SkillCatalog.of({
      snapshot: () => current,
      reload: Semaphore.withPermit(lock, reload),
      changes: PubSub.subscribe(pubsub)
    })
  })

/**
 * The catalog as a Layer: fails with the {@link SkillsError} of the first broken rule.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<SkillCatalog, SkillsError, SkillSource> =>
  Layer.effect(SkillCatalog, make(options))
