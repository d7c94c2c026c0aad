/**
 * How a transport finds out whether its sessions are shared: a {@link SessionStore} in its
 * services makes them so, resumed on the runtime's hub.
 *
 * @since 0.1.0
 */
import { Context, Effect } from "effect"
import type { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import { SessionStore } from "./SessionStore.ts"
import type { SharedOptions } from "./Sessions.ts"

/**
 * The shared table's options when the services hold a `SessionStore`; `undefined` otherwise (the
 * sessions stay in this process).
 *
 * @category combinators
 * @since 0.1.0
 */
export const sharedOptions = (runtime: ServerRuntime["Service"], services: Context.Context<never>): SharedOptions | undefined => {
  const store = Context.getOrUndefined(services, SessionStore)
  if (store === undefined) return undefined
  const resume = runtime.resume
  return { store, resume: resume === undefined ? () => Effect.void : resume }
}
