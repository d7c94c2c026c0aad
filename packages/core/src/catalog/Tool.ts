/**
 * Typed tool definitions.
 *
 * A tool is a value: a name, its wire description, an input (an Effect Schema, whose JSON Schema
 * 2020-12 is derived for `tools/list`, or a raw JSON Schema checked by the `SchemaValidator`
 * service), an optional output, and a handler Effect. The handler runs in its own fiber with the
 * request services (`McpRequest`, `Progress`, `McpLog`) in context.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import * as Tool from "@snodo/core/catalog/Tool"
 *
 * const add = Tool.make("add", {
 *   description: "Add two numbers",
 *   input: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
 *   output: Schema.Struct({ sum: Schema.Number })
 * }, ({ a, b }) => Effect.succeed({ sum: a + b }))
 * ```
 *
 * @since 0.1.0
 */
import type { Effect, Schema } from "effect"
import type { InputRequired } from "../mrtr/InputRequired.ts"
import * as ComponentOptions from "./ComponentOptions.ts"
import type { McpError } from "../pipeline/McpError.ts"
import type { JsonSchemaDocument } from "./SchemaValidator.ts"
import type { ToolResult } from "./ToolResult.ts"

const TypeId: unique symbol = Symbol.for("@snodo/core/Tool")

/** Hints about a tool's behaviour (untrusted by clients). @since 0.1.0 */
export interface Annotations {
  readonly title?: string
  readonly readOnlyHint?: boolean
  readonly destructiveHint?: boolean
  readonly idempotentHint?: boolean
  readonly openWorldHint?: boolean
}

/** An icon a client may show. @since 0.1.0 */
export interface Icon {
  readonly src: string
  readonly mimeType?: string
  readonly sizes?: ReadonlyArray<string>
  readonly theme?: "light" | "dark"
}

/** Descriptive fields shared by both input forms. @since 0.1.0 */
export interface Description {
  readonly description?: string
  readonly title?: string
  readonly annotations?: Annotations
  readonly icons?: ReadonlyArray<Icon>
  readonly _meta?: Readonly<Record<string, unknown>>
}

/**
 * How a typed failure of the handler reaches the client: a `ToolResult` (usually
 * `ToolResult.error(...)`, an `isError` result the model can read) or a protocol error.
 *
 * @since 0.1.0
 */
export type FailureRenderer<E> = (error: E) => ToolResult | McpError

/**
 * Where a tool's input and output schemas come from.
 *
 * @since 0.1.0
 */
export type SchemaSource =
  | { readonly _tag: "Effect"; readonly schema: Schema.Top }
  | { readonly _tag: "Json"; readonly schema: JsonSchemaDocument }

/**
 * A defined tool.
 *
 * @since 0.1.0
 */
export interface Tool<out R = never> {
  readonly [TypeId]: typeof TypeId
  readonly name: string
  readonly description: Description
  readonly input: SchemaSource
  readonly output: SchemaSource | undefined
  readonly renderFailure: FailureRenderer<unknown> | undefined
  /** The handler, taking decoded input. Its result is shaped by the runtime. */
  readonly handler: (input: unknown) => Effect.Effect<unknown, unknown, R>
  /** Its bulkhead, timeout and rate limit (see `ComponentOptions`). */
  readonly limits: ComponentOptions.Limits
}

/** Any tool, whatever it requires. @since 0.1.0 */
export type Any = Tool<unknown>

/** The services a tool's handler requires. @since 0.1.0 */
export type Services<T> = T extends Tool<infer R> ? R : never

/** Whether a value is a tool. @since 0.1.0 */
export const isTool = (u: unknown): u is Tool<unknown> => typeof u === "object" && u !== null && TypeId in u

/** Options of a tool whose input is an Effect Schema. @since 0.1.0 */
export interface TypedOptions<I extends Schema.Top, O extends Schema.Top | undefined, E> extends Description, ComponentOptions.ComponentOptions {
  readonly input: I
  readonly output?: O
  readonly onFailure?: FailureRenderer<E>
}

/** Options of a tool whose input is a raw JSON Schema (validated by `SchemaValidator`). @since 0.1.0 */
export interface RawOptions<E> extends Description, ComponentOptions.ComponentOptions {
  readonly inputSchema: JsonSchemaDocument
  readonly outputSchema?: JsonSchemaDocument
  readonly onFailure?: FailureRenderer<E>
}

type Output<O> = O extends Schema.Top ? O["Type"] | ToolResult | InputRequired : unknown

/**
 * Defines a tool.
 *
 * With `input` (an Effect Schema) the handler receives the decoded value; with `output` the
 * handler returns a value of that schema, which becomes `structuredContent` plus a JSON text
 * block. Without `output` it may return a `ToolResult`, a string (a text block), an object
 * (`structuredContent` plus JSON text), or any other JSON value (a JSON text block).
 *
 * A typed failure becomes what `onFailure` says; without it, a protocol error (`McpError`) is
 * written as such and any other failure becomes an `isError` result naming only the error's tag.
 *
 * @since 0.1.0
 */
export function make<const I extends Schema.Top, const O extends Schema.Top | undefined = undefined, E = never, R = never>(
  name: string,
  options: TypedOptions<I, O, E>,
  handler: (input: I["Type"]) => Effect.Effect<Output<O>, E, R>
): Tool<R | I["DecodingServices"]>
export function make<E = never, R = never>(
  name: string,
  options: RawOptions<E>,
  handler: (input: Readonly<Record<string, unknown>>) => Effect.Effect<unknown, E, R>
): Tool<R>
export function make(
  name: string,
  options: TypedOptions<Schema.Top, Schema.Top | undefined, unknown> | RawOptions<unknown>,
  handler: (input: never) => Effect.Effect<unknown, unknown, unknown>
): Tool<unknown> {
  const { description, title, annotations, icons, _meta } = options
  const info: Description = {
    ...(description === undefined ? {} : { description }),
    ...(title === undefined ? {} : { title }),
    ...(annotations === undefined ? {} : { annotations }),
    ...(icons === undefined ? {} : { icons }),
    ...(_meta === undefined ? {} : { _meta })
  }
  const typed = "input" in options
  const output: SchemaSource | undefined = typed
    ? options.output === undefined ? undefined : { _tag: "Effect", schema: options.output }
    : options.outputSchema === undefined
    ? undefined
    : { _tag: "Json", schema: options.outputSchema }
  return {
    [TypeId]: TypeId,
    name,
    description: info,
    input: typed ? { _tag: "Effect", schema: options.input } : { _tag: "Json", schema: options.inputSchema },
    output,
    renderFailure: options.onFailure,
    handler: handler as (input: unknown) => Effect.Effect<unknown, unknown, unknown>,
    limits: ComponentOptions.split(options).limits
  }
}
