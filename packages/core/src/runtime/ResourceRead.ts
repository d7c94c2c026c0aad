/**
 * `resources/read`: an exact resource first, then the first template that matches.
 *
 * The URI must be absolute. No match, or a template handler answering `undefined`, is -32602
 * "Resource not found" with `data: {uri}` (never an empty `contents`).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { type Catalog, matchTemplate } from "../catalog/Catalog.ts"
import type * as Content from "../catalog/Content.ts"
import type { CacheHint } from "../pipeline/Shaping.ts"
import { InvalidParams, isMcpError, type McpError } from "../pipeline/McpError.ts"

const absoluteUri = /^[A-Za-z][A-Za-z0-9+.-]*:/

/** Longest URI read, in characters; longer ones are refused before any matching. @since 0.1.0 */
export const maxUriLength = 8192

const notFound = (uri: string) => new InvalidParams({ message: "Resource not found", data: { uri } })

/** A read's result and the cache hint the resource declared, if any. @since 0.1.0 */
export interface Read {
  readonly result: Record<string, unknown>
  readonly cache: CacheHint | undefined
}

const contentsOf = (value: Content.ResourceContents | ReadonlyArray<Content.ResourceContents>) =>
  Array.isArray(value) ? value : [value]

const keepProtocolErrors = <A>(effect: Effect.Effect<A, unknown>): Effect.Effect<A, McpError> =>
  Effect.catch(effect, (error) => isMcpError(error) ? Effect.fail(error) : Effect.die(error))

/** @since 0.1.0 */
export const run = (
  catalog: Catalog,
  params: Readonly<Record<string, unknown>>,
  provide: <A, E>(effect: Effect.Effect<A, E, unknown>) => Effect.Effect<A, E>
): Effect.Effect<Read, McpError> => {
  const uri = params["uri"]
  if (typeof uri !== "string" || !absoluteUri.test(uri)) {
    return Effect.fail(new InvalidParams({ message: "Invalid params: uri must be an absolute URI" }))
  }
  if (uri.length > maxUriLength) {
    return Effect.fail(new InvalidParams({ message: `Invalid params: uri longer than ${maxUriLength} characters` }))
  }
  const resource = catalog.resources.get(uri)
  if (resource !== undefined) {
    return keepProtocolErrors(provide(resource.read)).pipe(
      Effect.map((value) => ({ result: { contents: contentsOf(value) }, cache: resource.cache }))
    )
  }
  const matched = matchTemplate(catalog, uri)
  if (matched === undefined) return Effect.fail(notFound(uri))
  const template = matched.template.template
  return keepProtocolErrors(provide(template.read({ uri, variables: matched.variables }))).pipe(
    Effect.flatMap((value) =>
      value === undefined || (Array.isArray(value) && value.length === 0)
        ? Effect.fail(notFound(uri))
        : Effect.succeed({ result: { contents: contentsOf(value) }, cache: template.cache })
    )
  )
}
