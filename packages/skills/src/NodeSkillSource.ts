/**
 * A skill source on a directory on disk (Node): each folder under `root` with a `SKILL.md` is a
 * skill, at the path of that folder (`root/acme/refunds/SKILL.md` is `skill://acme/refunds/SKILL.md`).
 *
 * Every read walks the directory afresh (at load and on each `reload`). Files and folders whose
 * name starts with `.` are not served (`.git`, `.env`, editor files). A symbolic link or any other
 * special file fails the read with a `SkillsError` (`Source`) naming it, rather than serving what
 * it points to; so does a directory holding more than `maxBytes` (default 64 MiB) or `maxFiles`
 * (default 10,000) files in all.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import * as NodeSkillSource from "@snodo/skills/NodeSkillSource"
 * import * as SkillCatalog from "@snodo/skills/SkillCatalog"
 *
 * const Skills = SkillCatalog.layer().pipe(Layer.provide(NodeSkillSource.layer("./skills")))
 * ```
 *
 * @since 0.1.0
 */
import { lstat, readdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { type Files, SkillSource } from "./SkillSource.ts"
import * as SkillsError from "./SkillsError.ts"

/**
 * Bounds of one read of the directory.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Bytes of all files together. Default 64 MiB. */
  readonly maxBytes?: number
  /** Files in all. Default 10,000. */
  readonly maxFiles?: number
}

/**
 * The defaults.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults = { maxBytes: 64 * 1024 * 1024, maxFiles: 10_000 } as const

const walk = async (root: string, options: Required<Options>): Promise<Files | SkillsError.SkillsError> => {
  const files = new Map<string, Uint8Array>()
  let bytes = 0
  const visit = async (relative: string): Promise<SkillsError.SkillsError | undefined> => {
    const entries = await readdir(join(root, relative), { withFileTypes: true })
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`
      if (entry.isDirectory()) {
        const failed = await visit(path)
        if (failed !== undefined) return failed
      } else if (entry.isFile()) {
        if (files.size >= options.maxFiles) return SkillsError.make("Limit", "", `the directory holds more than ${options.maxFiles} files`)
        const content = await readFile(join(root, path))
        bytes += content.byteLength
        if (bytes > options.maxBytes) return SkillsError.make("Limit", "", `the directory holds more than ${options.maxBytes} bytes`)
        files.set(path, new Uint8Array(content.buffer, content.byteOffset, content.byteLength))
      } else {
        return SkillsError.make("Source", path, entry.isSymbolicLink() ? "symbolic links are not served" : "only regular files and folders are served")
      }
    }
    return undefined
  }
  const stats = await lstat(root)
  if (!stats.isDirectory()) return SkillsError.make("Source", "", `${root} is not a directory`)
  const failed = await visit("")
  return failed ?? files
}

/**
 * A source reading the directory `root`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (root: string, options: Options = {}): SkillSource["Service"] => {
  const bounds = { ...defaults, ...options }
  return SkillSource.of({
    files: Effect.tryPromise({
      try: () => walk(root, bounds),
      catch: (cause) => SkillsError.make("Source", "", `cannot read ${root}: ${cause instanceof Error ? cause.message : String(cause)}`, cause)
    }).pipe(Effect.flatMap((result) => result instanceof SkillsError.SkillsError ? Effect.fail(result) : Effect.succeed(result)))
  })
}

/**
 * A source reading the directory `root`, as a Layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (root: string, options?: Options): Layer.Layer<SkillSource> => Layer.succeed(SkillSource, make(root, options))
