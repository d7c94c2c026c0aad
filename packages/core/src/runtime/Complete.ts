/**
 * `completion/complete` for prompt arguments and resource template variables.
 *
 * An unknown prompt or template is -32602; an argument without a provider completes to nothing.
 * Answers are capped at 100 values with `total` and `hasMore`.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { Catalog } from "../catalog/Catalog.ts"
import * as Completion from "../catalog/Completion.ts"
import { InvalidParams, type McpError } from "../pipeline/McpError.ts"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const invalid = (message: string) => Effect.fail(new InvalidParams({ message: `Invalid params: ${message}` }))

/** Whether any component of the catalog offers completions. @since 0.1.0 */
export const hasProviders = (catalog: Catalog): boolean =>
  [...catalog.prompts.values()].some((prompt) => Object.keys(prompt.complete).length > 0) ||
  catalog.templates.some((template) => Object.keys(template.template.complete).length > 0)

const providersOf = (catalog: Catalog, ref: Record<string, unknown>): Completion.Providers<unknown> | InvalidParams => {
  if (ref["type"] === "ref/prompt") {
    const name = ref["name"]
    const prompt = typeof name === "string" ? catalog.prompts.get(name) : undefined
    return prompt === undefined ? new InvalidParams({ message: `Unknown prompt: ${String(name)}` }) : prompt.complete
  }
  if (ref["type"] === "ref/resource") {
    const uri = ref["uri"]
    const template = catalog.templates.find((candidate) => candidate.parsed.source === uri)
    return template === undefined
      ? new InvalidParams({ message: `Unknown resource template: ${String(uri)}` })
      : template.template.complete
  }
  return new InvalidParams({ message: "Invalid params: ref.type must be \"ref/prompt\" or \"ref/resource\"" })
}

/** @since 0.1.0 */
export const run = (
  catalog: Catalog,
  params: Readonly<Record<string, unknown>>,
  provide: <A, E>(effect: Effect.Effect<A, E, unknown>) => Effect.Effect<A, E>
): Effect.Effect<Record<string, unknown>, McpError> => {
  const ref = params["ref"]
  const argument = params["argument"]
  if (!isRecord(ref)) return invalid("ref must be an object")
  if (!isRecord(argument) || typeof argument["name"] !== "string" || typeof argument["value"] !== "string") {
    return invalid("argument needs string name and value")
  }
  const context = params["context"]
  const resolved: Record<string, string> = {}
  if (context !== undefined) {
    if (!isRecord(context)) return invalid("context must be an object")
    const given = context["arguments"]
    if (given !== undefined) {
      if (!isRecord(given)) return invalid("context.arguments must be an object")
      for (const [key, value] of Object.entries(given)) {
        if (typeof value !== "string") return invalid(`context.arguments.${key} must be a string`)
        resolved[key] = value
      }
    }
  }
  const providers = providersOf(catalog, ref)
  if (providers instanceof InvalidParams) return Effect.fail(providers)
  const provider = providers[argument["name"]]
  if (provider === undefined) return Effect.succeed({ completion: Completion.toWire([]) })
  return provide(provider({ value: argument["value"], arguments: resolved })).pipe(
    Effect.map((values) => ({ completion: Completion.toWire(values) }))
  )
}
