/**
 * The basic JSON Schema backend's compiler: a schema becomes a tree of closures, a refusal is the
 * message string. The public surface (keywords, limits, the service) is `catalog/BasicJsonSchema`.
 *
 * @internal
 */
import type { CompiledSchema, JsonSchemaDocument, ValidationIssue, ValidationResult } from "./SchemaValidator.ts"
import { isObject } from "../pipeline/internal/IsObject.ts"

/**
 * The keywords this backend enforces.
 *
 * @category constants
 * @since 0.1.0
 */
export const supportedKeywords: ReadonlySet<string> = new Set([
  "type",
  "required",
  "properties",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
  "pattern",
  "uniqueItems"
])

/**
 * Keywords that never assert anything (annotations, identifiers, definitions reachable only by a
 * `$ref`, which is itself refused). Keys starting with `x-` are also ignored.
 *
 * @category constants
 * @since 0.1.0
 */
export const ignoredKeywords: ReadonlySet<string> = new Set([
  "title",
  "description",
  "$schema",
  "$id",
  "$anchor",
  "$dynamicAnchor",
  "$defs",
  "definitions",
  "$comment",
  "default",
  "examples",
  "format",
  "deprecated",
  "readOnly",
  "writeOnly",
  "contentEncoding",
  "contentMediaType",
  "contentSchema"
])

/**
 * Assertion and applicator keywords of Draft 2020-12 (and earlier drafts) that this backend does
 * not implement. Any of them refuses the schema.
 *
 * @category constants
 * @since 0.1.0
 */
export const refusedKeywords: ReadonlySet<string> = new Set([
  "$ref",
  "$dynamicRef",
  "$recursiveRef",
  "$recursiveAnchor",
  "$vocabulary",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "dependentRequired",
  "dependencies",
  "prefixItems",
  "additionalItems",
  "contains",
  "minContains",
  "maxContains",
  "patternProperties",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "multipleOf",
  "minProperties",
  "maxProperties"
])

/** The bounds a compile is held to. */
export interface Limits {
  readonly maxSchemaNodes: number
  readonly maxSchemaDepth: number
  readonly maxIssues: number
}

/** A path into the instance, materialized as a JSON Pointer only when an issue is reported. */
type Path = { readonly parent: Path; readonly segment: string | number } | undefined

interface Sink {
  readonly issues: Array<ValidationIssue>
  readonly max: number
}

type Check = (value: unknown, path: Path, sink: Sink) => void

class Refusal {
  readonly message: string
  constructor(message: string) {
    this.message = message
  }
}

const FULL_BACKEND_HINT = "provide the full Draft 2020-12 backend, @snodo/json-schema (JsonSchemaValidator.layer)"

export const compileSync = (schema: JsonSchemaDocument, limits: Limits): CompiledSchema | string => {
  const state = { nodes: 0, limits }
  try {
    const check = compileSchema(schema, "", 0, state)
    const max = limits.maxIssues
    return {
      schema,
      validate: (instance) => {
        const sink: Sink = { issues: [], max }
        check(instance, undefined, sink)
        return sink.issues.length === 0 ? VALID : { _tag: "Invalid", issues: sink.issues }
      }
    }
  } catch (error) {
    if (error instanceof Refusal) return error.message
    throw error
  }
}

const VALID: ValidationResult = { _tag: "Valid" }

interface CompileState {
  nodes: number
  readonly limits: Limits
}

const refuse = (schemaPath: string, message: string): never => {
  throw new Refusal(`${message} (at schema location "${schemaPath === "" ? "#" : `#${schemaPath}`}")`)
}

const countNodes = (value: unknown, depth: number, schemaPath: string, state: CompileState): void => {
  if (++state.nodes > state.limits.maxSchemaNodes) {
    refuse(schemaPath, `schema exceeds ${state.limits.maxSchemaNodes} JSON values (maxSchemaNodes)`)
  }
  if (depth > state.limits.maxSchemaDepth) {
    refuse(schemaPath, `schema nesting exceeds depth ${state.limits.maxSchemaDepth} (maxSchemaDepth)`)
  }
  if (typeof value === "object" && value !== null) {
    for (const item of Array.isArray(value) ? value : Object.values(value)) {
      countNodes(item, depth + 1, schemaPath, state)
    }
  } else if (!isJsonPrimitive(value)) {
    refuse(schemaPath, "schema contains a value that is not JSON")
  }
}

const isJsonPrimitive = (value: unknown): boolean =>
  value === null || typeof value === "string" || typeof value === "boolean" ||
  (typeof value === "number" && Number.isFinite(value))

const compileSchema = (schema: unknown, schemaPath: string, depth: number, state: CompileState): Check => {
  if (++state.nodes > state.limits.maxSchemaNodes) {
    refuse(schemaPath, `schema exceeds ${state.limits.maxSchemaNodes} JSON values (maxSchemaNodes)`)
  }
  if (depth > state.limits.maxSchemaDepth) {
    refuse(schemaPath, `schema nesting exceeds depth ${state.limits.maxSchemaDepth} (maxSchemaDepth)`)
  }
  if (schema === true) return () => {}
  if (schema === false) {
    return (_value, path, sink) => report(sink, path, "false", "no value is allowed here")
  }
  if (!isObject(schema)) refuse(schemaPath, "a schema must be an object or a boolean")
  const object = schema as Record<string, unknown>
  const checks: Array<Check> = []
  const keys = Object.keys(object)
  for (const keyword of keys) {
    if (refusedKeywords.has(keyword)) {
      refuse(
        `${schemaPath}/${escapePointer(keyword)}`,
        `the basic JSON Schema backend does not support the keyword "${keyword}"; ${FULL_BACKEND_HINT}`
      )
    }
  }
  for (const keyword of keys) {
    const value = object[keyword]
    const at = `${schemaPath}/${escapePointer(keyword)}`
    if (supportedKeywords.has(keyword)) continue
    // Annotations and unknown keywords assert nothing (Draft 2020-12 treats unknown keywords as
    // annotations); their values are still counted against the size bound.
    countNodes(value, depth + 1, at, state)
  }

  if (Object.hasOwn(object, "type")) checks.push(compileType(object.type, `${schemaPath}/type`))
  if (Object.hasOwn(object, "enum")) checks.push(compileEnum(object.enum, `${schemaPath}/enum`, depth, state))
  if (Object.hasOwn(object, "const")) checks.push(compileConst(object.const, `${schemaPath}/const`, depth, state))
  const stringChecks = compileStringChecks(object, schemaPath)
  if (stringChecks !== undefined) checks.push(stringChecks)
  const numberChecks = compileNumberChecks(object, schemaPath)
  if (numberChecks !== undefined) checks.push(numberChecks)
  const arrayChecks = compileArrayChecks(object, schemaPath, depth, state)
  if (arrayChecks !== undefined) checks.push(arrayChecks)
  const objectChecks = compileObjectChecks(object, schemaPath, depth, state)
  if (objectChecks !== undefined) checks.push(objectChecks)

  if (checks.length === 0) return () => {}
  if (checks.length === 1) return checks[0]!
  return (value, path, sink) => {
    for (const check of checks) check(value, path, sink)
  }
}

// --- type ----------------------------------------------------------------------------------

const TYPE_NAMES = new Set(["null", "boolean", "object", "array", "number", "integer", "string"])

const typeTest = (name: string): (value: unknown) => boolean => {
  switch (name) {
    case "null":
      return (value) => value === null
    case "boolean":
      return (value) => typeof value === "boolean"
    case "object":
      return isObject
    case "array":
      return Array.isArray
    case "number":
      return (value) => typeof value === "number"
    case "integer":
      return Number.isInteger
    default:
      return (value) => typeof value === "string"
  }
}

const compileType = (type: unknown, at: string): Check => {
  const names = typeof type === "string" ? [type] : type
  if (!Array.isArray(names) || names.length === 0) {
    refuse(at, "\"type\" must be a type name or a non-empty array of type names")
  }
  const list = names as Array<unknown>
  for (const name of list) {
    if (typeof name !== "string" || !TYPE_NAMES.has(name)) refuse(at, "\"type\" names an unknown type")
  }
  if (new Set(list).size !== list.length) refuse(at, "\"type\" array must not repeat a type")
  const tests = (list as Array<string>).map(typeTest)
  const message = list.length === 1 ? `must be of type ${list[0]}` : `must be one of the types ${list.join(", ")}`
  if (tests.length === 1) {
    const test = tests[0]!
    return (value, path, sink) => {
      if (!test(value)) report(sink, path, "type", message)
    }
  }
  return (value, path, sink) => {
    for (const test of tests) if (test(value)) return
    report(sink, path, "type", message)
  }
}

// --- enum / const --------------------------------------------------------------------------

const compileEnum = (values: unknown, at: string, depth: number, state: CompileState): Check => {
  if (!Array.isArray(values)) refuse(at, "\"enum\" must be an array")
  countNodes(values, depth + 1, at, state)
  const keys = new Set((values as Array<unknown>).map(canonicalJson))
  return (value, path, sink) => {
    if (!keys.has(canonicalJson(value))) report(sink, path, "enum", "must be one of the allowed values")
  }
}

const compileConst = (constant: unknown, at: string, depth: number, state: CompileState): Check => {
  countNodes(constant, depth + 1, at, state)
  const key = canonicalJson(constant)
  return (value, path, sink) => {
    if (canonicalJson(value) !== key) report(sink, path, "const", "must be equal to the constant")
  }
}

// --- strings -------------------------------------------------------------------------------

const compileStringChecks = (object: Record<string, unknown>, schemaPath: string): Check | undefined => {
  const minLength = Object.hasOwn(object, "minLength") ? nonNegativeInteger(object.minLength, `${schemaPath}/minLength`) : undefined
  const maxLength = Object.hasOwn(object, "maxLength") ? nonNegativeInteger(object.maxLength, `${schemaPath}/maxLength`) : undefined
  let pattern: RegExp | undefined
  if (Object.hasOwn(object, "pattern")) {
    const source = object.pattern
    if (typeof source !== "string") refuse(`${schemaPath}/pattern`, "\"pattern\" must be a string")
    try {
      pattern = new RegExp(source as string, "u")
    } catch {
      refuse(`${schemaPath}/pattern`, "\"pattern\" is not a valid ECMA-262 regular expression (u flag)")
    }
  }
  if (minLength === undefined && maxLength === undefined && pattern === undefined) return undefined
  const patternMessage = pattern === undefined ? "" : `must match the pattern ${JSON.stringify(pattern.source)}`
  return (value, path, sink) => {
    if (typeof value !== "string") return
    if (minLength !== undefined || maxLength !== undefined) {
      // The code-point count lies between half the UTF-16 length and the length: count only when
      // that range straddles a bound.
      let length = value.length
      if (
        (minLength !== undefined && length >= minLength && length < 2 * minLength) ||
        (maxLength !== undefined && length > maxLength)
      ) length = countCodePoints(value)
      if (minLength !== undefined && length < minLength) {
        report(sink, path, "minLength", `must have at least ${minLength} characters`)
      }
      if (maxLength !== undefined && length > maxLength) {
        report(sink, path, "maxLength", `must have at most ${maxLength} characters`)
      }
    }
    if (pattern !== undefined && !pattern.test(value)) report(sink, path, "pattern", patternMessage)
  }
}

const countCodePoints = (value: string): number => {
  let count = 0
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index)
    // A low surrogate that follows a high surrogate completes one code point already counted.
    if (code >= 0xdc00 && code <= 0xdfff && index > 0) {
      const previous = value.charCodeAt(index - 1)
      if (previous >= 0xd800 && previous <= 0xdbff) continue
    }
    count++
  }
  return count
}

// --- numbers -------------------------------------------------------------------------------

const compileNumberChecks = (object: Record<string, unknown>, schemaPath: string): Check | undefined => {
  const bounds: Array<readonly [keyword: string, limit: number, ok: (value: number) => boolean, message: string]> = []
  const bound = (keyword: string, ok: (limit: number) => (value: number) => boolean, relation: string) => {
    if (!Object.hasOwn(object, keyword)) return
    const limit = object[keyword]
    if (typeof limit !== "number" || !Number.isFinite(limit)) refuse(`${schemaPath}/${keyword}`, `"${keyword}" must be a number`)
    bounds.push([keyword, limit as number, ok(limit as number), `must be ${relation} ${limit}`])
  }
  bound("minimum", (limit) => (value) => value >= limit, ">=")
  bound("maximum", (limit) => (value) => value <= limit, "<=")
  bound("exclusiveMinimum", (limit) => (value) => value > limit, ">")
  bound("exclusiveMaximum", (limit) => (value) => value < limit, "<")
  if (bounds.length === 0) return undefined
  return (value, path, sink) => {
    if (typeof value !== "number") return
    for (const [keyword, , ok, message] of bounds) if (!ok(value)) report(sink, path, keyword, message)
  }
}

// --- arrays --------------------------------------------------------------------------------

const compileArrayChecks = (
  object: Record<string, unknown>,
  schemaPath: string,
  depth: number,
  state: CompileState
): Check | undefined => {
  const minItems = Object.hasOwn(object, "minItems") ? nonNegativeInteger(object.minItems, `${schemaPath}/minItems`) : undefined
  const maxItems = Object.hasOwn(object, "maxItems") ? nonNegativeInteger(object.maxItems, `${schemaPath}/maxItems`) : undefined
  let unique = false
  if (Object.hasOwn(object, "uniqueItems")) {
    if (typeof object.uniqueItems !== "boolean") refuse(`${schemaPath}/uniqueItems`, "\"uniqueItems\" must be a boolean")
    unique = object.uniqueItems === true
  }
  let items: Check | undefined
  if (Object.hasOwn(object, "items")) {
    if (Array.isArray(object.items)) {
      refuse(
        `${schemaPath}/items`,
        `an array-valued "items" (tuple form of earlier drafts) is not Draft 2020-12; use "prefixItems" with ${FULL_BACKEND_HINT}`
      )
    }
    items = object.items === false
      ? (_value, path, sink) => report(sink, path, "items", "no items are allowed")
      : compileSchema(object.items, `${schemaPath}/items`, depth + 1, state)
  }
  if (minItems === undefined && maxItems === undefined && !unique && items === undefined) return undefined
  return (value, path, sink) => {
    if (!Array.isArray(value)) return
    if (minItems !== undefined && value.length < minItems) {
      report(sink, path, "minItems", `must have at least ${minItems} items`)
    }
    if (maxItems !== undefined && value.length > maxItems) {
      report(sink, path, "maxItems", `must have at most ${maxItems} items`)
    }
    if (unique) {
      // Canonical JSON keys make the check linear in the array's size rather than quadratic.
      const seen = new Map<string, number>()
      for (let index = 0; index < value.length; index++) {
        const key = canonicalJson(value[index])
        const first = seen.get(key)
        if (first !== undefined) {
          report(sink, path, "uniqueItems", `must not contain duplicate items (items ${first} and ${index} are equal)`)
          break
        }
        seen.set(key, index)
      }
    }
    if (items !== undefined) {
      for (let index = 0; index < value.length; index++) {
        if (sink.issues.length >= sink.max) return
        items(value[index], { parent: path, segment: index }, sink)
      }
    }
  }
}

// --- objects -------------------------------------------------------------------------------

const compileObjectChecks = (
  object: Record<string, unknown>,
  schemaPath: string,
  depth: number,
  state: CompileState
): Check | undefined => {
  let required: ReadonlyArray<string> = []
  if (Object.hasOwn(object, "required")) {
    const list = object.required
    if (!Array.isArray(list) || list.some((name) => typeof name !== "string") || new Set(list).size !== list.length) {
      refuse(`${schemaPath}/required`, "\"required\" must be an array of distinct strings")
    }
    required = list as Array<string>
    state.nodes += required.length
  }
  const properties = new Map<string, Check>()
  if (Object.hasOwn(object, "properties")) {
    const value = object.properties
    if (!isObject(value)) refuse(`${schemaPath}/properties`, "\"properties\" must be an object")
    for (const [name, subschema] of Object.entries(value as Record<string, unknown>)) {
      properties.set(name, compileSchema(subschema, `${schemaPath}/properties/${escapePointer(name)}`, depth + 2, state))
    }
  }
  let additional: Check | undefined
  if (Object.hasOwn(object, "additionalProperties")) {
    const value = object.additionalProperties
    additional = value === true
      ? undefined
      : value === false
      ? (_value, path, sink) => report(sink, path, "additionalProperties", "is not an allowed property")
      : compileSchema(value, `${schemaPath}/additionalProperties`, depth + 1, state)
  }
  if (required.length === 0 && properties.size === 0 && additional === undefined) return undefined
  const requiredMessages = required.map((name) => [name, `must have the required property ${JSON.stringify(name)}`] as const)
  return (value, path, sink) => {
    if (!isObject(value)) return
    const record = value as Record<string, unknown>
    for (const [name, message] of requiredMessages) {
      if (!Object.hasOwn(record, name)) report(sink, path, "required", message)
    }
    if (properties.size === 0 && additional === undefined) return
    for (const key of Object.keys(record)) {
      if (sink.issues.length >= sink.max) return
      const check = properties.get(key) ?? additional
      if (check !== undefined) check(record[key], { parent: path, segment: key }, sink)
    }
  }
}

// --- helpers -------------------------------------------------------------------------------

const nonNegativeInteger = (value: unknown, at: string): number => {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    refuse(at, `"${at.slice(at.lastIndexOf("/") + 1)}" must be a non-negative integer`)
  }
  return value as number
}


const report = (sink: Sink, path: Path, keyword: string, message: string): void => {
  if (sink.issues.length < sink.max) sink.issues.push({ instancePath: pointerOf(path), keyword, message })
}

const escapePointer = (segment: string): string => segment.replaceAll("~", "~0").replaceAll("/", "~1")

const pointerOf = (path: Path): string => {
  const segments: Array<string> = []
  for (let at = path; at !== undefined; at = at.parent) {
    segments.push(typeof at.segment === "number" ? String(at.segment) : escapePointer(at.segment))
  }
  return segments.length === 0 ? "" : `/${segments.toReversed().join("/")}`
}

/**
 * A canonical JSON text (object keys sorted) so that JSON-equal values get the same key: `1` and
 * `1.0` are the same number, property order does not matter. Values that are not JSON map to a
 * key that equals no JSON value.
 */
const canonicalJson = (value: unknown): string => {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value)
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "\u0000nan"
    case "boolean":
      return value ? "true" : "false"
    case "object": {
      if (value === null) return "null"
      if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
      const keys = Object.keys(value).toSorted()
      const record = value as Record<string, unknown>
      return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`
    }
    default:
      return "\u0000undefined"
  }
}
