/**
 * `resources/read`: an exact resource first, then the first template that matches.
 *
 * The URI must be absolute. No match, or a template handler answering `undefined`, is -32602
 * "Resource not found" with `data: {uri}` (never an empty `contents`).
 *
 * @since 0.1.0
 */
import * as Methods from "@snodo/protocol/methods/Methods"
import { Effect } from "effect"
import { type Catalog, matchTemplate } from "../catalog/Catalog.ts"
import type * as Content from "../catalog/Content.ts"
import type * as Resource from "../catalog/Resource.ts"
import type * as ResourceTemplate from "../catalog/ResourceTemplate.ts"
import type { CacheHint } from "../pipeline/Shaping.ts"
import { InvalidParams, isMcpError, type McpError } from "@snodo/protocol/jsonrpc/McpError"
import * as Authorization from "../runtime/Authorization.ts"
import { ReadResourceRequestParams } from "@snodo/protocol/wire/Resources"
import * as Route from "./Route.ts"

const absoluteUri = /^[A-Za-z][A-Za-z0-9+.-]*:/

/**
 * Longest URI read, in characters; longer ones are refused before any matching.
 *
 * @category constants
 * @since 0.1.0
 */
export const maxUriLength = 8192

/**
 * A read's result and the cache hint the resource declared, if any.
 *
 * @category models
 * @since 0.1.0
 */
export interface Read {
  readonly result: Record<string, unknown>
  readonly cache: CacheHint | undefined
}

const contentsOf = (value: Content.ResourceContents | ReadonlyArray<Content.ResourceContents>) =>
  Array.isArray(value) ? value : [value]

const keepProtocolErrors = <A>(effect: Effect.Effect<A, unknown>): Effect.Effect<A, McpError> =>
  Effect.catch(effect, (error) => isMcpError(error) ? Effect.fail(error) : Effect.die(error))

/**
 * The component a URI resolves to.
 *
 * @category models
 * @since 0.1.0
 */
export type Target =
  | { readonly _tag: "Resource"; readonly uri: string; readonly resource: Resource.Resource<unknown> }
  | {
    readonly _tag: "Template"
    readonly uri: string
    readonly template: ResourceTemplate.ResourceTemplate<unknown>
    readonly variables: Readonly<Record<string, string | ReadonlyArray<string>>>
  }

/**
 * Resolves the URI of a `resources/read` to an exact resource or the first matching template.
 *
 * @category combinators
 * @since 0.1.0
 */
export const resolve = (catalog: Catalog, params: { readonly uri: string }): Target | InvalidParams => {
  const uri = params.uri
  if (!absoluteUri.test(uri)) {
    return new InvalidParams({ message: "Invalid params: uri must be an absolute URI" })
  }
  if (uri.length > maxUriLength) {
    return new InvalidParams({ message: `Invalid params: uri longer than ${maxUriLength} characters` })
  }
  const resource = catalog.resources.get(uri)
  if (resource !== undefined) return { _tag: "Resource", uri, resource }
  const matched = matchTemplate(catalog, uri)
  if (matched === undefined) return notFound(uri)
  return { _tag: "Template", uri, template: matched.template.template, variables: matched.variables }
}

/**
 * The error for a URI that names nothing (also used when authorization conceals).
 *
 * @category combinators
 * @since 0.1.0
 */
export const notFound = (uri: string) => new InvalidParams({ message: "Resource not found", data: { uri } })

/**
 * Reads a resolved target.
 *
 * @category combinators
 * @since 0.1.0
 */
export const run = (
  target: Target,
  provide: <A, E>(effect: Effect.Effect<A, E, unknown>) => Effect.Effect<A, E>
): Effect.Effect<Read, McpError> => {
  if (target._tag === "Resource") {
    return keepProtocolErrors(provide(target.resource.read)).pipe(
      Effect.map((value) => ({ result: { contents: contentsOf(value) }, cache: target.resource.cache }))
    )
  }
  const { template, uri, variables } = target
  return keepProtocolErrors(provide(template.read({ uri, variables }))).pipe(
    Effect.flatMap((value) =>
      value === undefined || (Array.isArray(value) && value.length === 0)
        ? Effect.fail(notFound(uri))
        : Effect.succeed({ result: { contents: contentsOf(value) }, cache: template.cache })
    )
  )
}

/**
 * `resources/read`.
 *
 * @category constants
 * @since 0.1.0
 */
export const route: Route.Route<typeof ReadResourceRequestParams.schema.Type, Target> = Route.make({
  method: Methods.ResourcesRead,
  params: ReadResourceRequestParams.schema,
  bounded: true,
  resolve: (params, environment) => resolve(environment.catalog, params),
  guard: (target) => ({
    component: target._tag === "Resource"
      ? Authorization.resourceComponent(target.resource)
      : Authorization.templateComponent(target.template),
    notFound: () => notFound(target.uri)
  }),
  run: (call, target) => Effect.map(run(target, call.provide), (read) => Route.result(read.result, read.cache))
})
