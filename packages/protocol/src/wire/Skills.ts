/**
 * The wire schemas of the Skills extension (`io.modelcontextprotocol/skills`, SEP-2640): a skill
 * as `skills/list` and `skills/get` carry it (its `SKILL.md` frontmatter and every file with its
 * `sha256:` digest and size), and the params and results of `skills/list`, `skills/get` and
 * `resources/directory/read`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import * as Skills from "@snodo/protocol/wire/Skills"
 *
 * const entry = Schema.decodeUnknownSync(Skills.ResourceEntry)({ uri: "skill://a/SKILL.md", digest: "sha256:00", size: 12 })
 * ```
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { OpenStruct } from "./Json.ts"
import { CacheableResultFields, ListResultFields } from "./Meta.ts"

/**
 * The extension's identifier.
 *
 * @category constants
 * @since 0.1.0
 */
export const extensionId = "io.modelcontextprotocol/skills" as const

/**
 * One file of a skill: what a host verifies a read against.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ResourceEntry = Schema.Struct({
  uri: Schema.String,
  digest: Schema.String,
  size: Schema.Int
})

/**
 * @category models
 * @since 0.1.0
 */
export type ResourceEntry = typeof ResourceEntry.Type

/**
 * The frontmatter of a `SKILL.md` as JSON, verbatim (`name` and `description` always present).
 *
 * @category schemas
 * @since 0.1.0
 */
export const Frontmatter = Schema.StructWithRest(
  Schema.Struct({ name: Schema.String, description: Schema.String }),
  [Schema.Record(Schema.String, Schema.Unknown)]
)

/**
 * @category models
 * @since 0.1.0
 */
export type Frontmatter = typeof Frontmatter.Type

/**
 * A skill entry, as `skills/list` and `skills/get` carry it.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Skill = Schema.Struct({
  uri: Schema.String,
  frontmatter: Frontmatter,
  resources: Schema.Array(ResourceEntry)
})

/**
 * @category models
 * @since 0.1.0
 */
export type Skill = typeof Skill.Type

/**
 * Params of `skills/get`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const UriParams = Schema.Struct({
  _meta: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  uri: Schema.String
})

/**
 * Params of `resources/directory/read`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const DirectoryParams = Schema.Struct({
  _meta: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  uri: Schema.String,
  cursor: Schema.optionalKey(Schema.String)
})

/**
 * The result of `skills/list`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ListSkillsResult = OpenStruct({ ...ListResultFields, skills: Schema.Array(Skill) })

/**
 * @category models
 * @since 0.1.0
 */
export type ListSkillsResult = typeof ListSkillsResult.Type

/**
 * The result of `skills/get`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const GetSkillResult = OpenStruct({ ...CacheableResultFields, skill: Skill })

/**
 * @category models
 * @since 0.1.0
 */
export type GetSkillResult = typeof GetSkillResult.Type

/**
 * An entry of a skill directory: a file (with its `mimeType` and `size`) or a subfolder
 * (`inode/directory`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const DirectoryEntry = OpenStruct({
  uri: Schema.String,
  name: Schema.optionalKey(Schema.String),
  mimeType: Schema.optionalKey(Schema.String),
  size: Schema.optionalKey(Schema.Int)
})

/**
 * @category models
 * @since 0.1.0
 */
export type DirectoryEntry = typeof DirectoryEntry.Type

/**
 * The result of `resources/directory/read`: the entries of one directory, a page at a time.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ReadDirectoryResult = OpenStruct({ ...ListResultFields, resources: Schema.Array(DirectoryEntry) })

/**
 * @category models
 * @since 0.1.0
 */
export type ReadDirectoryResult = typeof ReadDirectoryResult.Type
