/**
 * Schemas of plain data compiled, once, to plain functions: a request's params, a tool's
 * arguments and its output are checked and copied without Effect's schema parser when they are
 * what they should be.
 *
 * {@link compile} takes a schema's AST and answers a function that returns what the schema's own
 * decoder (or encoder) would return for a value, or {@link unsure} when it cannot tell: the value
 * does not match (the schema's parser then finds the issue and words it), or the value or the
 * schema is outside what this module knows. It answers `undefined` for a schema it does not know
 * at all. The parser is exact and general but costs, per value, Effect's run-loop machinery (a
 * struct with a rest of unknown keys, as every MCP params object is, runs a generator per value):
 * measured in bench/PROFILE.md as most of the core's schema work per request.
 *
 * Known: strings, finite numbers, booleans, `null`, literals, unions of those, arrays of known
 * elements, structs (required and `optionalKey` fields, and a rest of string keys) of known
 * members, `Unknown`, and in `"decode"` declarations without type parameters (`Schema.declare`).
 * A node with checks (filters), a transformation or encoding checks is not known. The copy is
 * built as the parser builds it: a struct's declared fields first, in their order, then its rest
 * keys in the value's order; keys a struct without a rest does not declare are left out.
 *
 * Modes:
 *
 * - `"decode"`: the schema's decoder (`Schema.decodeUnknownExit(schema)`), for any value.
 * - `"decodeJson"`: the decoder of its JSON codec (`Schema.toCodecJson`), for JSON values only
 *   (what `StrictJson` parsed): on those the codec's encodings are the identity. No declarations.
 * - `"encodeJson"`: the encoder of its JSON codec, for any value: no `Unknown`, no declarations
 *   (the codec would check them for JSON), numbers finite (the codec writes the others as strings).
 *
 * @since 0.1.0
 */
import type { SchemaAST } from "effect"
import { isObject } from "./IsObject.ts"

/**
 * What a compiled function returns when the schema's own parser must decide.
 *
 * @category constants
 * @since 0.1.0
 */
export const unsure: unique symbol = Symbol.for("@snodo/core/PlainCodec/unsure")

/**
 * A compiled decoder or encoder: the result, or {@link unsure}.
 *
 * @category models
 * @since 0.1.0
 */
export type Plain = (value: unknown) => unknown

/**
 * Which of the schema's codecs a compiled function stands for.
 *
 * @category models
 * @since 0.1.0
 */
export type Mode = "decode" | "decodeJson" | "encodeJson"

/** The parse options `Schema.decodeUnknownExit` runs a declaration with when given none. */
const defaultOptions = {}

const identity = (value: unknown): unknown => value

/** A leaf's check, or `undefined` when the leaf is not known in this mode. */
const leaf = (ast: SchemaAST.AST, mode: Mode): ((value: unknown) => boolean) | undefined => {
  switch (ast._tag) {
    case "String":
      return (value) => typeof value === "string"
    case "Number":
      return (value) => typeof value === "number" && Number.isFinite(value)
    case "Boolean":
      return (value) => typeof value === "boolean"
    case "Null":
      return (value) => value === null
    case "Literal": {
      const literal = ast.literal
      if (typeof literal === "number" && !Number.isFinite(literal)) return undefined
      return typeof literal === "bigint" ? undefined : (value) => value === literal
    }
    case "Unknown":
    case "Any":
      return mode === "encodeJson" ? undefined : () => true
    default:
      return undefined
  }
}

const plainNode = (ast: SchemaAST.AST): boolean =>
  ast.checks === undefined && ast.encoding === undefined &&
  (!("encodingChecks" in ast) || ast.encodingChecks === undefined)

/**
 * Compiles `ast` for `mode`, or `undefined` when it holds a node this module does not know.
 *
 * @category constructors
 * @since 0.1.0
 */
export const compile = (ast: SchemaAST.AST, mode: Mode): Plain | undefined => {
  if (!plainNode(ast)) return undefined
  switch (ast._tag) {
    case "Objects":
      return objects(ast, mode)
    case "Arrays": {
      if (ast.elements.length !== 0 || ast.rest.length !== 1) return undefined
      const item = compile(ast.rest[0]!, mode)
      if (item === undefined) return undefined
      return (value) => {
        if (!Array.isArray(value)) return unsure
        const out: Array<unknown> = []
        for (let i = 0; i < value.length; i++) {
          const decoded = item(value[i])
          if (decoded === unsure) return unsure
          out.push(decoded)
        }
        return out
      }
    }
    case "Union": {
      const checks: Array<(value: unknown) => boolean> = []
      for (const member of ast.types) {
        const check = plainNode(member) ? leaf(member, mode) : undefined
        if (check === undefined) return undefined
        checks.push(check)
      }
      return (value) => checks.some((check) => check(value)) ? value : unsure
    }
    case "Declaration": {
      if (mode !== "decode" || ast.typeParameters.length !== 0) return undefined
      const parse = ast.run([])
      return (value) => {
        const exit = parse(value, ast, defaultOptions) as unknown as { readonly _tag?: string; readonly value?: unknown }
        // A declaration that accepts the value as it is answers it, already completed.
        return exit._tag === "Success" && exit.value === value ? value : unsure
      }
    }
    default: {
      const check = leaf(ast, mode)
      if (check === undefined) return undefined
      return ast._tag === "Unknown" || ast._tag === "Any" ? identity : (value) => check(value) ? value : unsure
    }
  }
}

interface Field {
  readonly name: string
  readonly optional: boolean
  readonly plain: Plain
}

const objects = (ast: SchemaAST.Objects, mode: Mode): Plain | undefined => {
  const fields: Array<Field> = []
  for (const property of ast.propertySignatures) {
    if (typeof property.name !== "string" || property.name === "__proto__") return undefined
    const plain = compile(property.type, mode)
    if (plain === undefined) return undefined
    fields.push({ name: property.name, optional: property.type.context?.isOptional === true, plain })
  }
  if (ast.indexSignatures.length > 1) return undefined
  const index = ast.indexSignatures[0]
  let rest: Plain | undefined
  if (index !== undefined) {
    if (index.parameter._tag !== "String" || !plainNode(index.parameter)) return undefined
    rest = compile(index.type, mode)
    if (rest === undefined) return undefined
  }
  const declared = new Set(fields.map((field) => field.name))
  return (value) => {
    if (!isObject(value)) return unsure
    const out: Record<string, unknown> = {}
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]!
      const name = field.name
      if (!Object.hasOwn(value, name)) {
        // Inherited (the parser reads some inherited keys), or missing where it is required.
        if (!field.optional || name in value) return unsure
        continue
      }
      const decoded = field.plain(value[name])
      if (decoded === unsure) return unsure
      out[name] = decoded
    }
    if (rest !== undefined) {
      for (const key of Object.keys(value)) {
        if (declared.has(key)) continue
        if (key === "__proto__") return unsure
        const decoded = rest(value[key])
        if (decoded === unsure) return unsure
        out[key] = decoded
      }
    }
    return out
  }
}
