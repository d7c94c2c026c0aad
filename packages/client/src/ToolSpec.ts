/**
 * A tool's typed contract on the client side: its name and the Schemas of its input and,
 * optionally, its output and declared failure. `McpClient`'s `call` encodes the input with it,
 * decodes `structuredContent` to the output type (a spec without `output` gives the whole
 * `CallToolResult`, for a tool that declares no output schema) and fails with the declared
 * failure, read from `structuredContent` or, as the official, Python and effect/ai servers send
 * it, from the text content.
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
import { Effect, Option, Schema } from "effect"
import type * as Tools from "@snodo/protocol/wire/Tools"

/**
 * A tool's typed contract on the client side: its name and the Schemas of its input and,
 * optionally, its output and declared failure, e.g. shared with the server's `Tool.make`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolSpec<I extends Schema.Top, O extends Schema.Top = never, F extends Schema.Top = never> {
  readonly name: string
  readonly input: I
  /** The Schema of `structuredContent`; absent for a tool that declares no output schema. */
  readonly output?: O
  readonly failure?: F
}

/**
 * What `call` succeeds with: the output type, or the whole `CallToolResult` for a spec without
 * an output schema.
 *
 * @category models
 * @since 0.1.0
 */
export type Output<O extends Schema.Top> = [O] extends [never] ? Tools.CallToolResult : O["Type"]

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
 *
 * const echo = ToolSpec.make("echo", { input: Schema.Struct({ text: Schema.String }) })
 * // yield* client.call(echo, { text: "hi" }) → the CallToolResult
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <I extends Schema.Top, O extends Schema.Top = never, F extends Schema.Top = never>(
  name: string,
  schemas: { readonly input: I; readonly output?: O; readonly failure?: F }
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

/**
 * The text blocks of a result, joined with newlines (what a server said in words).
 *
 * @category utils
 * @since 0.1.0
 */
export const textOf = (result: Tools.CallToolResult): string =>
  result.content.flatMap((block) => block.type === "text" && typeof block.text === "string" ? [block.text] : []).join("\n")

const parsed = (text: string): Option.Option<unknown> => {
  try {
    return Option.some(JSON.parse(text))
  } catch {
    return Option.none()
  }
}

/**
 * A declared failure read from an `isError` result: its `structuredContent`, else its text as
 * JSON (effect/ai's McpServer), else the text itself (the official and Python servers); `None`
 * when none of them decodes.
 *
 * @category utils
 * @since 0.1.0
 */
export const decodeFailure = <F extends Pure>(failure: F, result: Tools.CallToolResult): Effect.Effect<Option.Option<F["Type"]>> => {
  const text = textOf(result)
  const candidates: ReadonlyArray<Option.Option<unknown>> = [
    result.structuredContent === undefined ? Option.none() : Option.some(result.structuredContent),
    text === "" ? Option.none() : parsed(text),
    text === "" ? Option.none() : Option.some(text)
  ]
  const decode = Schema.decodeUnknownEffect(failure)
  return Effect.reduce(candidates, () => Option.none<F["Type"]>(), (found, candidate) =>
    Option.isSome(found) || Option.isNone(candidate)
      ? Effect.succeed(found)
      : Effect.option(decode(candidate.value)))
}
