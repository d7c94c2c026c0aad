/**
 * Typed tool definitions.
 *
 * A tool is a value: a name, its wire description, an input (an Effect Schema, whose JSON Schema
 * 2020-12 is derived for `tools/list`, or a raw JSON Schema checked by the `SchemaValidator`
 * service), an optional output, an optional `failure` schema, and a handler Effect. The handler
 * runs in its own fiber with the request services (`McpRequest`, `Progress`, `McpLog`) in context.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import * as Tool from "@snodo/core/Tool"
 *
 * class DivisionByZero extends Schema.TaggedError<DivisionByZero>()("DivisionByZero", { dividend: Schema.Finite }) {}
 *
 * const divide = Tool.make("divide", {
 *   description: "Divide two numbers",
 *   input: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
 *   output: Schema.Struct({ quotient: Schema.Finite }),
 *   failure: DivisionByZero // an isError result with { _tag: "DivisionByZero", dividend } as structuredContent
 * }, ({ a, b }) => b === 0 ? Effect.fail(new DivisionByZero({ dividend: a })) : Effect.succeed({ quotient: a / b }))
 * ```
 *
 * @since 0.1.0
 */
import type { Effect, Schema } from "effect"
import type { InputRequired } from "../mrtr/InputRequired.ts"
import * as ComponentOptions from "./ComponentOptions.ts"
import type { McpError } from "@snodo/protocol/jsonrpc/McpError"
import type { JsonSchemaDocument } from "./SchemaValidator.ts"
import type { Icon as WireIcon } from "@snodo/protocol/wire/Meta"
import type { ToolAnnotations } from "@snodo/protocol/wire/Tools"
import type { ToolResult } from "./ToolResult.ts"

const TypeId: unique symbol = Symbol.for("@snodo/core/Tool")

/**
 * Hints about a tool's behaviour (untrusted by clients): the wire's `ToolAnnotations`.
 *
 * @category models
 * @since 0.1.0
 */
export type Annotations = ToolAnnotations

/**
 * An icon a client may show: the wire's `Icon`.
 *
 * @category models
 * @since 0.1.0
 */
export type Icon = WireIcon

/**
 * Descriptive fields shared by both input forms.
 *
 * @category models
 * @since 0.1.0
 */
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
 * @category models
 * @since 0.1.0
 */
export type FailureRenderer<E> = (error: E) => ToolResult | McpError

/**
 * A `failure` schema: any Effect Schema (typically a `Schema.TaggedError` class, or a union of
 * them) that encodes to JSON without services.
 *
 * @category models
 * @since 0.1.0
 */
export type FailureSchema = Schema.Top & { readonly EncodingServices: never }

/**
 * What `onFailure` receives: the failures the `failure` schema declares, or, without one, every
 * typed failure of the handler (annotate the parameter to say which).
 *
 * @category models
 * @since 0.1.0
 */
export type Declared<F> = [F] extends [Schema.Top] ? F["Type"] : unknown

/**
 * Without a `failure` schema, `onFailure` receives every typed failure: its parameter must accept
 * all of the handler's (a type error here names those it does not).
 */
type Covered<F, EF, E> = [F] extends [Schema.Top] ? unknown
  : [E] extends [EF] ? unknown
  : { readonly "onFailure does not accept these failures of the handler": Exclude<E, EF> }

/**
 * Where a tool's input and output schemas come from.
 *
 * @category models
 * @since 0.1.0
 */
export type SchemaSource =
  | { readonly _tag: "Effect"; readonly schema: Schema.Top }
  | { readonly _tag: "Json"; readonly schema: JsonSchemaDocument }

/**
 * A defined tool.
 *
 * @category models
 * @since 0.1.0
 */
export interface Tool<out R = never> {
  readonly [TypeId]: typeof TypeId
  readonly name: string
  readonly description: Description
  readonly input: SchemaSource
  readonly output: SchemaSource | undefined
  /** The declared failures: encoded into `isError` results (unless `renderFailure` renders them). */
  readonly failure: FailureSchema | undefined
  readonly renderFailure: FailureRenderer<unknown> | undefined
  /** The handler, taking decoded input. Its result is shaped by the runtime. */
  readonly handler: (input: unknown) => Effect.Effect<unknown, unknown, R>
  /** Its bulkhead, timeout and rate limit (see `ComponentOptions`). */
  readonly limits: ComponentOptions.Limits
}

/**
 * Any tool, whatever it requires.
 *
 * @category models
 * @since 0.1.0
 */
export type Any = Tool<unknown>

/**
 * The services a tool's handler requires.
 *
 * @category models
 * @since 0.1.0
 */
export type Services<T> = T extends Tool<infer R> ? R : never

/**
 * Whether a value is a tool.
 *
 * @category guards
 * @since 0.1.0
 */
export const isTool = (u: unknown): u is Tool<unknown> => typeof u === "object" && u !== null && TypeId in u

/**
 * Where a tool's input and output schemas come from: Effect Schemas (`input`, `output`), or raw
 * JSON Schemas validated by `SchemaValidator` (`inputSchema`, `outputSchema`), never both.
 *
 * @category models
 * @since 0.1.0
 */
export type Schemas<I, O> =
  | { readonly input: I; readonly output?: O; readonly inputSchema?: never; readonly outputSchema?: never }
  | {
    readonly inputSchema: JsonSchemaDocument
    readonly outputSchema?: JsonSchemaDocument
    readonly input?: never
    readonly output?: never
  }

/**
 * How a tool's typed failures reach the client.
 *
 * @category models
 * @since 0.1.0
 */
export interface FailureOptions<F, EF> {
  /** Failures written as `isError` results with the encoded error as `structuredContent`. */
  readonly failure?: F
  /** Renders a declared failure (every typed failure without `failure`) as a result or a protocol error. */
  readonly onFailure?: FailureRenderer<EF>
}

/**
 * The options of {@link make}.
 *
 * @category models
 * @since 0.1.0
 */
export type Options<I, O, F, EF> = Description & Schemas<I, O> & FailureOptions<F, EF> & ComponentOptions.ComponentOptions

type Input<I> = I extends Schema.Top ? I["Type"] : Readonly<Record<string, unknown>>
type InputServices<I> = I extends Schema.Top ? I["DecodingServices"] : never

type Output<O> = O extends Schema.Top ? O["Type"] | ToolResult | InputRequired : unknown

/**
 * Defines a tool.
 *
 * Schemas are Effect Schemas (`input`, `output`) or raw JSON Schemas (`inputSchema`,
 * `outputSchema`, validated by `SchemaValidator`), not a mix of both. With `input` the handler
 * receives the decoded value (with `inputSchema`, the arguments object); with `output` the
 * handler returns a value of that schema, which becomes `structuredContent` plus a JSON text
 * block. Without `output` it may return a `ToolResult`, a string (a text block), an object
 * (`structuredContent` plus JSON text), or any other JSON value (a JSON text block).
 *
 * Typed failures:
 * - a failure the `failure` schema declares becomes an `isError` result carrying the encoded error
 *   (as `structuredContent` plus a JSON text block when it encodes to an object, a text block when
 *   to a string), unless `onFailure` renders it; `onFailure`'s parameter is typed by the schema;
 * - without a `failure` schema, `onFailure` (if any) renders every typed failure; annotate its
 *   parameter, and the handler may fail only with what it accepts;
 * - anything else keeps the defaults: a protocol error (`McpError`) is written as such, any other
 *   failure becomes an `isError` result naming only the error's tag.
 *
 * TypeScript checks `options` before the handler, so `onFailure` cannot learn its type from the
 * handler's error channel: the `failure` schema (or an annotation) is where it comes from.
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import * as Tool from "@snodo/core/Tool"
 * import * as ToolResult from "@snodo/core/ToolResult"
 *
 * class CityNotFound extends Schema.TaggedError<CityNotFound>()("CityNotFound", { city: Schema.String }) {}
 *
 * const weather = Tool.make("weather", {
 *   input: Schema.Struct({ city: Schema.String }),
 *   failure: CityNotFound,
 *   onFailure: (e) => ToolResult.error(`No weather for ${e.city}`) // e: CityNotFound
 * }, ({ city }) => city === "Atlantis" ? Effect.fail(new CityNotFound({ city })) : Effect.succeed(`Sunny in ${city}`))
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <
  const I extends Schema.Top | undefined = undefined,
  const O extends Schema.Top | undefined = undefined,
  const F extends FailureSchema | undefined = undefined,
  EF = Declared<F>,
  E = never,
  R = never
>(
  name: string,
  options: Options<I, O, F, EF> & Covered<F, EF, E>,
  handler: (input: Input<I>) => Effect.Effect<Output<O>, E, R>
): Tool<R | InputServices<I>> => {
  const { description, title, annotations, icons, _meta } = options
  const info: Description = {
    ...(description === undefined ? {} : { description }),
    ...(title === undefined ? {} : { title }),
    ...(annotations === undefined ? {} : { annotations }),
    ...(icons === undefined ? {} : { icons }),
    ...(_meta === undefined ? {} : { _meta })
  }
  // Without either input (a JavaScript caller), `false` makes the catalog refuse the tool.
  const input: SchemaSource = options.input !== undefined
    ? { _tag: "Effect", schema: options.input }
    : { _tag: "Json", schema: options.inputSchema ?? false }
  const output: SchemaSource | undefined = options.output !== undefined
    ? { _tag: "Effect", schema: options.output }
    : options.outputSchema !== undefined
    ? { _tag: "Json", schema: options.outputSchema }
    : undefined
  return {
    [TypeId]: TypeId,
    name,
    description: info,
    input,
    output,
    failure: options.failure,
    renderFailure: options.onFailure as FailureRenderer<unknown> | undefined,
    handler: handler as (input: unknown) => Effect.Effect<unknown, unknown, R>,
    limits: ComponentOptions.split(options).limits
  }
}
