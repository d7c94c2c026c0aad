/**
 * The transport's authentication seam: an {@link Authenticator} that `NodeServe` runs before a
 * request's body is read, and the {@link Grant} an authenticated request carries.
 *
 * The transport verifies nothing itself. An authenticator (for instance `@snodo/oauth`'s resource
 * server) looks at the request head and either answers it (401, 403, 503: the request never
 * reaches the body reader, let alone a handler) or returns the verified `Principal` and a
 * `Grant`. On the mounted route the application's own middleware provides the same two services;
 * either way the exchange then knows:
 *
 * - when the credential lapses (`expiresAt`): a request, SSE response or listen stream still
 *   open then is ended, with the grant's `lapse` answer (before the first event) or its error as
 *   the stream's terminal event;
 * - how to answer an error outcome that is an authorization matter (`answer`): an insufficient
 *   scope refusal of the authorization policy becomes a 403 with its `WWW-Authenticate` challenge
 *   instead of the plain JSON-RPC error in a 200.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as Authentication from "@snodo/http/Authentication"
 * import * as NodeServe from "@snodo/http/NodeServe"
 * import * as Replies from "@snodo/http/Replies"
 * import { Principal } from "@snodo/core/Principal"
 *
 * const authenticator: Authentication.Authenticator = {
 *   authenticate: (headers) =>
 *     headers["x-api-key"] === process.env["API_KEY"]
 *       ? Effect.succeed({ principal: Principal.of({ id: "ops", claims: {} }), grant: undefined })
 *       : Effect.fail(Replies.refuse(401, -32001, "Unauthorized", { "www-authenticate": "ApiKey" }))
 * }
 *
 * NodeServe.layer({ port: 3000, authenticate: authenticator })
 * ```
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { Principal } from "@snodo/core/Principal"
import type * as Reply from "./Reply.ts"
import type { CheckedHeaders } from "./RequestChecks.ts"

/**
 * How an exchange ends when its credential lapses.
 *
 * @category models
 * @since 0.1.0
 */
export interface Lapse {
  /** The status of the answer when nothing was written yet (401 for an expired token). */
  readonly status: number
  /** Its headers (a `WWW-Authenticate` challenge). */
  readonly headers: Readonly<Record<string, string>>
  /** The JSON-RPC error of the answer, or the terminal event of an open stream. */
  readonly error: { readonly code: number; readonly message: string; readonly data?: unknown }
}

/**
 * An error outcome of the runtime, as the transport holds it.
 *
 * @category models
 * @since 0.1.0
 */
export interface ErrorOutcome {
  readonly code: number
  /** The encoded JSON-RPC error response. */
  readonly frame: string
}

/**
 * What the transport knows about an authenticated request besides its principal.
 *
 * @category services
 * @since 0.1.0
 */
export class Grant extends Context.Service<Grant, {
  /** When the credential stops being valid (epoch milliseconds); `undefined` for never. */
  readonly expiresAt: number | undefined
  /** How an exchange still open at `expiresAt` ends. */
  readonly lapse: Lapse
  /**
   * The answer to an error outcome before anything was written, when it is not the plain JSON-RPC
   * error (an insufficient scope refusal → 403 with a challenge); `undefined` for the plain one.
   */
  readonly answer: (outcome: ErrorOutcome) => Reply.Reply | undefined
}>()("@snodo/http/Grant") {}

/**
 * A verified caller.
 *
 * @category models
 * @since 0.1.0
 */
export interface Authenticated {
  readonly principal: Principal["Service"]
  readonly grant: Grant["Service"] | undefined
}

/**
 * Verifies the caller of a request from its head, before the body is read. Fails with the
 * answer to send instead (401 with a challenge, 403, 503).
 *
 * @category models
 * @since 0.1.0
 */
export interface Authenticator {
  readonly authenticate: (headers: CheckedHeaders, target?: RequestTarget) => Effect.Effect<Authenticated, Reply.Reply>
}

/**
 * The request line of the request being authenticated, for a check bound to it (a DPoP proof
 * names the method and URI it was made for, RFC 9449 §4.3).
 *
 * @category models
 * @since 0.1.0
 */
export interface RequestTarget {
  readonly method: string
  /** The request target as sent: a path with its query (`/mcp?x=1`), or an absolute URL. */
  readonly path: string
}

// setTimeout fires at once for delays beyond 2^31 - 1 ms (~24.8 days).
const maxDelay = 2_147_483_647

/**
 * Runs `run` at `at` (epoch milliseconds), however far away; returns the function that cancels it.
 *
 * @category combinators
 * @since 0.1.0
 */
export const at = (time: number, run: () => void): (() => void) => {
  let timer: ReturnType<typeof setTimeout>
  const arm = () => {
    const delay = time - Date.now()
    timer = delay > maxDelay ? setTimeout(arm, maxDelay) : setTimeout(run, Math.max(0, delay))
  }
  arm()
  return () => clearTimeout(timer)
}
