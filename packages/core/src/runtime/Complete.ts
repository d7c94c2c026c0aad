/**
 * `completion/complete` for prompt arguments and resource template variables.
 *
 * An unknown prompt or template is -32602; an argument without a provider completes to nothing.
 * Answers are capped at 100 values with `total` and `hasMore`.
 *
 * @since 0.1.0
 */
import { Effect, Predicate } from "effect"
import type { Catalog } from "../catalog/Catalog.ts"
import * as Completion from "../catalog/Completion.ts"
import type * as Prompt from "../catalog/Prompt.ts"
import type * as ResourceTemplate from "../catalog/ResourceTemplate.ts"
import { InvalidParams, type McpError } from "../pipeline/McpError.ts"


const invalid = (message: string) => new InvalidParams({ message: `Invalid params: ${message}` })

/** Whether any component of the catalog offers completions. @since 0.1.0 */
export const hasProviders = (catalog: Catalog): boolean =>
  [...catalog.prompts.values()].some((prompt) => Object.keys(prompt.complete).length > 0) ||
  catalog.templates.some((template) => Object.keys(template.template.complete).length > 0)

/** The component a completion refers to. @since 0.1.0 */
export type Target =
  | { readonly _tag: "Prompt"; readonly prompt: Prompt.Prompt<unknown> }
  | { readonly _tag: "Template"; readonly template: ResourceTemplate.ResourceTemplate<unknown>; readonly uriTemplate: string }

/** A parsed `completion/complete`. @since 0.1.0 */
export interface Resolved {
  readonly target: Target
  readonly argument: { readonly name: string; readonly value: string }
  readonly arguments: Readonly<Record<string, string>>
}

const targetOf = (catalog: Catalog, ref: Record<string, unknown>): Target | InvalidParams => {
  if (ref["type"] === "ref/prompt") {
    const name = ref["name"]
    const prompt = typeof name === "string" ? catalog.prompts.get(name) : undefined
    return prompt === undefined ? unknownRef(ref) : { _tag: "Prompt", prompt }
  }
  if (ref["type"] === "ref/resource") {
    const uri = ref["uri"]
    const template = catalog.templates.find((candidate) => candidate.parsed.source === uri)
    return template === undefined ? unknownRef(ref) : { _tag: "Template", template: template.template, uriTemplate: template.parsed.source }
  }
  return new InvalidParams({ message: "Invalid params: ref.type must be \"ref/prompt\" or \"ref/resource\"" })
}

/** The error for a reference to nothing (also used when authorization conceals). @since 0.1.0 */
export const unknownRef = (ref: Readonly<Record<string, unknown>>) =>
  ref["type"] === "ref/prompt"
    ? new InvalidParams({ message: `Unknown prompt: ${String(ref["name"])}` })
    : new InvalidParams({ message: `Unknown resource template: ${String(ref["uri"])}` })

/** Parses the params and resolves the referenced component. @since 0.1.0 */
export const resolve = (catalog: Catalog, params: Readonly<Record<string, unknown>>): Resolved | InvalidParams => {
  const ref = params["ref"]
  const argument = params["argument"]
  if (!Predicate.isObject(ref)) return invalid("ref must be an object")
  if (!Predicate.isObject(argument) || typeof argument["name"] !== "string" || typeof argument["value"] !== "string") {
    return invalid("argument needs string name and value")
  }
  const context = params["context"]
  const resolved: Record<string, string> = {}
  if (context !== undefined) {
    if (!Predicate.isObject(context)) return invalid("context must be an object")
    const given = context["arguments"]
    if (given !== undefined) {
      if (!Predicate.isObject(given)) return invalid("context.arguments must be an object")
      for (const [key, value] of Object.entries(given)) {
        if (typeof value !== "string") return invalid(`context.arguments.${key} must be a string`)
        resolved[key] = value
      }
    }
  }
  const target = targetOf(catalog, ref)
  if (target instanceof InvalidParams) return target
  return { target, argument: { name: argument["name"], value: argument["value"] }, arguments: resolved }
}

/** Runs the provider of a resolved completion. @since 0.1.0 */
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
