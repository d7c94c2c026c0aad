/**
 * The verified identity behind a request.
 *
 * A principal is never read from a message: not from `_meta`, not from arbitrary headers. The
 * application's own authentication (an Effect HTTP middleware, a fixed local identity for stdio)
 * verifies the caller and provides this service; transports only pass it on. Without one, a
 * request is {@link anonymous}.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Principal } from "@snodo/core/Principal"
 *
 * // in the application's authentication middleware, after verifying a token:
 * const authenticated = <A, E, R>(effect: Effect.Effect<A, E, R>, subject: string) =>
 *   Effect.provideService(effect, Principal, Principal.of({ id: subject, claims: {} }))
 * ```
 *
 * @since 0.1.0
 */
import { Context } from "effect"

/**
 * @category services
 * @since 0.1.0
 */
export class Principal extends Context.Service<Principal, {
  /** A stable identifier of the caller (a token subject, a user id). */
  readonly id: string
  /** Verified attributes the application chose to keep (scopes, tenant, roles). */
  readonly claims: Readonly<Record<string, unknown>>
}>()("@snodo/core/Principal") {}

/**
 * The principal of a request nobody authenticated.
 *
 * @category constants
 * @since 0.1.0
 */
export const anonymous: Principal["Service"] = Principal.of({ id: "anonymous", claims: {} })

/**
 * The principal a context provides, or {@link anonymous}.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromContext = (context: Context.Context<never>): Principal["Service"] =>
  Context.getOrUndefined(context, Principal) ?? anonymous
