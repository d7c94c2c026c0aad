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

/** The block parsed as YAML data, or why it is not valid YAML. */
const parseYaml = (block: string): unknown => {
  const document = parseDocument(block, { version: "1.2", schema: "core", uniqueKeys: true, prettyErrors: false })
  const problem = document.errors[0] ?? document.warnings[0]
  if (problem !== undefined) return `the frontmatter is not valid YAML: ${problem.message.split("\n")[0]}`
  try {
    return document.toJS({ maxAliasCount: 100 }) as unknown
  } catch (error) {
    return `the frontmatter is not valid YAML: ${error instanceof Error ? error.message : String(error)}`
  }
}

const plainPair = /^([A-Za-z][A-Za-z0-9_-]*): +([A-Za-z][A-Za-z0-9 .,;()'/_+=!?&-]*[A-Za-z0-9.)'!?])$/
const notStrings = new Set(["null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"])

/**
 * The common frontmatter, `key: plain text` on each line, read without the YAML parser (which
 * costs ~30 µs a file: a third of a second for 10,000 skills); `undefined` for anything else.
 * Only lines whose meaning YAML 1.2's core schema leaves no doubt about take this path: a key of
 * letters, digits, `_` and `-`; a value that starts with a letter, ends with no blank, holds only
 * letters, digits, blanks and `.,;()'/_+=!?&-` (no `:` or `#`, no quote, bracket or block
 * indicator) and is none of the words the core schema reads as null or a boolean; no key twice.
 * The YAML parser reads such a block as the same mapping of strings (a test checks both agree).
 */
const plainPairs = (block: string): Record<string, string> | undefined => {
  const record: Record<string, string> = {}
  for (const line of block.split("\n")) {
    const match = plainPair.exec(line)
    if (match === null) return undefined
    const key = match[1]!
    const value = match[2]!
    if (notStrings.has(value) || Object.hasOwn(record, key)) return undefined
    record[key] = value
  }
  return record
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
  const value = plainPairs(block) ?? parseYaml(block)
  if (typeof value === "string") return value
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
