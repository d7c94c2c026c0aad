/**
 * `x-mcp-header` declarations: tool parameters mirrored into `Mcp-Param-<Name>` HTTP headers.
 *
 * A tool's input schema may mark a property with `"x-mcp-header": "<Name>"`; Streamable HTTP
 * clients then send the argument's value in the header `Mcp-Param-<Name>` and the server checks
 * that the two agree before the tool runs. The declarations are read once, when the catalog is
 * built, and a tool whose declarations break the rules is refused there: the name must be an
 * RFC 9110 token, unique case-insensitively within the schema, on a property of primitive type
 * (`string`, `integer` or `boolean`, optionally also `null`; never `number`), statically reachable
 * from the root through `properties` keys only (not through `items`, `anyOf`, `$ref`, …).
 *
 * @example
 * ```ts
 * import { declarations } from "@snodo/protocol/methods/HeaderParams"
 *
 * declarations({
 *   type: "object",
 *   properties: { region: { type: "string", "x-mcp-header": "Region" } }
 * })
 * // [{ name: "Region", header: "mcp-param-region", path: ["region"], type: "string" }]
 * ```
 *
 * @since 0.1.0
 */
import { isObject } from "../wire/internal/IsObject.ts"
/** A JSON Schema document as a tool lists it (`true`, `false` or an object). */
type JsonSchemaDocument = boolean | { readonly [key: string]: unknown }

/**
 * The annotation keyword.
 *
 * @category constants
 * @since 0.1.0
 */
export const keyword = "x-mcp-header"

/**
 * The primitive types a mirrored parameter may have.
 *
 * @category models
 * @since 0.1.0
 */
export type ParamType = "string" | "integer" | "boolean"

/**
 * One mirrored parameter.
 *
 * @category models
 * @since 0.1.0
 */
export interface HeaderParam {
  /** The name as declared (`Region`); the header is `Mcp-Param-Region`. */
  readonly name: string
  /** The header name in lower case, as HTTP servers see it (`mcp-param-region`). */
  readonly header: string
  /** The chain of `properties` keys from the root to the parameter. */
  readonly path: ReadonlyArray<string>
  readonly type: ParamType
}

/**
 * Why a declaration was refused.
 *
 * @category models
 * @since 0.1.0
 */
export interface InvalidDeclaration {
  readonly _tag: "InvalidDeclaration"
  readonly reason: string
}

/**
 * Options for `jsonSchemaOf` so an Effect Schema's `x-mcp-header` annotation reaches the
 * advertised input schema (`Schema.String.annotate({ "x-mcp-header": "Region" })`).
 *
 * @category constants
 * @since 0.1.0
 */
export const annotationOptions = { includeAnnotationKey: (key: string): boolean => key === keyword }

const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** Keywords whose value is one subschema. */
const singleSchema = new Set([
  "additionalProperties",
  "items",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "additionalItems",
  "contentSchema"
])
/** Keywords whose value is an array of subschemas. */
const schemaArray = new Set(["allOf", "anyOf", "oneOf", "prefixItems"])
/** Keywords whose value maps names to subschemas (other than `properties`). */
const schemaMap = new Set(["$defs", "definitions", "patternProperties", "dependentSchemas"])


const typeOf = (schema: Readonly<Record<string, unknown>>): ParamType | undefined => {
  const type = schema["type"]
  const types = typeof type === "string" ? [type] : Array.isArray(type) ? type : []
  const primitive = types.filter((t) => t !== "null")
  if (primitive.length !== 1 || types.length > 2) return undefined
  const only = primitive[0]
  return only === "string" || only === "integer" || only === "boolean" ? only : undefined
}

const refuse = (reason: string): InvalidDeclaration => ({ _tag: "InvalidDeclaration", reason })

const pathText = (path: ReadonlyArray<string>): string => path.length === 0 ? "the root" : `"${path.join(".")}"`

/**
 * Reads the `x-mcp-header` declarations of a tool's input schema, or says why they are invalid.
 *
 * @category combinators
 * @since 0.1.0
 */
export const declarations = (schema: JsonSchemaDocument): ReadonlyArray<HeaderParam> | InvalidDeclaration => {
  const found: Array<HeaderParam> = []
  const seen = new Map<string, string>()
  let invalid: InvalidDeclaration | undefined

  // `path` is the chain of `properties` keys while the node is statically reachable, else undefined.
  const visit = (node: unknown, path: ReadonlyArray<string> | undefined): void => {
    if (invalid !== undefined || !isObject(node)) return
    if (Object.hasOwn(node, keyword)) {
      const name = node[keyword]
      if (path === undefined || path.length === 0) {
        invalid = refuse(`${keyword} is only allowed on properties reachable through "properties" from the root`)
        return
      }
      if (typeof name !== "string" || !token.test(name)) {
        invalid = refuse(`${keyword} of ${pathText(path)} must be a non-empty HTTP token`)
        return
      }
      const type = typeOf(node)
      if (type === undefined) {
        invalid = refuse(`${keyword} "${name}" must be on a property of type string, integer or boolean`)
        return
      }
      const header = `mcp-param-${name.toLowerCase()}`
      const clash = seen.get(header)
      if (clash !== undefined) {
        invalid = refuse(`${keyword} "${name}" duplicates "${clash}" (names are case-insensitive)`)
        return
      }
      seen.set(header, name)
      found.push({ name, header, path, type })
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === "properties") {
        if (isObject(value)) {
          for (const [property, sub] of Object.entries(value)) visit(sub, path === undefined ? undefined : [...path, property])
        }
      } else if (singleSchema.has(key)) {
        visit(value, undefined)
      } else if (schemaArray.has(key)) {
        if (Array.isArray(value)) for (const sub of value) visit(sub, undefined)
      } else if (schemaMap.has(key)) {
        if (isObject(value)) for (const sub of Object.values(value)) visit(sub, undefined)
      }
    }
  }

  visit(schema, [])
  return invalid ?? found
}

/**
 * The argument value at a declaration's path; `undefined` when absent (or `null`, which clients
 * never mirror).
 *
 * @category combinators
 * @since 0.1.0
 */
export const valueAt = (args: Readonly<Record<string, unknown>>, path: ReadonlyArray<string>): unknown => {
  let current: unknown = args
  for (const key of path) {
    if (!isObject(current) || !Object.hasOwn(current, key)) return undefined
    current = current[key]
  }
  return current === null ? undefined : current
}
