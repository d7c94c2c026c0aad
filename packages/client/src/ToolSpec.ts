/**
 * A tool's typed contract on the client side: its name and the Schemas of its input, output and
 * (optionally) declared failure. `McpClient`'s `call` encodes the input with it, decodes
 * `structuredContent` to the output type and fails with the declared failure.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ToolSpec } from "@snodo/client"
 *
 * const Add = ToolSpec.make("add", {
 *   input: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
 *   output: Schema.Struct({ sum: Schema.Number })
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * A tool's typed contract on the client side: its name and the Schemas of its input, output and
 * (optionally) declared failure, e.g. shared with the server's `Tool.make`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolSpec<I extends Schema.Top, O extends Schema.Top, F extends Schema.Top = never> {
  readonly name: string
  readonly input: I
  readonly output: O
  readonly failure?: F
}

/**
 * A {@link ToolSpec}.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ToolSpec } from "@snodo/client"
 *
 * const add = ToolSpec.make("add", {
 *   input: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
 *   output: Schema.Struct({ sum: Schema.Number })
 * })
 * // yield* client.call(add, { a: 1, b: 2 }) → { sum: 3 }
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <I extends Schema.Top, O extends Schema.Top, F extends Schema.Top = never>(
  name: string,
  schemas: { readonly input: I; readonly output: O; readonly failure?: F }
): ToolSpec<I, O, F> => ({ name, ...schemas })

/**
 * What {@link specOf} reads of a tool definition: the shape of a snodo `Tool` (`@snodo/core`'s
 * `Tool.make`), described here so that the client does not depend on the server.
 *
 * @category models
 * @since 0.1.0
 */
export interface Definition {
  readonly name: string
  readonly input: { readonly _tag: string; readonly schema?: Schema.Top }
  readonly output?: { readonly _tag: string; readonly schema?: Schema.Top } | undefined
  readonly failure?: Schema.Top | undefined
}

/**
 * The {@link ToolSpec} of a snodo `Tool` defined with Effect Schemas (`input`, `output`,
 * `failure`); its types are the catalog's (unknown), the checks at run time are the tool's own.
 *
 * @category constructors
 * @since 0.1.0
 */
export const specOf = (definition: Definition): ToolSpec<Schema.Top, Schema.Top, Schema.Top> => {
  const input = definition.input._tag === "Effect" ? definition.input.schema ?? Schema.Unknown : Schema.Unknown
  const output = definition.output?._tag === "Effect" ? definition.output.schema ?? Schema.Unknown : Schema.Unknown
  return definition.failure === undefined ? { name: definition.name, input, output } : { name: definition.name, input, output, failure: definition.failure }
}

/**
 * Schemas whose codecs need no services.
 *
 * @category models
 * @since 0.1.0
 */
export type Pure = Schema.Top & { readonly DecodingServices: never; readonly EncodingServices: never }

