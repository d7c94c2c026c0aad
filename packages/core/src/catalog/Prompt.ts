/**
 * Prompt definitions: named message templates with arguments.
 *
 * Arguments arrive as strings. Declare them as a record (`{ name: { required: true } }`, the
 * handler gets strings) or as an Effect Schema `Struct` whose fields decode from strings
 * (`Schema.String`, `Schema.NumberFromString`, `Schema.Literals([...])`, optional with
 * `Schema.optional`): the handler then gets the decoded values, and `prompts/list` describes each
 * field (name, `required`, `title` and `description` from its annotations). Missing or invalid
 * arguments are -32602 naming the argument, before the handler runs.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import * as Prompt from "@snodo/core/Prompt"
 *
 * const greet = Prompt.make("greet", {
 *   description: "Greets someone",
 *   arguments: { name: { description: "Who to greet", required: true } }
 * }, ({ name }) => Effect.succeed([Prompt.user(`Say hello to ${name}`)]))
 *
 * const forecast = Prompt.make("forecast", {
 *   description: "Asks for a forecast",
 *   arguments: Schema.Struct({
 *     city: Schema.String.annotate({ description: "The city" }),
 *     days: Schema.optional(Schema.NumberFromString)
 *   })
 * }, ({ city, days }) => Effect.succeed([Prompt.user(`Forecast for ${city}, ${days ?? 3} days`)]))
 * ```
 *
 * @since 0.1.0
 */
import { type Effect, Exit, Result, Schema, SchemaAST, SchemaIssue } from "effect"
import type { InputRequired } from "../mrtr/InputRequired.ts"
import * as ComponentOptions from "./ComponentOptions.ts"
import type * as Completion from "./Completion.ts"
import * as Content from "./Content.ts"
import type { Icon } from "./Tool.ts"
import { isObject } from "../pipeline/internal/IsObject.ts"

const TypeId: unique symbol = Symbol.for("@snodo/core/Prompt")

/**
 * One declared argument.
 *
 * @category models
 * @since 0.1.0
 */
export interface Argument {
  readonly description?: string
  readonly title?: string
  readonly required?: boolean
}

/**
 * A message of a rendered prompt.
 *
 * @category models
 * @since 0.1.0
 */
export interface Message {
  readonly role: "user" | "assistant"
  readonly content: Content.Block
}

/**
 * What a prompt handler returns: messages, or messages with a description.
 *
 * @category models
 * @since 0.1.0
 */
export type Rendered =
  | ReadonlyArray<Message>
  | { readonly description?: string; readonly messages: ReadonlyArray<Message>; readonly _meta?: Readonly<Record<string, unknown>> }

/**
 * Arguments the handler receives: required ones are present, optional ones may be absent.
 *
 * @category models
 * @since 0.1.0
 */
export type ArgumentValues<A extends Readonly<Record<string, Argument>>> =
  & { readonly [K in keyof A as A[K]["required"] extends true ? K : never]: string }
  & { readonly [K in keyof A as A[K]["required"] extends true ? never : K]?: string }

/**
 * Descriptive fields.
 *
 * @category models
 * @since 0.1.0
 */
export interface Description {
  readonly title?: string
  readonly description?: string
  readonly icons?: ReadonlyArray<Icon>
  readonly _meta?: Readonly<Record<string, unknown>>
}

/**
 * An arguments schema: a `Struct` whose fields all decode from strings (wire arguments are
 * strings), without services. Checked again when the catalog is built.
 *
 * @category models
 * @since 0.1.0
 */
export type ArgumentsSchema = Schema.Top & {
  readonly Encoded: { readonly [name: string]: string | undefined }
  readonly DecodingServices: never
}

/**
 * A defined prompt.
 *
 * @category models
 * @since 0.1.0
 */
export interface Prompt<out R = never> {
  readonly [TypeId]: typeof TypeId
  readonly name: string
  readonly description: Description
  /** What `prompts/list` says of the arguments. */
  readonly arguments: ReadonlyArray<{ readonly name: string } & Argument>
  /** The arguments' schema, when they are declared as one. */
  readonly argumentsSchema: Schema.Top | undefined
  readonly complete: Completion.Providers<R>
  /** The wire arguments as the handler receives them, or why they are refused (missing or invalid). */
  readonly decode: (args: Readonly<Record<string, string>>) => Result.Result<unknown, string>
  /** Renders decoded arguments. */
  readonly render: (args: unknown) => Effect.Effect<Rendered, unknown, R>
  /** Its bulkhead, timeout and rate limit (see `ComponentOptions`). */
  readonly limits: ComponentOptions.Limits
}

/**
 * Whether a value is a prompt.
 *
 * @category guards
 * @since 0.1.0
 */
export const isPrompt = (u: unknown): u is Prompt<unknown> => typeof u === "object" && u !== null && TypeId in u

/**
 * Arguments as declared: a record of string arguments, or an {@link ArgumentsSchema}.
 *
 * @category models
 * @since 0.1.0
 */
export type Arguments = ArgumentsSchema | Readonly<Record<string, Argument>>

/**
 * What the handler receives for declared arguments.
 *
 * @category models
 * @since 0.1.0
 */
export type ArgumentsOf<A extends Arguments> = A extends Schema.Top ? A["Type"]
  : A extends Readonly<Record<string, Argument>> ? ArgumentValues<A>
  : never

/**
 * Completion providers: for a schema, keyed by its fields only.
 *
 * @category models
 * @since 0.1.0
 */
export type Completions<A extends Arguments, R = never> = A extends Schema.Top
  ? { readonly [K in keyof A["Type"]]?: Completion.Provider<R> }
  : Completion.Providers<R>

/**
 * Defines a prompt. `arguments` is a record of string arguments, or an Effect Schema `Struct`
 * whose fields decode from strings (then completion providers may only name its fields).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <const A extends Arguments = {}, E = never, R = never, RC = never>(
  name: string,
  options: Description & { readonly arguments?: A; readonly complete?: Completions<A, RC> } & ComponentOptions.ComponentOptions,
  render: (args: ArgumentsOf<A>) => Effect.Effect<Rendered | InputRequired, E, R>
): Prompt<R | RC> => {
  const { limits, rest: { arguments: declared, complete, ...description } } = ComponentOptions.split(options)
  const schema = Schema.isSchema(declared) ? declared : undefined
  const list = schema !== undefined
    ? argumentsOf(schema)
    : Object.entries(declared ?? {}).map(([argName, argument]) => ({ name: argName, ...argument }))
  return {
    [TypeId]: TypeId,
    name,
    description,
    arguments: list,
    argumentsSchema: schema,
    complete: (complete ?? {}) as Completion.Providers<RC>,
    decode: schema !== undefined ? schemaDecoder(schema, list) : recordDecoder(list),
    render: render as Prompt<R>["render"],
    limits
  }
}

const missingOf = (
  list: ReadonlyArray<{ readonly name: string } & Argument>,
  values: Readonly<Record<string, string>>
): string | undefined => {
  const missing = list.filter((argument) => argument.required === true && values[argument.name] === undefined)
  return missing.length === 0
    ? undefined
    : `Missing required argument${missing.length > 1 ? "s" : ""}: ${missing.map((argument) => argument.name).join(", ")}`
}

const recordDecoder = (list: ReadonlyArray<{ readonly name: string } & Argument>) =>
(values: Readonly<Record<string, string>>): Result.Result<unknown, string> => {
  const missing = missingOf(list, values)
  return missing === undefined ? Result.succeed(values) : Result.fail(missing)
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const schemaDecoder = (schema: Schema.Top, list: ReadonlyArray<{ readonly name: string } & Argument>) => {
  const decode = Schema.decodeUnknownExit(schema as Schema.Codec<unknown, unknown>)
  return (values: Readonly<Record<string, string>>): Result.Result<unknown, string> => {
    const missing = missingOf(list, values)
    if (missing !== undefined) return Result.fail(missing)
    const exit = decode(values)
    if (Exit.isSuccess(exit)) return Result.succeed(exit.value)
    const reason = exit.cause.reasons.find((candidate) => candidate._tag === "Fail")
    const first = reason === undefined ? undefined : formatter(reason.error.issue).issues[0]
    if (first === undefined) return Result.fail("Invalid arguments")
    const key = first.path?.[0]
    const argName = isObject(key) && "key" in key ? key.key : key
    // Messages name the rule, never the value (issues are made without `reportInput`).
    return Result.fail(argName === undefined ? `Invalid arguments: ${first.message}` : `Invalid argument "${String(argName)}": ${first.message}`)
  }
}

/** The shape of an arguments schema: its own AST for a struct, the encoded side otherwise (a class). */
const shapeOf = (schema: Schema.Top): SchemaAST.Objects | undefined => {
  const ast = schema.ast._tag === "Objects" ? schema.ast : SchemaAST.toEncoded(schema.ast)
  return ast._tag === "Objects" ? ast : undefined
}

const annotationOf = (signature: SchemaAST.PropertySignature, encoded: SchemaAST.AST | undefined, key: "title" | "description") => {
  const fromKey = signature.type.context?.annotations?.[key]
  if (typeof fromKey === "string") return fromKey
  const resolved = SchemaAST.resolve(signature.type)?.[key] ?? (encoded === undefined ? undefined : SchemaAST.resolve(encoded)?.[key])
  return typeof resolved === "string" ? resolved : undefined
}

/**
 * What `prompts/list` says of a schema's arguments: each field's name; `required` unless the
 * client may omit it (an optional key on the encoded side); `title` and `description` from the
 * field's key or type annotations.
 *
 * @category combinators
 * @since 0.1.0
 */
export const argumentsOf = (schema: Schema.Top): ReadonlyArray<{ readonly name: string } & Argument> => {
  const shape = shapeOf(schema)
  if (shape === undefined) return []
  const encoded = SchemaAST.toEncoded(schema.ast)
  const encodedFields = encoded._tag === "Objects" ? encoded.propertySignatures : []
  return shape.propertySignatures.map((signature) => {
    const wire = encodedFields.find((candidate) => candidate.name === signature.name)
    const title = annotationOf(signature, wire?.type, "title")
    const description = annotationOf(signature, wire?.type, "description")
    return {
      name: String(signature.name),
      ...(title === undefined ? {} : { title }),
      ...(description === undefined ? {} : { description }),
      required: !SchemaAST.isOptional(wire?.type ?? signature.type)
    }
  })
}

const isStringLike = (ast: SchemaAST.AST, optional: boolean): boolean => {
  switch (ast._tag) {
    case "String":
    case "TemplateLiteral":
      return true
    case "Literal":
      return typeof ast.literal === "string"
    case "Enum":
      return ast.enums.every(([, value]) => typeof value === "string")
    case "Undefined":
      return optional
    case "Union":
      return ast.types.every((member) => isStringLike(member, optional))
    default:
      return false
  }
}

/**
 * Why an arguments schema cannot describe prompt arguments (empty when it can): it must be a
 * struct of named fields, each of which decodes from a string.
 *
 * @category combinators
 * @since 0.1.0
 */
export const argumentsProblems = (schema: Schema.Top): ReadonlyArray<string> => {
  const encoded = SchemaAST.toEncoded(schema.ast)
  if (encoded._tag !== "Objects" || encoded.indexSignatures.length > 0) {
    return ["arguments must be a Schema.Struct of named fields"]
  }
  return encoded.propertySignatures.flatMap((signature) =>
    typeof signature.name !== "string"
      ? ["argument names must be strings"]
      : isStringLike(signature.type, SchemaAST.isOptional(signature.type))
      ? []
      : [`argument "${signature.name}" must decode from a string (its encoded side is ${signature.type._tag})`]
  )
}

/**
 * A user message with text (or any content block).
 *
 * @category combinators
 * @since 0.1.0
 */
export const user = (content: string | Content.Block): Message => ({
  role: "user",
  content: typeof content === "string" ? Content.text(content) : content
})

/**
 * An assistant message with text (or any content block).
 *
 * @category combinators
 * @since 0.1.0
 */
export const assistant = (content: string | Content.Block): Message => ({
  role: "assistant",
  content: typeof content === "string" ? Content.text(content) : content
})
