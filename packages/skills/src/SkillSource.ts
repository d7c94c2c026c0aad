/**
 * Where skills come from: a service that reads every file of a set of skill folders.
 *
 * A source answers one question, `files`: the bytes of every file it holds, keyed by `/`-separated
 * paths relative to its root (`pdf-processing/SKILL.md`, `pdf-processing/templates/invoice.md`).
 * Each folder with a `SKILL.md` is a skill. The catalog asks when it loads and on every
 * `reload`; a source reads afresh each time. {@link layerMemory} serves values held in memory;
 * `NodeSkillSource.layer(root)` a directory on disk.
 *
 * @example
 * ```ts
 * import * as SkillSource from "@snodo/skills/SkillSource"
 *
 * const Source = SkillSource.layerMemory({
 *   "git-workflow/SKILL.md": "---\nname: git-workflow\ndescription: Branch and commit conventions\n---\n# Git\n"
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { SkillsError } from "./SkillsError.ts"

/**
 * Every file of a source: bytes by relative path.
 *
 * @since 0.1.0
 * @category models
 */
export type Files = ReadonlyMap<string, Uint8Array>

/**
 * @since 0.1.0
 * @category services
 */
export class SkillSource extends Context.Service<SkillSource, {
  /** Reads every file afresh. */
  readonly files: Effect.Effect<Files, SkillsError>
}>()("@snodo/skills/SkillSource") {}

/**
 * Files given as text (UTF-8) or bytes.
 *
 * @since 0.1.0
 * @category models
 */
export type Values = Readonly<Record<string, string | Uint8Array>>

const encoder = new TextEncoder()

const toFiles = (values: Values): Files =>
  new Map(Object.entries(values).map(([path, value]) => [path, typeof value === "string" ? encoder.encode(value) : value]))

/**
 * A source in memory whose files can be replaced (then `reload` the catalog).
 *
 * @since 0.1.0
 * @category models
 */
export type MemorySource = SkillSource["Service"] & {
  /** Replaces every file. */
  readonly replace: (values: Values) => Effect.Effect<void>
}

/**
 * A source of values held in memory.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (values: Values): MemorySource => {
  let current = toFiles(values)
  return {
    files: Effect.sync(() => current),
    replace: (next) => Effect.sync(() => void (current = toFiles(next)))
  }
}

/**
 * A source of values held in memory, as a Layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (values: Values): Layer.Layer<SkillSource> => Layer.sync(SkillSource, () => makeMemory(values))
