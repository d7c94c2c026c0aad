/**
 * An explicit `tools/call` result, for handlers that return content rather than a value.
 *
 * A handler may return a plain value (it becomes `structuredContent` plus a JSON text block when it
 * is an object, a text block when it is a string) or a `ToolResult` built here, which is written
 * as given.
 *
 * @example
 * ```ts
 * import * as Content from "@snodo/core/Content"
 * import * as ToolResult from "@snodo/core/ToolResult"
 *
 * const result = ToolResult.content([Content.text("done")])
 * const failure = ToolResult.error("The city is unknown")
 * ```
 *
 * @since 0.1.0
 */
import type * as Content from "./Content.ts"

const TypeId: unique symbol = Symbol.for("@snodo/core/ToolResult")

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolResult {
  readonly [TypeId]: typeof TypeId
  readonly content: ReadonlyArray<Content.Block>
  readonly structuredContent?: Readonly<Record<string, unknown>>
  readonly isError?: boolean
  readonly _meta?: Readonly<Record<string, unknown>>
}

/**
 * Whether a handler's return value is an explicit result.
 *
 * @category guards
 * @since 0.1.0
 */
export const isToolResult = (u: unknown): u is ToolResult =>
  typeof u === "object" && u !== null && TypeId in u

/**
 * A result made of content blocks.
 *
 * @category combinators
 * @since 0.1.0
 */
export const content = (
  blocks: ReadonlyArray<Content.Block>,
  options?: { readonly structuredContent?: Readonly<Record<string, unknown>>; readonly _meta?: Readonly<Record<string, unknown>> }
): ToolResult => ({ [TypeId]: TypeId, content: blocks, ...options })

/**
 * A tool execution error (`isError: true`) the model can read and correct.
 *
 * @category combinators
 * @since 0.1.0
 */
export const error = (message: string): ToolResult => ({
  [TypeId]: TypeId,
  content: [{ type: "text", text: message }],
  isError: true
})

/**
 * The wire form.
 *
 * @category combinators
 * @since 0.1.0
 */
export const toWire = (result: ToolResult): Record<string, unknown> => {
  const wire: Record<string, unknown> = { content: result.content }
  if (result.structuredContent !== undefined) wire["structuredContent"] = result.structuredContent
  if (result.isError === true) wire["isError"] = true
  if (result._meta !== undefined) wire["_meta"] = result._meta
  return wire
}
