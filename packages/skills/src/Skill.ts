/**
 * The wire shapes of the Skills extension (SEP-2640) and the rules a skill obeys.
 *
 * A skill is a folder with a `SKILL.md` (YAML frontmatter with at least `name` and `description`)
 * and any other files. Each file is a resource `skill://<skill-path>/<file-path>`; the last segment
 * of `<skill-path>` is the skill's `name`. A {@link Skill} entry (what `skills/list` and
 * `skills/get` answer) carries the URI of its `SKILL.md`, the frontmatter verbatim as JSON, and
 * every file with its `sha256:` digest and size in bytes.
 *
 * @example
 * ```ts
 * import * as Skill from "@snodo/skills/Skill"
 *
 * Skill.isValidName("pdf-processing") // true
 * Skill.isValidName("PDF--processing") // false
 * Skill.digestOf(new TextEncoder().encode("hi")) // "sha256:8f434346…"
 * ```
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"

/**
 * The extension identifier.
 *
 * @since 0.1.0
 * @category constants
 */
export const extensionName = "io.modelcontextprotocol/skills"

/**
 * The URI scheme snodo serves skills under.
 *
 * @since 0.1.0
 * @category constants
 */
export const scheme = "skill://"

/**
 * The `mimeType` of a directory resource.
 *
 * @since 0.1.0
 * @category constants
 */
export const directoryMimeType = "inode/directory"

/**
 * The `mimeType` of `SKILL.md`.
 *
 * @since 0.1.0
 * @category constants
 */
export const markdownMimeType = "text/markdown"

/**
 * Per-skill limits of the specification: servers should not publish a skill with more files
 * (`SKILL.md` included) or more bytes (summed over its files) than these.
 *
 * @since 0.1.0
 * @category constants
 */
export const limits = { files: 512, bytes: 16 * 1024 * 1024 } as const

/**
 * The longest `description` the Agent Skills specification allows.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxDescriptionLength = 1024

/**
 * The frontmatter `metadata` key prefix reserved for MCP extensions.
 *
 * @since 0.1.0
 * @category constants
 */
export const reservedMetadataPrefix = "io.modelcontextprotocol/"

const namePattern = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/

/**
 * The Agent Skills naming rules: 1–64 characters, lowercase letters, digits and hyphens, no
 * leading, trailing or consecutive hyphens.
 *
 * @since 0.1.0
 * @category utils
 */
export const isValidName = (name: string): boolean => namePattern.test(name)

/**
 * `sha256:` and the 64 lowercase hex digits of the SHA-256 of `bytes`.
 *
 * @since 0.1.0
 * @category utils
 */
export const digestOf = (bytes: Uint8Array): string => `sha256:${createHash("sha256").update(bytes).digest("hex")}`

export {
  /**
   * Params of `resources/directory/read`.
   *
   * @since 0.1.0
   */
  DirectoryParams,
  /**
   * The frontmatter of a `SKILL.md` as JSON, verbatim (`name` and `description` always present).
   *
   * @since 0.1.0
   */
  Frontmatter,
  /**
   * One file of a skill: what a host verifies a read against.
   *
   * @since 0.1.0
   */
  ResourceEntry,
  /**
   * A skill entry, as `skills/list` and `skills/get` carry it.
   *
   * @since 0.1.0
   */
  Skill,
  /**
   * Params of `skills/get`.
   *
   * @since 0.1.0
   */
  UriParams
} from "@snodo/protocol/wire/Skills"

const mimeTypes: Readonly<Record<string, string>> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  text: "text/plain",
  csv: "text/csv",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  xml: "application/xml",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  js: "text/javascript",
  mjs: "text/javascript",
  ts: "text/x-typescript",
  py: "text/x-python",
  sh: "text/x-shellscript",
  rb: "text/x-ruby",
  go: "text/x-go",
  rs: "text/x-rust",
  sql: "application/sql",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  zip: "application/zip"
}

/**
 * The `mimeType` of a file, from its extension (`application/octet-stream` when unknown).
 *
 * @since 0.1.0
 * @category utils
 */
export const mimeTypeOf = (path: string): string => {
  const base = path.slice(path.lastIndexOf("/") + 1)
  const dot = base.lastIndexOf(".")
  return (dot > 0 ? mimeTypes[base.slice(dot + 1).toLowerCase()] : undefined) ?? "application/octet-stream"
}

/**
 * Whether a file of this `mimeType` is sent as `text` (when its bytes are UTF-8) rather than a
 * base64 `blob`.
 *
 * @since 0.1.0
 * @category utils
 */
export const isTextual = (mimeType: string): boolean =>
  mimeType.startsWith("text/") || ["application/json", "application/xml", "application/yaml", "application/toml", "application/sql", "image/svg+xml"].includes(mimeType)
