/**
 * What `runtime/Listen` and the stream it serves (internal/ListenStream, loaded when a runtime
 * with a hub is built) share: the models, the dropped-changes key and the subscription id's
 * `_meta`. `Listen` publishes them.
 *
 * @internal
 */
import type { Effect } from "effect"
import type { RequestId } from "@snodo/protocol/jsonrpc/Envelope"
import type { McpError } from "@snodo/protocol/jsonrpc/McpError"
import { SubscriptionIdKey } from "@snodo/protocol/wire/Meta"
import type { SubscriptionFilter } from "@snodo/protocol/wire/Notifications"
import type { RequestSink } from "@snodo/protocol/peer/RequestSink"
import type { ListenObserver } from "./Observers.ts"
import type { Principal } from "../Principal.ts"
import type { SubscriptionHub } from "../SubscriptionHub.ts"

/**
 * What happens when a stream's queue is full.
 *
 * @category models
 * @since 0.1.0
 */
export type Overflow = "drop-oldest" | "close"

/**
 * Per-stream limits, configurable per server.
 *
 * @category models
 * @since 0.1.0
 */
export interface Limits {
  /** Changes waiting to be written, per stream. */
  readonly queue: number
  /**
   * Characters of the changes waiting to be written, per stream (a `resources/updated` counts
   * its URI); past it the overflow policy applies as past `queue`.
   */
  readonly queueBytes: number
  readonly overflow: Overflow
  /** URIs one stream may subscribe to (`resourceSubscriptions`); more is -32602. */
  readonly maxResourceSubscriptions: number
}

/**
 * The `_meta` key counting changes dropped (drop-oldest) before the frame carrying it.
 *
 * @category constants
 * @since 0.1.0
 */
export const DroppedKey = "dev.snodo/dropped" as const

/**
 * The notification types a server honours (from the capabilities it advertises).
 *
 * @category models
 * @since 0.1.0
 */
export interface Support {
  readonly toolsListChanged: boolean
  readonly promptsListChanged: boolean
  readonly resourcesListChanged: boolean
  readonly resourceSubscriptions: boolean
}

/**
 * The listen streams one transport holds (a stdio connection, an HTTP server): a cap, and a way to
 * end them all gracefully.
 *
 * @category models
 * @since 0.1.0
 */
export interface Streams {
  readonly limit: number
  /** Characters the open streams may hold in their filters together. */
  readonly maxBytes: number
  /**
   * The least time between two writes of one stream, in milliseconds (0: none). A stream that wrote
   * nothing within it writes a change at once; changes published while it rests wait in its queue,
   * where repeated ones coalesce, and leave together at the end of the interval. It bounds the work
   * one publisher makes per stream, whatever its rate, and costs nothing while a stream is idle.
   */
  readonly paceMillis: number
  readonly open: () => number
  /**
   * Takes a place for a stream whose filter holds `bytes`; `onClose` is called if the transport
   * ends every stream. Returns the release function, or why there is no place.
   */
  readonly acquire: (onClose: () => void, bytes?: number) => (() => void) | "full" | "over-budget" | "closing"
  /** Ends every open stream gracefully and refuses new ones. */
  readonly closeAll: () => void
}

/**
 * How a stream ended when the server ended it.
 *
 * @category models
 * @since 0.1.0
 */
export type End =
  | { readonly _tag: "Graceful" }
  | { readonly _tag: "Overflow"; readonly queue: number }


/**
 * A key of the `subscriptions/listen` filter an extension honours (`taskIds` for Tasks).
 *
 * When a listen request carries the key, the core asks `honour` which topics the stream subscribes
 * to (a request that did not negotiate the extension is refused with -32021 first). The stream then
 * receives every {@link Topic} change published on those topics for its principal, written as the
 * change's notification with the stream's subscription id in `_meta`.
 *
 * @category models
 * @since 0.1.0
 */
export interface ListenFilter {
  readonly key: string
  /**
   * The topics to subscribe for the requested value, and the value to acknowledge (what the server
   * agreed to send); fails with -32602 for a malformed value.
   */
  readonly honour: (
    requested: unknown,
    principal: Principal["Service"]
  ) => Effect.Effect<{ readonly topics: ReadonlyArray<string>; readonly acknowledged: unknown }, McpError>
}

/**
 * An extension's listen filter, with the extension it belongs to.
 *
 * @category models
 * @since 0.1.0
 */
export interface ExtensionFilter extends ListenFilter {
  readonly extension: string
}

/**
 * Everything one stream needs.
 *
 * @category models
 * @since 0.1.0
 */
export interface Input {
  readonly id: RequestId
  /** The request's `notifications` filter as sent (extension keys included). */
  readonly requested: Readonly<Record<string, unknown>>
  /** The same, decoded by the wire schema (the keys of the core revision). */
  readonly decoded: SubscriptionFilter
  readonly hub: SubscriptionHub["Service"]
  readonly support: Support
  readonly limits: Limits
  /** The extensions' filter keys, and whether this request negotiated an extension. */
  readonly filters: ReadonlyArray<ExtensionFilter>
  readonly negotiated: (extension: string) => boolean
  /** Where the stream's frames go; `undefined` when the transport cannot hold a stream. */
  readonly sink: RequestSink | undefined
  readonly streams: Streams
  readonly principal: Principal["Service"]
  /** Told when the stream opens, drops changes, closes, or finds no place (instrumentation). */
  readonly observer?: ListenObserver | undefined
}

const rawJSON = (JSON as unknown as { readonly rawJSON: (text: string) => unknown }).rawJSON

/**
 * A request id as a JSON value (an int64 beyond the safe range keeps its digits).
 *
 * @category combinators
 * @since 0.1.0
 */
export const idValue = (id: RequestId): unknown => typeof id === "bigint" ? rawJSON(id.toString()) : id

export const subscriptionMeta = (id: RequestId) => ({ [SubscriptionIdKey]: idValue(id) })
