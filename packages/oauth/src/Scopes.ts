/**
 * Scope-based authorization on core's `AuthorizationPolicy` seam: which scopes each tool, prompt,
 * resource and template needs.
 *
 * `requireScopes(rules)` is an `Authorization.Policy`. Its invocation check (once per
 * `tools/call`, `resources/read`, `prompts/get`, `completion/complete`, before argument validation
 * and before any handler code) refuses a principal whose token lacks a needed scope with the
 * application error {@link insufficientScopeCode} whose `data` is typed
 * ({@link InsufficientScope}: `{ error: "insufficient_scope", scope: "a b" }`, every scope the
 * operation needs, not only the missing ones). That data is how the HTTP layer learns the scope:
 * the resource server's `Grant` recognizes exactly this refusal and answers it **403** with
 * `WWW-Authenticate: Bearer error="insufficient_scope", scope="a b", resource_metadata="…"` (the
 * JSON-RPC error is the body), so a client can step up. On stdio, where there is no HTTP answer,
 * it stays the JSON-RPC error.
 *
 * Listings show every component: a client learns what exists and asks for more scope when it
 * calls (core caches list views per principal id, so a listing filtered by scopes would also lag
 * behind a token with more of them). A broader scope may imply narrower ones (`implies: { "files:write": ["files:read"] }`, applied
 * transitively), as the spec requires servers to honour.
 *
 * @example
 * ```ts
 * import { Authorization } from "@snodo/core"
 * import * as Scopes from "@snodo/oauth/Scopes"
 *
 * const Policy = Authorization.layer(Scopes.requireScopes({
 *   default: ["mcp"],
 *   tools: { delete_records: ["mcp", "records:write"] },
 *   implies: { "records:write": ["records:read"] }
 * }))
 * ```
 *
 * @since 0.1.0
 */
import { Authorization, type Principal } from "@snodo/core"
import { Schema } from "effect"
import { isScopeToken } from "./Challenge.ts"
import { scopesOf } from "./TokenVerifier.ts"

/**
 * The JSON-RPC code of an insufficient scope refusal (in the -32000..-32019 range left to
 * implementations).
 *
 * @category constants
 * @since 0.1.0
 */
export const insufficientScopeCode = -32003

/**
 * The `data` of an insufficient scope refusal: the transport maps exactly this to a 403 challenge.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InsufficientScope = Schema.Struct({
  error: Schema.Literal("insufficient_scope"),
  /** Every scope the operation needs, space-separated. */
  scope: Schema.String
})

/**
 * @category models
 * @since 0.1.0
 */
export type InsufficientScope = typeof InsufficientScope.Type

/**
 * One or more scopes.
 *
 * @category models
 * @since 0.1.0
 */
export type Requirement = string | ReadonlyArray<string>

/**
 * What each component needs.
 *
 * @category models
 * @since 0.1.0
 */
export interface Rules {
  /** Needed by every component without a rule of its own (default: none). */
  readonly default?: Requirement | undefined
  /** By tool name. */
  readonly tools?: Readonly<Record<string, Requirement>> | undefined
  /** By prompt name. */
  readonly prompts?: Readonly<Record<string, Requirement>> | undefined
  /** By resource URI, or by URI template for templates. */
  readonly resources?: Readonly<Record<string, Requirement>> | undefined
  /** Scopes that imply others (`{ "admin": ["read", "write"] }`), applied transitively. */
  readonly implies?: Readonly<Record<string, ReadonlyArray<string>>> | undefined
}

const list = (requirement: Requirement | undefined): ReadonlyArray<string> => {
  const scopes = requirement === undefined ? [] : typeof requirement === "string" ? [requirement] : requirement
  for (const scope of scopes) {
    if (!isScopeToken(scope)) throw new TypeError(`Not an OAuth scope: ${JSON.stringify(scope)}`)
  }
  return scopes
}

const table = (rules: Readonly<Record<string, Requirement>> | undefined): ReadonlyMap<string, ReadonlyArray<string>> =>
  new Map(Object.entries(rules ?? {}).map(([key, requirement]) => [key, list(requirement)]))

/**
 * The scopes of a principal the resource server authenticated (its token's), none for any other.
 *
 * @category combinators
 * @since 0.1.0
 */
export const granted = (principal: Principal.Principal["Service"]): ReadonlyArray<string> => {
  const scopes = principal.claims["scopes"]
  return Array.isArray(scopes) ? scopes.filter((scope): scope is string => typeof scope === "string") : scopesOf(principal.claims)
}

/**
 * The scopes a component needs under `rules`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const needed = (rules: Rules) => {
  const fallback = list(rules.default)
  const tools = table(rules.tools)
  const prompts = table(rules.prompts)
  const resources = table(rules.resources)
  return (component: Authorization.Component): ReadonlyArray<string> => {
    switch (component.kind) {
      case "tool":
        return tools.get(component.name) ?? fallback
      case "prompt":
        return prompts.get(component.name) ?? fallback
      case "resource":
        return resources.get(component.uri) ?? fallback
      case "template":
        return resources.get(component.uriTemplate) ?? fallback
    }
  }
}

/** Every scope `scopes` grants, through `implies`. */
const closure = (scopes: ReadonlyArray<string>, implies: Readonly<Record<string, ReadonlyArray<string>>>): ReadonlySet<string> => {
  const all = new Set<string>()
  const pending = [...scopes]
  while (pending.length > 0) {
    const scope = pending.pop()!
    if (all.has(scope)) continue
    all.add(scope)
    pending.push(...(implies[scope] ?? []))
  }
  return all
}

/**
 * The refusal of an operation that needs `scopes`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const refusal = (scopes: ReadonlyArray<string>): Authorization.Refusal => {
  const data: InsufficientScope = { error: "insufficient_scope", scope: scopes.join(" ") }
  return Authorization.refuse(insufficientScopeCode, `Insufficient scope: this operation needs ${data.scope}`, { data })
}

/**
 * A policy that lets a principal invoke a component only when its token grants every scope the
 * component needs.
 *
 * @category combinators
 * @since 0.1.0
 */
export const requireScopes = (rules: Rules): Authorization.Policy => {
  const neededFor = needed(rules)
  const implies = rules.implies ?? {}
  for (const [scope, implied] of Object.entries(implies)) list([scope, ...implied])
  // Principals are built per request: one closure of their scopes each.
  const grants = new WeakMap<Principal.Principal["Service"], ReadonlySet<string>>()
  const grantsOf = (principal: Principal.Principal["Service"]) => {
    let set = grants.get(principal)
    if (set === undefined) {
      set = closure(granted(principal), implies)
      grants.set(principal, set)
    }
    return set
  }
  return {
    authorize: (phase, component, { principal }) => {
      if (phase === "discovery") return Authorization.allow
      const scopes = neededFor(component)
      if (scopes.length === 0) return Authorization.allow
      const set = grantsOf(principal)
      return scopes.every((scope) => set.has(scope)) ? Authorization.allow : refusal(scopes)
    }
  }
}
