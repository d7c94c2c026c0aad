/**
 * The JSON Schema (Draft 2020-12) advertised for an Effect Schema in `tools/list`.
 *
 * Derived with `Schema.toJsonSchemaDocument`, so it describes the JSON side of
 * `Schema.toCodecJson(schema)`, the codec a tool decodes its arguments with. Named schemas stay in
 * `$defs`; a root that is only a `$ref` to a definition is inlined so the root carries its own
 * `type` (MCP requires `type: "object"` at the root of a tool's input schema). No `$schema` key
 * unless asked: 2020-12 is MCP's default dialect.
 *
 * Where Effect and JSON Schema cannot agree exactly, Effect derives a looser schema (never a
 * stricter one), and the decoder stays the final authority: string lengths are counted in UTF-16
 * code units by Effect and in code points by JSON Schema, so `isMinLength(n)` is advertised as
 * `minLength: ceil(n / 2)` and `isMaxLength(n)` as `maxLength: n`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { jsonSchemaOf } from "@snodo/core/extension/JsonSchemaOf"
 *
 * jsonSchemaOf(Schema.Struct({ a: Schema.Finite }))
 * // { type: "object", properties: { a: { type: "number" } }, required: ["a"], additionalProperties: true }
 * ```
 *
 * @since 0.1.0
 */
import { type JsonSchema, Schema } from "effect"
import type { JsonSchemaDocument } from "../SchemaValidator.ts"

/**
 * Draft 2020-12's meta-schema URI (effect's `JsonSchema.META_SCHEMA_URI_DRAFT_2020_12`), written
 * here: importing `effect/JsonSchema` for one string cost every start ~1 M instructions.
 */
const draft2020_12 = "https://json-schema.org/draft/2020-12/schema"

/**
 * Options of {@link jsonSchemaOf}: Effect's generation options, plus whether to write `$schema`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options extends Schema.ToJsonSchemaOptions {
  /** Write `"$schema": "https://json-schema.org/draft/2020-12/schema"` at the root. Default false. */
  readonly $schema?: boolean | undefined
}

/**
 * Derives the Draft 2020-12 JSON Schema document of an Effect Schema.
 *
 * @category combinators
 * @since 0.1.0
 */
export const jsonSchemaOf = (
  schema: Schema.Top,
  options?: Options
): Exclude<JsonSchemaDocument, boolean> => {
  const document = Schema.toJsonSchemaDocument(schema, options)
  const definitions: Record<string, JsonSchema.JsonSchema> = { ...document.definitions }
  let root: JsonSchema.JsonSchema = document.schema
  const rootRef = onlyRef(root)
  if (rootRef !== undefined && Object.hasOwn(definitions, rootRef)) {
    root = definitions[rootRef]!
    if (!isReferenced(`#/$defs/${escapePointer(rootRef)}`, Object.values(definitions))) {
      delete definitions[rootRef]
    }
  }
  const result: Record<string, unknown> = {}
  if (options?.$schema === true) result["$schema"] = draft2020_12
  Object.assign(result, root)
  if (Object.keys(definitions).length > 0) result["$defs"] = definitions
  return result
}

const onlyRef = (schema: JsonSchema.JsonSchema): string | undefined => {
  const keys = Object.keys(schema)
  const ref = schema["$ref"]
  if (keys.length !== 1 || typeof ref !== "string" || !ref.startsWith("#/$defs/")) return undefined
  const name = ref.slice("#/$defs/".length)
  return name.includes("/") ? undefined : unescapePointer(name)
}

/** Whether a `$ref` to the definition remains (a recursive schema keeps its definition). */
const isReferenced = (ref: string, schemas: ReadonlyArray<unknown>): boolean => {
  const seen = new Set<unknown>()
  const visit = (value: unknown): boolean => {
    if (typeof value !== "object" || value === null || seen.has(value)) return false
    seen.add(value)
    if (!Array.isArray(value) && (value as Record<string, unknown>)["$ref"] === ref) return true
    return Object.values(value).some(visit)
  }
  return schemas.some(visit)
}

const escapePointer = (segment: string): string => segment.replaceAll("~", "~0").replaceAll("/", "~1")
const unescapePointer = (segment: string): string => segment.replaceAll("~1", "/").replaceAll("~0", "~")
