/**
 * hyperjump's BASIC output units as `ValidationIssue`s: the instance path as a JSON Pointer, the
 * keyword as written in the schema, and a message built from the schema alone (limits, required
 * names, patterns), never from the instance value.
 *
 * @since 0.1.0
 */
import type { OutputUnit } from "@hyperjump/json-schema/draft-2020-12"
import type { ValidationIssue } from "@snodo/core/SchemaValidator"
import type { Ast } from "./bounds.ts"

const VALIDATE = "https://json-schema.org/evaluation/validate"

/** Parents whose named or numbered children are subschemas: a `false` child reports the parent. */
const CONTAINERS = new Set(["properties", "patternProperties", "dependentSchemas", "allOf", "anyOf", "oneOf", "prefixItems"])

/**
 * Converts output units, deduplicated and capped.
 *
 * @category combinators
 * @since 0.1.0
 */
export const issuesOf = (
  units: ReadonlyArray<OutputUnit>,
  ast: Ast,
  instance: unknown,
  max: number
): ReadonlyArray<ValidationIssue> => {
  const values = keywordValues(ast)
  const seen = new Set<string>()
  const issues: Array<ValidationIssue> = []
  for (const unit of units) {
    const instancePath = instancePointer(unit.instanceLocation)
    const keyword = keywordOf(unit)
    const key = `${instancePath}\u0000${keyword}`
    if (seen.has(key)) continue
    seen.add(key)
    issues.push({ instancePath, keyword, message: messageOf(keyword, values.get(unit.absoluteKeywordLocation), instance, instancePath) })
    if (issues.length >= max) break
  }
  if (issues.length === 0) issues.push({ instancePath: "", keyword: "schema", message: "does not match the schema" })
  return issues
}

const keywordValues = (ast: Ast): Map<string, unknown> => {
  const values = new Map<string, unknown>()
  for (const [url, node] of Object.entries(ast)) {
    if (url === "metaData" || url === "plugins" || !Array.isArray(node)) continue
    for (const [, location, value] of node as ReadonlyArray<readonly [string, string, unknown]>) values.set(location, value)
  }
  return values
}

const decode = (text: string, decoder: (text: string) => string): string => {
  try {
    return decoder(text)
  } catch {
    return text
  }
}

const fragmentOf = (uri: string): string => {
  const hash = uri.indexOf("#")
  return hash === -1 ? "" : uri.slice(hash + 1)
}

/** hyperjump writes `#` + `encodeURI(pointer)`; a property name under `propertyNames` gets a `*` prefix. */
const instancePointer = (location: string): string => {
  const pointer = decode(fragmentOf(location), decodeURI)
  return pointer.startsWith("*") ? pointer.slice(1) : pointer
}

const unescape = (segment: string): string => segment.replaceAll("~1", "/").replaceAll("~0", "~")

const keywordOf = (unit: OutputUnit): string => {
  const segments = decode(fragmentOf(unit.absoluteKeywordLocation), decodeURIComponent).split("/").slice(1).map(unescape)
  const last = segments.at(-1)
  if (unit.keyword !== VALIDATE) return last ?? "schema"
  // A `false` subschema: name the keyword that applied it.
  if (last === undefined) return "false"
  const parent = segments.at(-2)
  if (parent !== undefined && CONTAINERS.has(parent)) return parent
  return /^\d+$/.test(last) || parent === "$defs" ? "false" : last
}

const count = (value: unknown, one: string, many: string): string =>
  `${String(value)} ${value === 1 ? one : many}`

const at = (instance: unknown, pointer: string): unknown => {
  let current = instance
  for (const segment of pointer === "" ? [] : pointer.slice(1).split("/").map(unescape)) {
    if (typeof current !== "object" || current === null) return undefined
    current = (current as Record<string, unknown>)[segment]
  }
  return current
}

const messageOf = (keyword: string, value: unknown, instance: unknown, instancePath: string): string => {
  switch (keyword) {
    case "type":
      return `must be of type ${Array.isArray(value) ? value.join(" or ") : String(value)}`
    case "required": {
      const target = at(instance, instancePath)
      const names = Array.isArray(value) ? value.filter((name: unknown) => typeof name === "string") : []
      const missing = typeof target === "object" && target !== null
        ? names.filter((name) => !Object.hasOwn(target, name))
        : names
      return missing.length === 0
        ? "is missing a required property"
        : `must have the required ${missing.length === 1 ? "property" : "properties"} ${missing.map((name) => JSON.stringify(name)).join(", ")}`
    }
    case "dependentRequired":
      return "is missing a property required by another property it has"
    case "minLength":
      return `must have at least ${count(value, "character", "characters")}`
    case "maxLength":
      return `must have at most ${count(value, "character", "characters")}`
    case "minItems":
      return `must have at least ${count(value, "item", "items")}`
    case "maxItems":
      return `must have at most ${count(value, "item", "items")}`
    case "minProperties":
      return `must have at least ${count(value, "property", "properties")}`
    case "maxProperties":
      return `must have at most ${count(value, "property", "properties")}`
    case "minimum":
      return `must be >= ${String(value)}`
    case "maximum":
      return `must be <= ${String(value)}`
    case "exclusiveMinimum":
      return `must be > ${String(value)}`
    case "exclusiveMaximum":
      return `must be < ${String(value)}`
    case "multipleOf":
      return `must be a multiple of ${String(value)}`
    case "pattern":
      return `must match the pattern ${JSON.stringify(value instanceof RegExp ? value.source : String(value))}`
    case "const":
      return "must be equal to the constant"
    case "enum":
      return "must be one of the allowed values"
    case "uniqueItems":
      return "must not contain duplicate items"
    case "additionalProperties":
      return "is not an allowed property"
    case "unevaluatedProperties":
      return "is not an allowed property (unevaluatedProperties)"
    case "unevaluatedItems":
    case "items":
    case "prefixItems":
      return "is not an allowed item"
    case "contains":
    case "minContains":
    case "maxContains":
      return "does not contain the required number of matching items"
    case "propertyNames":
      return "has a property name that does not match propertyNames"
    case "anyOf":
      return "must match at least one subschema of anyOf"
    case "oneOf":
      return "must match exactly one subschema of oneOf"
    case "not":
      return "must not match the subschema of not"
    case "false":
      return "no value is allowed here"
    default:
      return `fails the "${keyword}" keyword`
  }
}
