/**
 * `prompts/get`: unknown prompt → -32602; arguments must be strings; required arguments are
 * checked before the prompt renders.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { Catalog } from "../catalog/Catalog.ts"
import type * as Prompt from "../catalog/Prompt.ts"
import { InvalidParams, isMcpError, type McpError } from "../pipeline/McpError.ts"

/** The error for an unknown prompt (also used when authorization conceals). @since 0.1.0 */
export const unknownPrompt = (name: string) => new InvalidParams({ message: `Unknown prompt: ${name}` })

/** Resolves the prompt a `prompts/get` names. @since 0.1.0 */
export const resolve = (catalog: Catalog, params: Readonly<Record<string, unknown>>): Prompt.Prompt<unknown> | InvalidParams => {
  const name = params["name"]
  if (typeof name !== "string") return new InvalidParams({ message: "Invalid params: name must be a string" })
  return catalog.prompts.get(name) ?? unknownPrompt(name)
}

/** Renders a resolved prompt. @since 0.1.0 */
export const run = (
  prompt: Prompt.Prompt<unknown>,
  params: Readonly<Record<string, unknown>>,
  provide: <A, E>(effect: Effect.Effect<A, E, unknown>) => Effect.Effect<A, E>
): Effect.Effect<Record<string, unknown>, McpError> => {
  const args = params["arguments"] ?? {}
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return Effect.fail(new InvalidParams({ message: "Invalid params: arguments must be an object" }))
  }
  const values: Record<string, string> = {}
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== "string") {
      return Effect.fail(new InvalidParams({ message: `Invalid params: argument "${key}" must be a string` }))
    }
    values[key] = value
  }
  const missing = prompt.arguments.filter((argument) => argument.required === true && values[argument.name] === undefined)
  if (missing.length > 0) {
    return Effect.fail(new InvalidParams({
      message: `Missing required argument${missing.length > 1 ? "s" : ""}: ${missing.map((argument) => argument.name).join(", ")}`
    }))
  }
  return provide(prompt.render(values)).pipe(
    Effect.catch((error) => isMcpError(error) ? Effect.fail(error) : Effect.die(error)),
    Effect.map((rendered) => {
      if (Array.isArray(rendered)) {
        return prompt.description.description === undefined
          ? { messages: rendered }
          : { description: prompt.description.description, messages: rendered }
      }
      return { ...rendered }
    })
  )
}
