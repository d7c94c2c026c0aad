/**
 * Why a set of skills cannot be served: the typed error of loading (a Layer failure) and reloading.
 *
 * Every rule is checked when the skills are loaded, never while serving: a skill over a limit, a
 * `SKILL.md` without valid frontmatter, a folder whose name is not the skill's `name`, a file the
 * source cannot read. The error names the rule (`reason`) and the file or folder (`path`, relative
 * to the source), so the message is enough to fix the skill.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as SkillCatalog from "@snodo/skills/SkillCatalog"
 *
 * const refused = SkillCatalog.build(new Map([["bad/SKILL.md", new TextEncoder().encode("no frontmatter")]])).pipe(
 *   Effect.catchTag("SkillsError", (error) => Effect.logError(error.reason, error.path, error.message))
 * ) // logs: Frontmatter bad/SKILL.md skills: bad/SKILL.md: SKILL.md must begin with YAML frontmatter …
 * ```
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * The rule a skill broke:
 *
 * - `Source`: the source could not be read (a missing folder, an unreadable file, a symlink);
 * - `Layout`: a path that cannot be served (a `SKILL.md` at the root of the source, a `..` segment);
 * - `Frontmatter`: `SKILL.md` does not begin with YAML frontmatter holding a `name` and a
 *   `description`, or the YAML is not plain data;
 * - `Name`: the skill's `name` breaks the Agent Skills naming rules, or differs from its folder's name;
 * - `Limit`: a skill has more files or bytes than allowed (default 512 files, 16 MiB), or the
 *   source holds more than its bound.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Reason = Schema.Literals(["Source", "Layout", "Frontmatter", "Name", "Limit"])

/**
 * @since 0.1.0
 * @category schemas
 */
export type Reason = typeof Reason.Type

/**
 * Skills that cannot be served, and why.
 *
 * @since 0.1.0
 * @category errors
 */
export class SkillsError extends Schema.TaggedError<SkillsError>()("SkillsError", {
  reason: Reason,
  /** The file or folder at fault, relative to the source (`""` for the source itself). */
  path: Schema.String,
  message: Schema.String,
  cause: Schema.optional(Schema.Unknown)
}) {}

/**
 * An error for `path` broken by `reason`; the message starts with the path.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (reason: Reason, path: string, detail: string, cause?: unknown): SkillsError =>
  new SkillsError({
    reason,
    path,
    message: path === "" ? `skills: ${detail}` : `skills: ${path}: ${detail}`,
    ...(cause === undefined ? {} : { cause })
  })
