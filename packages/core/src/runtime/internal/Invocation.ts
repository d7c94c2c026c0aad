/**
 * The invocation check the runtime runs before a handler: the policy's decision on one component,
 * audited as the policy says.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as Immediate from "@snodo/protocol/peer/Immediate"
import type { ApplicationError } from "@snodo/protocol/jsonrpc/McpError"
import type { AuditEvent, Component, Policy, RequestInfo } from "../Authorization.ts"

const auditComponent = (component: Component): AuditEvent["component"] =>
  component.kind === "resource"
    ? { kind: component.kind, name: component.name, uri: component.uri }
    : component.kind === "template"
    ? { kind: component.kind, name: component.name, uri: component.uriTemplate }
    : { kind: component.kind, name: component.name }

/**
 * Runs the invocation check: `undefined` to proceed, else the error to answer with (`notFound` when
 * the refusal conceals). Audits as configured.
 */
export const checkInvocation = <E>(
  policy: Policy,
  component: Component,
  request: RequestInfo,
  notFound: () => E
): Effect.Effect<void, E | ApplicationError> => {
  const decision = policy.authorize("invocation", component, request)
  const outcome = decision === "allow" ? "granted" : "refused"
  const audit = policy.audit !== undefined && (outcome === "refused" || policy.auditGrants === true)
    ? policy.audit({ phase: "invocation", outcome, method: request.method, component: auditComponent(component), principal: request.principal.id })
    : Effect.void
  if (decision === "allow") return audit
  return Immediate.andThen(audit, Effect.fail(decision.conceal ? notFound() : decision.error))
}
