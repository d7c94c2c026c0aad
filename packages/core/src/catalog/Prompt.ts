/**
 * Prompt definitions: named message templates with string arguments.
 *
 * Required arguments are checked before the handler renders (missing → -32602).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Prompt from "@snodo/core/catalog/Prompt"
 *
 * const greet = Prompt.make("greet", {
 *   description: "Greets someone",
 *   arguments: { name: { description: "Who to greet", required: true } }
 * }, ({ name }) => Effect.succeed([Prompt.user(`Say hello to ${name}`)]))
 * ```
 *
 * @since 0.1.0
 */
import type { Effect } from "effect"
import type { InputRequired } from "../mrtr/InputRequired.ts"
import * as ComponentOptions from "./ComponentOptions.ts"
import type * as Completion from "./Completion.ts"
import * as Content from "./Content.ts"
import type { Icon } from "./Tool.ts"

const TypeId: unique symbol = Symbol.for("@snodo/core/Prompt")

/** One declared argument. @since 0.1.0 */
export interface Argument {
  readonly description?: string
  readonly title?: string
  readonly required?: boolean
}

/** A message of a rendered prompt. @since 0.1.0 */
export interface Message {
  readonly role: "user" | "assistant"
  readonly content: Content.Block
}

/** What a prompt handler returns: messages, or messages with a description. @since 0.1.0 */
export type Rendered =
  | ReadonlyArray<Message>
  | { readonly description?: string; readonly messages: ReadonlyArray<Message>; readonly _meta?: Readonly<Record<string, unknown>> }

/** Arguments the handler receives: required ones are present, optional ones may be absent. @since 0.1.0 */
export type ArgumentValues<A extends Readonly<Record<string, Argument>>> =
  & { readonly [K in keyof A as A[K]["required"] extends true ? K : never]: string }
  & { readonly [K in keyof A as A[K]["required"] extends true ? never : K]?: string }

/** Descriptive fields. @since 0.1.0 */
export interface Description {
  readonly title?: string
  readonly description?: string
  readonly icons?: ReadonlyArray<Icon>
  readonly _meta?: Readonly<Record<string, unknown>>
}

/** A defined prompt. @since 0.1.0 */
export interface Prompt<out R = never> {
  readonly [TypeId]: typeof TypeId
  readonly name: string
  readonly description: Description
  readonly arguments: ReadonlyArray<{ readonly name: string } & Argument>
  readonly complete: Completion.Providers<R>
  readonly render: (args: Readonly<Record<string, string>>) => Effect.Effect<Rendered, unknown, R>
  /** Its bulkhead, timeout and rate limit (see `ComponentOptions`). */
  readonly limits: ComponentOptions.Limits
}

/** Whether a value is a prompt. @since 0.1.0 */
export const isPrompt = (u: unknown): u is Prompt<unknown> => typeof u === "object" && u !== null && TypeId in u

/** @since 0.1.0 */
export const make = <const A extends Readonly<Record<string, Argument>> = {}, E = never, R = never, RC = never>(
  name: string,
  options: Description & { readonly arguments?: A; readonly complete?: Completion.Providers<RC> } & ComponentOptions.ComponentOptions,
  render: (args: ArgumentValues<A>) => Effect.Effect<Rendered | InputRequired, E, R>
): Prompt<R | RC> => {
  const { limits, rest: { arguments: declared, complete, ...description } } = ComponentOptions.split(options)
  return {
    [TypeId]: TypeId,
    name,
    description,
    arguments: Object.entries(declared ?? {}).map(([argName, argument]) => ({ name: argName, ...argument })),
    complete: complete ?? {},
    render: render as Prompt<R>["render"],
    limits
  }
}

/** A user message with text (or any content block). @since 0.1.0 */
export const user = (content: string | Content.Block): Message => ({
  role: "user",
  content: typeof content === "string" ? Content.text(content) : content
})

/** An assistant message with text (or any content block). @since 0.1.0 */
export const assistant = (content: string | Content.Block): Message => ({
  role: "assistant",
  content: typeof content === "string" ? Content.text(content) : content
})
