/**
 * The YAML frontmatter of a `SKILL.md`, parsed as data and never evaluated.
 *
 * The block between a first line `---` and the next line `---` is parsed by the `yaml` package
 * with the YAML 1.2 core schema: no custom tags (an unknown tag such as `!!js/function` is
 * refused, not resolved), unique keys, at most 100 alias expansions. The result must be a mapping
 * of plain JSON (strings, finite numbers, booleans, `null`, lists, mappings) with a non-empty
 * string `name` and `description`: it is what `skills/list` carries verbatim as `frontmatter`, and
 * a host compares it field by field with what it parses from the file.
 *
 * @example
 * ```ts
 * import * as Frontmatter from "@snodo/skills/Frontmatter"
 *
 * const parsed = Frontmatter.parse("---\nname: pdf-processing\ndescription: Extract PDF forms\n---\n# Body\n")
 * // { name: "pdf-processing", description: "Extract PDF forms" }, or a string saying what is wrong
 * ```
 *
 * @since 0.1.0
 */
import { parseDocument } from "yaml"
import * as Skill from "./Skill.ts"

const opening = /^\uFEFF?---[ \t]*\r?\n/
const closing = /\r?\n---[ \t]*(?:\r?\n|$)/

/**
 * The largest frontmatter block read, in characters.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxLength = 64 * 1024

/** Why a value is not plain JSON, or `undefined` when it is. */
const notJson = (value: unknown, path: string): string | undefined => {
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined
  if (typeof value === "number") return Number.isFinite(value) ? undefined : `${path} is not a finite number`
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const reason = notJson(value[index], `${path}[${index}]`)
      if (reason !== undefined) return reason
    }
    return undefined
  }
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, inner] of Object.entries(value)) {
      const reason = notJson(inner, `${path}.${key}`)
      if (reason !== undefined) return reason
    }
    return undefined
  }
  return `${path} is not plain data`
}

/**
 * The frontmatter of a `SKILL.md`, or why it has none that can be served.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (text: string): Skill.Frontmatter | string => {
  const start = opening.exec(text)
  if (start === null) return "SKILL.md must begin with YAML frontmatter (a first line ---)"
  const rest = text.slice(start[0].length)
  const end = closing.exec(`\n${rest}`)
  if (end === null) return "the frontmatter of SKILL.md is not closed by a line ---"
  const block = rest.slice(0, Math.max(0, end.index - 1))
  if (block.length > maxLength) return `the frontmatter is longer than ${maxLength} characters`
  const document = parseDocument(block, { version: "1.2", schema: "core", uniqueKeys: true, prettyErrors: false })
  const problem = document.errors[0] ?? document.warnings[0]
  if (problem !== undefined) return `the frontmatter is not valid YAML: ${problem.message.split("\n")[0]}`
  let value: unknown
  try {
    value = document.toJS({ maxAliasCount: 100 })
  } catch (error) {
    return `the frontmatter is not valid YAML: ${error instanceof Error ? error.message : String(error)}`
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "the frontmatter must be a YAML mapping"
  const reason = notJson(value, "frontmatter")
  if (reason !== undefined) return reason
  const record = value as Record<string, unknown>
  if (typeof record["name"] !== "string" || record["name"].length === 0) return "the frontmatter has no name"
  if (typeof record["description"] !== "string" || record["description"].trim().length === 0) {
    return "the frontmatter has no description"
  }
  if (record["description"].length > Skill.maxDescriptionLength) {
    return `the description is longer than ${Skill.maxDescriptionLength} characters`
  }
  const metadata = record["metadata"]
  if (typeof metadata === "object" && metadata !== null && !Array.isArray(metadata)) {
    const reserved = Object.keys(metadata).find((key) => key.startsWith(Skill.reservedMetadataPrefix))
    if (reserved !== undefined) return `metadata key "${reserved}" uses the prefix ${Skill.reservedMetadataPrefix}, reserved for MCP extensions`
  }
  return record as Skill.Frontmatter
}
