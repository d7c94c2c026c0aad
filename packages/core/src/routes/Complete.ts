/**
 * `completion/complete` for prompt arguments and resource template variables.
 *
 * An unknown prompt or template is -32602; an argument without a provider completes to nothing.
 * Answers are capped at 100 values with `total` and `hasMore`. The route runs in the executor and
 * is checked by the authorization policy as the prompt or template it refers to.
 *
 * @since 0.1.0
 */
import * as Methods from "@snodo/protocol/methods/Methods"
import { Effect } from "effect"
import type { Catalog } from "../catalog/Catalog.ts"
import * as Completion from "../catalog/Completion.ts"
import type * as Prompt from "../catalog/Prompt.ts"
import type * as ResourceTemplate from "../catalog/ResourceTemplate.ts"
import { InvalidParams, type McpError } from "@snodo/protocol/jsonrpc/McpError"
import * as Authorization from "../runtime/Authorization.ts"
import { CompleteRequestParams } from "@snodo/protocol/wire/Completion"
import * as Route from "./Route.ts"

type Params = typeof CompleteRequestParams.schema.Type

/**
 * Whether any component of the catalog offers completions.
 *
 * @category combinators
 * @since 0.1.0
 */
export const hasProviders = (catalog: Catalog): boolean =>
  [...catalog.prompts.values()].some((prompt) => Object.keys(prompt.complete).length > 0) ||
  catalog.templates.some((template) => Object.keys(template.template.complete).length > 0)

/**
 * The component a completion refers to.
 *
 * @category models
 * @since 0.1.0
 */
export type Target =
  | { readonly _tag: "Prompt"; readonly prompt: Prompt.Prompt<unknown> }
  | { readonly _tag: "Template"; readonly template: ResourceTemplate.ResourceTemplate<unknown>; readonly uriTemplate: string }

/**
 * A parsed `completion/complete`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Resolved {
  readonly target: Target
  readonly argument: { readonly name: string; readonly value: string }
  readonly arguments: Readonly<Record<string, string>>
}

const targetOf = (catalog: Catalog, ref: Params["ref"]): Target | InvalidParams => {
  if (ref.type === "ref/prompt") {
    const prompt = catalog.prompts.get(ref.name)
    return prompt === undefined ? unknownRef(ref) : { _tag: "Prompt", prompt }
  }
  const template = catalog.templates.find((candidate) => candidate.parsed.source === ref.uri)
  return template === undefined ? unknownRef(ref) : { _tag: "Template", template: template.template, uriTemplate: template.parsed.source }
}

/**
 * The error for a reference to nothing (also used when authorization conceals).
 *
 * @category combinators
 * @since 0.1.0
 */
export const unknownRef = (ref: Readonly<Record<string, unknown>>) =>
  ref["type"] === "ref/prompt"
    ? new InvalidParams({ message: `Unknown prompt: ${String(ref["name"])}` })
    : new InvalidParams({ message: `Unknown resource template: ${String(ref["uri"])}` })

/**
 * Resolves the referenced component.
 *
 * @category combinators
 * @since 0.1.0
 */
export const resolve = (catalog: Catalog, params: Params): Resolved | InvalidParams => {
  const target = targetOf(catalog, params.ref)
  if (target instanceof InvalidParams) return target
  return { target, argument: params.argument, arguments: params.context?.arguments ?? {} }
}

/**
 * Runs the provider of a resolved completion.
 *
 * @category combinators
 * @since 0.1.0
 */
export const run = (
  resolved: Resolved,
  provide: <A, E>(effect: Effect.Effect<A, E, unknown>) => Effect.Effect<A, E>
): Effect.Effect<Record<string, unknown>, McpError> => {
  const providers = resolved.target._tag === "Prompt" ? resolved.target.prompt.complete : resolved.target.template.complete
  const provider = providers[resolved.argument.name]
  if (provider === undefined) return Effect.succeed({ completion: Completion.toWire([]) })
  return provide(provider({ value: resolved.argument.value, arguments: resolved.arguments })).pipe(
    Effect.map((values) => ({ completion: Completion.toWire(values) }))
  )
}

/**
 * `completion/complete`.
 *
 * @category constants
 * @since 0.1.0
 */
export const route: Route.Route<Params, Resolved> = Route.make({
  method: Methods.CompletionComplete,
  params: CompleteRequestParams.schema,
  bounded: true,
  resolve: (params, environment) => resolve(environment.catalog, params),
  guard: ({ target }) => ({
    component: target._tag === "Prompt" ? Authorization.promptComponent(target.prompt) : Authorization.templateComponent(target.template),
    notFound: () =>
      unknownRef(target._tag === "Prompt" ? { type: "ref/prompt", name: target.prompt.name } : { type: "ref/resource", uri: target.uriTemplate })
  }),
  run: (call, resolved) => Effect.map(run(resolved, call.provide), Route.result)
})
