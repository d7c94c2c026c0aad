/**
 * The session of an initialize-era dialect (2025-11-25): what `initialize` negotiated, kept by the
 * transport for every later request instead of being read from each request's `_meta`.
 *
 * A stdio connection is one session; over HTTP a session is one `Mcp-Session-Id` when the
 * application enables sessions, and otherwise each request is a session of its own, negotiated from
 * its `MCP-Protocol-Version` header and knowing nothing of the client (`persistent: false`: no
 * capabilities, no log level, no subscriptions, no server-to-client requests). The transport puts
 * the session in the request's `RequestContext`; admission asks the dialect it negotiated for the
 * request's protocol context (see routes/Admission).
 *
 * What the session keeps: the negotiated version, client capabilities and info; whether
 * `notifications/initialized` arrived; the level `logging/setLevel` chose (the same `McpLog` a
 * handler uses on 2026-07-28 reads it); the URIs `resources/subscribe` named; the
 * server-to-client requests waiting for an answer. Once initialized, a persistent session
 * {@link follow}s the `SubscriptionHub`: list changes and updates of subscribed resources are
 * written as that era's notifications on the session's own channel ({@link Outbound}: the stdio
 * connection, the HTTP session's GET stream), dropped while no channel is open. Ending the session
 * unsubscribes it and fails its waiting requests.
 *
 * @example
 * ```ts
 * import * as Session from "@snodo/core/dialect/Session"
 * import * as OutgoingRequests from "@snodo/protocol/peer/OutgoingRequests"
 *
 * // a transport's session: a channel for notifications, and server-to-client requests
 * const session = Session.makeUnsafe({ outbound: (frame) => write(frame), requests: OutgoingRequests.make() })
 * const context = { transport: "stdio", sink, session }
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Exit, Scope } from "effect"
import * as Encoder from "@snodo/protocol/jsonrpc/Encoder"
import type { RequestMeta } from "../pipeline/RequestMeta.ts"
import type { LoggingLevel } from "@snodo/protocol/wire/Meta"
import type { OutgoingRequests } from "@snodo/protocol/peer/OutgoingRequests"
import type { Support } from "./Listen.ts"
import type { Principal } from "./Principal.ts"
import type { Change, SubscriptionHub } from "./SubscriptionHub.ts"

/**
 * What `initialize` agreed on.
 *
 * @category models
 * @since 0.1.0
 */
export interface Negotiated {
  readonly version: string
  readonly clientCapabilities: Readonly<Record<string, unknown>>
  readonly clientInfo: RequestMeta["clientInfo"]
}

/**
 * Writes one notification not tied to a request, without waiting; drops it while no channel is
 * open (an HTTP session without its GET stream) or when the transport's bounded outbox is full
 * (peer/Outbox: a client that stopped reading never holds the publisher).
 *
 * @category models
 * @since 0.1.0
 */
type Outbound = (frame: string) => void

/**
 * @category models
 * @since 0.1.0
 */
export interface Session {
  /** The HTTP `Mcp-Session-Id`; `undefined` for a stdio connection or a sessionless request. */
  readonly id: string | undefined
  /** Whether it outlives its requests (stdio, an HTTP session), so it can remember and notify. */
  readonly persistent: boolean
  /** What `initialize` negotiated; `undefined` before. */
  readonly negotiated: Negotiated | undefined
  /** Whether `notifications/initialized` arrived. */
  readonly initialized: boolean
  /** The level `logging/setLevel` chose; `undefined` (no log messages) before. */
  readonly logLevel: LoggingLevel | undefined
  /** The URIs `resources/subscribe` named. */
  readonly resourceSubscriptions: ReadonlySet<string>
  /** Its server-to-client requests, when the transport carries them and their answers. */
  readonly requests: OutgoingRequests | undefined
  /** Records what `initialize` negotiated. */
  readonly negotiate: (negotiated: Negotiated) => void
  readonly markInitialized: () => void
  readonly setLogLevel: (level: LoggingLevel) => void
  readonly subscribe: (uri: string) => void
  readonly unsubscribe: (uri: string) => void
  /** Writes a notification on the session's own channel (see {@link Outbound}). */
  readonly notify: Outbound
  /**
   * Delivers the hub's changes the session asked for, until it ends: list changes the server
   * supports, and updates of the resources it subscribed to. Once per session.
   */
  readonly follow: (hub: SubscriptionHub["Service"], principal: Principal["Service"], support: Support) => Effect.Effect<void>
  /** Ends the session: stops following the hub, fails its waiting requests. Idempotent. */
  readonly end: Effect.Effect<void>
}

/**
 * How a transport makes a session.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly id?: string
  /** Its channel for notifications not tied to a request; without one, the session is not persistent. */
  readonly outbound?: Outbound
  readonly requests?: OutgoingRequests
}

const listChanged = {
  tools: Encoder.notification("notifications/tools/list_changed", {}),
  prompts: Encoder.notification("notifications/prompts/list_changed", {}),
  resources: Encoder.notification("notifications/resources/list_changed", {})
}

/** A change as an initialize-era notification (no `_meta`: there is no listen stream to name). */
const frameOf = (change: Change): string | undefined => {
  switch (change._tag) {
    case "ToolsListChanged":
      return listChanged.tools
    case "PromptsListChanged":
      return listChanged.prompts
    case "ResourcesListChanged":
      return listChanged.resources
    case "ResourceUpdated":
      return Encoder.notification("notifications/resources/updated", { uri: change.uri })
    case "Topic":
      return undefined
  }
}

const noTopics: ReadonlySet<string> = new Set()
const dropped: Outbound = () => {}

/**
 * A session (a synchronous allocation: its hub subscription lives in a scope of its own, closed by
 * `end`). With an `outbound` channel it is persistent (stdio, an HTTP session).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeUnsafe = (options?: Options): Session => {
  const outbound = options?.outbound
  const subscriptions = new Set<string>()
  const scope = Scope.makeUnsafe()
  let negotiated: Negotiated | undefined
  let initialized = false
  let logLevel: LoggingLevel | undefined
  let following = false
  let ended = false
  return {
    id: options?.id,
    persistent: outbound !== undefined,
    get negotiated() {
      return negotiated
    },
    get initialized() {
      return initialized
    },
    get logLevel() {
      return logLevel
    },
    resourceSubscriptions: subscriptions,
    requests: options?.requests,
    negotiate: (value) => void (negotiated = value),
    markInitialized: () => void (initialized = true),
    setLogLevel: (level) => void (logLevel = level),
    subscribe: (uri) => void subscriptions.add(uri),
    unsubscribe: (uri) => void subscriptions.delete(uri),
    notify: outbound ?? dropped,
    follow: (hub, principal, support) =>
      Effect.suspend(() => {
        if (following || ended || outbound === undefined) return Effect.void
        following = true
        const subscriber = {
          // The live set: `resources/subscribe` changes what the hub delivers from then on.
          filter: {
            toolsListChanged: support.toolsListChanged,
            promptsListChanged: support.promptsListChanged,
            resourcesListChanged: support.resourcesListChanged,
            resourceSubscriptions: subscriptions,
            topics: noTopics
          },
          principal,
          deliver: (change: Change) => {
            const frame = frameOf(change)
            if (frame !== undefined) outbound(frame)
          }
        }
        return Effect.provideService(hub.subscribe(subscriber), Scope.Scope, scope)
      }),
    end: Effect.suspend(() => {
      if (ended) return Effect.void
      ended = true
      options?.requests?.close()
      return Scope.close(scope, Exit.void)
    })
  }
}

/**
 * The session of one sessionless HTTP request: negotiated from its `MCP-Protocol-Version` header,
 * with no client capabilities (the `initialize` that declared them was another request).
 *
 * @category combinators
 * @since 0.1.0
 */
export const stateless = (version: string): Session => {
  const session = makeUnsafe()
  session.negotiate({ version, clientCapabilities: {}, clientInfo: undefined })
  return session
}
