/**
 * `prompts/get`: unknown prompt → -32602; arguments must be strings; they are checked (required
 * ones present, and for a prompt whose arguments are a Schema, decoded) before the prompt renders:
 * a refusal is -32602 naming the argument.
 *
 * The route may answer `input_required`, runs in the executor, and is checked by the
 * authorization policy as the prompt it names (`Mcp-Name` over HTTP).
 *
 * @since 0.1.0
 */
import * as Methods from "@snodo/protocol/methods/Methods"
import { Effect, Result } from "effect"
import type { Catalog } from "../catalog/Catalog.ts"
import type * as Prompt from "../catalog/Prompt.ts"
import { InvalidParams, isMcpError, type McpError } from "@snodo/protocol/jsonrpc/McpError"
import * as Authorization from "../runtime/Authorization.ts"
import { GetPromptRequestParams } from "@snodo/protocol/wire/Prompts"
import * as Route from "./Route.ts"

/**
 * The error for an unknown prompt (also used when authorization conceals).
 *
 * @category combinators
 * @since 0.1.0
 */
export const unknownPrompt = (name: string) => new InvalidParams({ message: `Unknown prompt: ${name}` })

/**
 * Resolves the prompt a `prompts/get` names.
 *
 * @category combinators
 * @since 0.1.0
 */
export const resolve = (catalog: Catalog, params: { readonly name: string }): Prompt.Prompt<unknown> | InvalidParams =>
  catalog.prompts.get(params.name) ?? unknownPrompt(params.name)

/**
 * Renders a resolved prompt.
 *
 * @category combinators
 * @since 0.1.0
 */
export const run = (
  prompt: Prompt.Prompt<unknown>,
  values: Readonly<Record<string, string>>,
  provide: <A, E>(effect: Effect.Effect<A, E, unknown>) => Effect.Effect<A, E>
): Effect.Effect<Record<string, unknown>, McpError> => {
  const decoded = prompt.decode(values)
  if (Result.isFailure(decoded)) return Effect.fail(new InvalidParams({ message: decoded.failure }))
  return provide(prompt.render(decoded.success)).pipe(
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

/**
 * `prompts/get`.
 *
 * @category constants
 * @since 0.1.0
 */
export const route: Route.Route<typeof GetPromptRequestParams.schema.Type, Prompt.Prompt<unknown>> = Route.make({
  method: Methods.PromptsGet,
  params: GetPromptRequestParams.schema,
  bounded: true,
  resolve: (params, environment) => resolve(environment.catalog, params),
  guard: (prompt) => ({ component: Authorization.promptComponent(prompt), notFound: () => unknownPrompt(prompt.name) }),
  run: (call, prompt) => Effect.map(run(prompt, call.params.arguments ?? {}, call.provide), Route.result)
})
