/**
 * Authorization at the component boundary.
 *
 * Authentication stays with the application (its HTTP middleware, or the process owner on stdio)
 * and reaches MCP code only as a verified {@link Principal}. An optional `AuthorizationPolicy`,
 * given by Layer, decides per component:
 *
 * - `discovery`: for every tool, prompt, resource and template listed. A refusal filters the entry
 *   out before pagination, so pages and cursors are per principal (a cursor from one principal is
 *   refused for another).
 * - `invocation`: once per `tools/call`, `resources/read`, `prompts/get` and `completion/complete`,
 *   before argument validation and before any handler code, so a guessed name has no side effect.
 *   The refusal is the application's own error (codes -32000..-32019), or, with `conceal`, exactly
 *   the not-found answer.
 *
 * The policy runs on hot paths: it must be pure and cheap (no I/O). It receives the precomputed
 * component, so it never parses anything. Capabilities stay catalog-wide.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { Authorization } from "@snodo/core"
 *
 * const OnlyAdminsDelete = Authorization.layer({
 *   authorize: (_phase, component, { principal }) =>
 *     component.name.startsWith("delete_") && principal.claims["role"] !== "admin"
 *       ? Authorization.refuse(-32001, "Forbidden", { conceal: true })
 *       : Authorization.allow
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Schema } from "effect"
import type * as Prompt from "../catalog/Prompt.ts"
import type * as Resource from "../catalog/Resource.ts"
import type * as ResourceTemplate from "../catalog/ResourceTemplate.ts"
import type * as Tool from "../catalog/Tool.ts"
import { ApplicationError } from "@snodo/protocol/jsonrpc/McpError"
import type { Principal } from "./Principal.ts"

/**
 * When the policy is asked.
 *
 * @category models
 * @since 0.1.0
 */
type Phase = "discovery" | "invocation"

/**
 * The component a decision is about, as registered.
 *
 * @category models
 * @since 0.1.0
 */
export type Component =
  | { readonly kind: "tool"; readonly name: string; readonly definition: Tool.Tool<unknown> }
  | { readonly kind: "prompt"; readonly name: string; readonly definition: Prompt.Prompt<unknown> }
  | { readonly kind: "resource"; readonly name: string; readonly uri: string; readonly definition: Resource.Resource<unknown> }
  | {
    readonly kind: "template"
    readonly name: string
    readonly uriTemplate: string
    readonly definition: ResourceTemplate.ResourceTemplate<unknown>
  }

/**
 * The component of a tool.
 *
 * @category combinators
 * @since 0.1.0
 */
export const toolComponent = (definition: Tool.Tool<unknown>): Component => ({ kind: "tool", name: definition.name, definition })

/**
 * The component of a prompt.
 *
 * @category combinators
 * @since 0.1.0
 */
export const promptComponent = (definition: Prompt.Prompt<unknown>): Component => ({ kind: "prompt", name: definition.name, definition })

/**
 * The component of a resource.
 *
 * @category combinators
 * @since 0.1.0
 */
export const resourceComponent = (definition: Resource.Resource<unknown>): Component => ({
  kind: "resource",
  name: definition.description.name,
  uri: definition.description.uri,
  definition
})

/**
 * The component of a resource template.
 *
 * @category combinators
 * @since 0.1.0
 */
export const templateComponent = (definition: ResourceTemplate.ResourceTemplate<unknown>): Component => ({
  kind: "template",
  name: definition.description.name,
  uriTemplate: definition.description.uriTemplate,
  definition
})

/**
 * What the policy knows about the request.
 *
 * @category models
 * @since 0.1.0
 */
export interface RequestInfo {
  readonly principal: Principal["Service"]
  readonly method: string
}

/**
 * A refusal: the application's error code (-32000..-32019), message and data; with `conceal`, an
 * invocation refusal is answered exactly as if the component did not exist.
 *
 * @category errors
 * @since 0.1.0
 */
export class Refusal extends Schema.TaggedError<Refusal>()("AuthorizationRefusal", {
  error: Schema.instanceOf(ApplicationError),
  conceal: Schema.Boolean
}) {}

/**
 * The policy's answer.
 *
 * @category models
 * @since 0.1.0
 */
export type Decision = "allow" | Refusal

/**
 * Allows.
 *
 * @category constants
 * @since 0.1.0
 */
export const allow: Decision = "allow"

/**
 * Builds a refusal. The code must be in -32000..-32019 (the range 2026-07-28 leaves to
 * implementations); anything else throws when the refusal is built, so a policy cannot
 * impersonate a protocol error.
 *
 * @category combinators
 * @since 0.1.0
 */
export const refuse = (
  code: number,
  message: string,
  options?: { readonly data?: unknown; readonly conceal?: boolean }
): Refusal => new Refusal({ error: ApplicationError.of(code, message, options?.data), conceal: options?.conceal === true })

/**
 * An audit record: never the arguments.
 *
 * @category models
 * @since 0.1.0
 */
export interface AuditEvent {
  readonly phase: "invocation"
  readonly outcome: "refused" | "granted"
  readonly method: string
  readonly component: { readonly kind: Component["kind"]; readonly name: string; readonly uri?: string }
  readonly principal: string
}

/**
 * The policy.
 *
 * @category models
 * @since 0.1.0
 */
export interface Policy {
  readonly authorize: (phase: Phase, component: Component, request: RequestInfo) => Decision
  /** Receives invocation refusals, and grants too when `auditGrants` is set. */
  readonly audit?: (event: AuditEvent) => Effect.Effect<void>
  readonly auditGrants?: boolean
}

/**
 * @category services
 * @since 0.1.0
 */
export class AuthorizationPolicy extends Context.Service<AuthorizationPolicy, Policy>()("@snodo/core/AuthorizationPolicy") {}

/**
 * Provides a policy.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (policy: Policy): Layer.Layer<AuthorizationPolicy> => Layer.succeed(AuthorizationPolicy, policy)
