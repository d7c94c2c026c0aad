/**
 * Elicitation forms: the restricted, flat JSON Schema subset of form-mode `elicitation/create`,
 * checked when a form is defined, and the validation of what the user answered.
 *
 * A form is an object of primitive fields: strings (length bounds, `email` / `uri` / `date` /
 * `date-time` formats), single-choice enums (plain, titled with `oneOf`, or legacy `enumNames`),
 * numbers and integers with bounds, booleans and multi-choice arrays of enums. Any other keyword,
 * nesting or type is refused with a message naming the property and the rule.
 *
 * Accepted content is checked field by field against the form; extra fields are dropped; a
 * failure names the field and the rule, never the value the user typed.
 *
 * @example
 * ```ts
 * import * as ElicitationForm from "@snodo/core/ElicitationForm"
 *
 * ElicitationForm.check({ type: "object", properties: { name: { type: "string", pattern: "^a" } } })
 * // ['property "name": unknown keyword "pattern"']
 * ```
 *
 * @since 0.1.0
 */
import { Result, Schema } from "effect"
import { isObject } from "../../pipeline/internal/IsObject.ts"

interface Described {
  readonly title?: string
  readonly description?: string
}

/**
 * A display option of a titled enum.
 *
 * @category models
 * @since 0.1.0
 */
export interface Option {
  readonly const: string
  readonly title: string
}

/**
 * @category models
 * @since 0.1.0
 */
export interface StringField extends Described {
  readonly type: "string"
  readonly minLength?: number
  readonly maxLength?: number
  readonly format?: "email" | "uri" | "date" | "date-time"
  readonly default?: string
}

/**
 * @category models
 * @since 0.1.0
 */
export interface NumberField extends Described {
  readonly type: "number" | "integer"
  readonly minimum?: number
  readonly maximum?: number
  readonly default?: number
}

/**
 * @category models
 * @since 0.1.0
 */
export interface BooleanField extends Described {
  readonly type: "boolean"
  readonly default?: boolean
}

/**
 * Single choice among plain values (`enumNames` is the legacy way to title them).
 *
 * @category models
 * @since 0.1.0
 */
export interface EnumField extends Described {
  readonly type: "string"
  readonly enum: ReadonlyArray<string>
  readonly enumNames?: ReadonlyArray<string>
  readonly default?: string
}

/**
 * Single choice among titled values.
 *
 * @category models
 * @since 0.1.0
 */
export interface TitledEnumField extends Described {
  readonly type: "string"
  readonly oneOf: ReadonlyArray<Option>
  readonly default?: string
}

/**
 * Multiple choice among plain or titled values.
 *
 * @category models
 * @since 0.1.0
 */
export interface MultiEnumField extends Described {
  readonly type: "array"
  readonly minItems?: number
  readonly maxItems?: number
  readonly items:
    | { readonly type: "string"; readonly enum: ReadonlyArray<string> }
    | { readonly anyOf: ReadonlyArray<Option> }
  readonly default?: ReadonlyArray<string>
}

/**
 * One field of a form.
 *
 * @category models
 * @since 0.1.0
 */
export type Field = StringField | NumberField | BooleanField | EnumField | TitledEnumField | MultiEnumField

/**
 * The `requestedSchema` of a form-mode elicitation.
 *
 * @category models
 * @since 0.1.0
 */
export interface FormSchema {
  readonly $schema?: string
  readonly type: "object"
  readonly properties: Readonly<Record<string, Field>>
  readonly required?: ReadonlyArray<string>
}

/**
 * The value type of a field.
 *
 * @category models
 * @since 0.1.0
 */
export type ValueOf<F> = F extends { readonly type: "boolean" } ? boolean
  : F extends { readonly type: "number" | "integer" } ? number
  : F extends { readonly type: "array"; readonly items: { readonly enum: ReadonlyArray<infer E extends string> } } ? ReadonlyArray<E>
  : F extends { readonly type: "array"; readonly items: { readonly anyOf: ReadonlyArray<{ readonly const: infer C extends string }> } } ? ReadonlyArray<C>
  : F extends { readonly type: "array" } ? ReadonlyArray<string>
  : F extends { readonly enum: ReadonlyArray<infer E extends string> } ? E
  : F extends { readonly oneOf: ReadonlyArray<{ readonly const: infer C extends string }> } ? C
  : string

type RequiredKeys<S extends FormSchema> = S["required"] extends ReadonlyArray<infer K> ? Extract<K, keyof S["properties"]> : never

type Simplify<A> = { readonly [K in keyof A]: A[K] } & {}

/**
 * The content an accepted form carries: required fields present, the others optional.
 *
 * @category models
 * @since 0.1.0
 */
export type ContentOf<S extends FormSchema> = Simplify<
  & { readonly [K in RequiredKeys<S>]: ValueOf<S["properties"][K]> }
  & { readonly [K in Exclude<keyof S["properties"], RequiredKeys<S>>]?: ValueOf<S["properties"][K]> }
>

/**
 * Raised when a form (or a URL elicitation) is defined with what the spec does not allow.
 *
 * @category errors
 * @since 0.1.0
 */
export class ElicitationSchemaError extends Schema.TaggedError<ElicitationSchemaError>()("ElicitationSchemaError", {
  message: Schema.String
}) {}

const own = (record: Readonly<Record<string, unknown>>, key: string): unknown =>
  Object.hasOwn(record, key) ? record[key] : undefined

const formats = new Set(["email", "uri", "date", "date-time"])
const commonKeys = ["type", "title", "description", "default"]
const isNonNegativeInt = (u: unknown): boolean => typeof u === "number" && Number.isSafeInteger(u) && u >= 0
const isStringArray = (u: unknown): u is ReadonlyArray<string> => Array.isArray(u) && u.every((item) => typeof item === "string")

const checkOptions = (options: unknown, where: string): string | undefined => {
  if (!Array.isArray(options) || options.length === 0) return `${where} must be a non-empty array`
  const seen = new Set<string>()
  for (const option of options) {
    if (!isObject(option)) return `${where} entries must be objects`
    const keys = Object.keys(option)
    if (keys.length !== 2 || typeof option["const"] !== "string" || typeof option["title"] !== "string") {
      return `${where} entries are exactly { const: string, title: string }`
    }
    if (seen.has(option["const"])) return `${where} repeats a value`
    seen.add(option["const"])
  }
  return undefined
}

const checkEnum = (values: unknown, where: string): string | undefined => {
  if (!isStringArray(values) || values.length === 0) return `${where} must be a non-empty array of strings`
  if (new Set(values).size !== values.length) return `${where} repeats a value`
  return undefined
}

const choicesOf = (field: Record<string, unknown>): ReadonlyArray<string> | undefined => {
  const source = field["type"] === "array" ? field["items"] as Record<string, unknown> : field
  if (Array.isArray(source["enum"])) return source["enum"] as ReadonlyArray<string>
  const options = source["oneOf"] ?? source["anyOf"]
  return Array.isArray(options) ? options.map((option: Option) => option.const) : undefined
}

const checkBounds = (field: Record<string, unknown>, low: string, high: string, test: (u: unknown) => boolean, what: string) => {
  for (const key of [low, high]) if (field[key] !== undefined && !test(field[key])) return `"${key}" must be ${what}`
  if (field[low] !== undefined && field[high] !== undefined && (field[low] as number) > (field[high] as number)) {
    return `"${low}" exceeds "${high}"`
  }
  return undefined
}

const checkField = (field: Record<string, unknown>): string | undefined => {
  const unknownKey = (extra: ReadonlyArray<string>) => {
    const key = Object.keys(field).find((name) => !commonKeys.includes(name) && !extra.includes(name))
    return key === undefined ? undefined : `unknown keyword "${key}"`
  }
  for (const key of ["title", "description"]) {
    if (field[key] !== undefined && typeof field[key] !== "string") return `"${key}" must be a string`
  }
  const fallback = field["default"]
  switch (field["type"]) {
    case "string": {
      if ("enum" in field) {
        const problem = unknownKey(["enum", "enumNames"]) ?? checkEnum(field["enum"], "\"enum\"")
        if (problem) return problem
        const names = field["enumNames"]
        if (names !== undefined && (!isStringArray(names) || names.length !== (field["enum"] as ReadonlyArray<string>).length)) {
          return "\"enumNames\" must be strings, one per enum value"
        }
      } else if ("oneOf" in field) {
        const problem = unknownKey(["oneOf"]) ?? checkOptions(field["oneOf"], "\"oneOf\"")
        if (problem) return problem
      } else {
        const problem = unknownKey(["minLength", "maxLength", "format"]) ??
          checkBounds(field, "minLength", "maxLength", isNonNegativeInt, "a non-negative integer")
        if (problem) return problem
        if (field["format"] !== undefined && !formats.has(field["format"] as string)) {
          return "\"format\" must be one of email, uri, date, date-time"
        }
      }
      if (fallback !== undefined) {
        if (typeof fallback !== "string") return "\"default\" must be a string"
        const choices = choicesOf(field)
        if (choices !== undefined && !choices.includes(fallback)) return "\"default\" is not one of the choices"
      }
      return undefined
    }
    case "number":
    case "integer": {
      const problem = unknownKey(["minimum", "maximum"]) ??
        checkBounds(field, "minimum", "maximum", (u) => typeof u === "number" && Number.isFinite(u), "a finite number")
      if (problem) return problem
      if (fallback !== undefined && (typeof fallback !== "number" || !Number.isFinite(fallback) ||
        (field["type"] === "integer" && !Number.isInteger(fallback)))) {
        return `"default" must be ${field["type"] === "integer" ? "an integer" : "a finite number"}`
      }
      return undefined
    }
    case "boolean": {
      const problem = unknownKey([])
      if (problem) return problem
      return fallback !== undefined && typeof fallback !== "boolean" ? "\"default\" must be a boolean" : undefined
    }
    case "array": {
      const problem = unknownKey(["minItems", "maxItems", "items"]) ??
        checkBounds(field, "minItems", "maxItems", isNonNegativeInt, "a non-negative integer")
      if (problem) return problem
      const items = field["items"]
      if (!isObject(items)) return "\"items\" must be an object"
      const itemKeys = Object.keys(items).toSorted().join(",")
      if (itemKeys === "enum,type") {
        if (items["type"] !== "string") return "\"items.type\" must be \"string\""
        const enumProblem = checkEnum(items["enum"], "\"items.enum\"")
        if (enumProblem) return enumProblem
      } else if (itemKeys === "anyOf") {
        const optionsProblem = checkOptions(items["anyOf"], "\"items.anyOf\"")
        if (optionsProblem) return optionsProblem
      } else {
        return "\"items\" must be { type: \"string\", enum } or { anyOf }"
      }
      if (fallback !== undefined) {
        const choices = choicesOf(field)!
        if (!isStringArray(fallback) || fallback.some((value) => !choices.includes(value))) {
          return "\"default\" must be an array of the choices"
        }
      }
      return undefined
    }
    default:
      return "\"type\" must be string, number, integer, boolean or array"
  }
}

/**
 * Every rule a requested schema breaks; empty when it is a valid form.
 *
 * @category combinators
 * @since 0.1.0
 */
export const check = (schema: unknown): ReadonlyArray<string> => {
  if (!isObject(schema)) return ["requestedSchema must be an object"]
  const problems: Array<string> = []
  for (const key of Object.keys(schema)) {
    if (!["$schema", "type", "properties", "required"].includes(key)) problems.push(`unknown keyword "${key}"`)
  }
  if (schema["$schema"] !== undefined && typeof schema["$schema"] !== "string") problems.push("\"$schema\" must be a string")
  if (schema["type"] !== "object") problems.push("\"type\" must be \"object\"")
  const properties = schema["properties"]
  if (!isObject(properties)) {
    problems.push("\"properties\" must be an object")
    return problems
  }
  for (const [name, field] of Object.entries(properties)) {
    const problem = isObject(field) ? checkField(field) : "must be an object"
    if (problem) problems.push(`property "${name}": ${problem}`)
  }
  const required = schema["required"]
  if (required !== undefined) {
    if (!isStringArray(required)) {
      problems.push("\"required\" must be an array of strings")
    } else {
      if (new Set(required).size !== required.length) problems.push("\"required\" repeats a name")
      for (const name of required) if (!Object.hasOwn(properties, name)) problems.push(`"required" names unknown property "${name}"`)
    }
  }
  return problems
}

/**
 * Checks a URL-mode elicitation target: http or https, a host, no userinfo.
 *
 * @category combinators
 * @since 0.1.0
 */
export const checkUrl = (url: string): string | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return "url must be an absolute URL"
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "url must use http or https"
  if (parsed.hostname === "") return "url must name a host"
  if (parsed.username !== "" || parsed.password !== "") return "url must not carry userinfo"
  return undefined
}

const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31

const isDate = (text: string): boolean => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (match === null) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)
}

const isDateTime = (text: string): boolean => {
  const match = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/.exec(text)
  if (match === null || !isDate(match[1]!)) return false
  const [hour, minute, second] = [Number(match[2]), Number(match[3]), Number(match[4])]
  if (hour > 23 || minute > 59 || second > 60) return false
  return match[7] === undefined || (Number(match[7]) <= 23 && Number(match[8]) <= 59)
}

const formatChecks: Readonly<Record<string, (text: string) => boolean>> = {
  email: (text) => /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)*$/.test(text),
  uri: (text) => /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/.test(text),
  date: isDate,
  "date-time": isDateTime
}

const checkValue = (field: Field, value: unknown): string | undefined => {
  const record = field as unknown as Record<string, unknown>
  switch (field.type) {
    case "string": {
      if (typeof value !== "string") return "must be a string"
      const choices = choicesOf(record)
      if (choices !== undefined) return choices.includes(value) ? undefined : "must be one of the choices"
      const length = [...value].length
      const { minLength, maxLength, format } = field as StringField
      if (minLength !== undefined && length < minLength) return `must have at least ${minLength} characters`
      if (maxLength !== undefined && length > maxLength) return `must have at most ${maxLength} characters`
      if (format !== undefined && !formatChecks[format]!(value)) return `must be a valid ${format}`
      return undefined
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number"
      if (field.type === "integer" && !Number.isInteger(value)) return "must be an integer"
      if (field.minimum !== undefined && value < field.minimum) return `must be at least ${field.minimum}`
      if (field.maximum !== undefined && value > field.maximum) return `must be at most ${field.maximum}`
      return undefined
    }
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be a boolean"
    case "array": {
      if (!isStringArray(value)) return "must be an array of strings"
      const choices = choicesOf(record)!
      if (value.some((item) => !choices.includes(item))) return "must contain only the choices"
      if (new Set(value).size !== value.length) return "must not repeat a choice"
      if (field.minItems !== undefined && value.length < field.minItems) return `must have at least ${field.minItems} items`
      if (field.maxItems !== undefined && value.length > field.maxItems) return `must have at most ${field.maxItems} items`
      return undefined
    }
  }
}

/**
 * The content of an accepted form, declared fields only.
 *
 * @category models
 * @since 0.1.0
 */
export type Content = Readonly<Record<string, string | number | boolean | ReadonlyArray<string>>>

/**
 * Checks the content of an accepted form against the form (already known to be valid): the
 * content with only the declared fields kept, or the reason it is refused.
 *
 * @category combinators
 * @since 0.1.0
 */
export const checkContent = (schema: FormSchema, content: unknown): Result.Result<Content, string> => {
  const given = content === undefined ? {} : content
  if (!isObject(given)) return Result.fail("content must be an object")
  const kept: Record<string, string | number | boolean | ReadonlyArray<string>> = {}
  for (const name of schema.required ?? []) {
    if (own(given, name) === undefined) return Result.fail(`content.${name} is required`)
  }
  for (const [name, field] of Object.entries(schema.properties)) {
    const value = own(given, name)
    if (value === undefined) continue
    const problem = checkValue(field, value)
    if (problem) return Result.fail(`content.${name} ${problem}`)
    kept[name] = value as string | number | boolean | ReadonlyArray<string>
  }
  return Result.succeed(kept)
}
