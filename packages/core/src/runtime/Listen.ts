/**
 * `subscriptions/listen`: one long-lived stream of change notifications, as a scoped resource of
 * its request.
 *
 * The request takes a place among the transport's open streams (refused with -32603 beyond the
 * cap), registers with the {@link SubscriptionHub} for the filter the server honours, writes
 * `notifications/subscriptions/acknowledged` first and then every change it receives, each frame
 * tagged with `_meta["io.modelcontextprotocol/subscriptionId"]` = the listen request's id. Changes
 * wait in a bounded queue per stream (the peer layer's `Mailbox`, coalescing by change and
 * bounded by count and characters): a change already waiting is not queued twice (a second
 * `tools/list_changed` tells the client nothing new), and when the queue is full the overflow
 * policy applies: `"drop-oldest"` drops the oldest change and reports how many were dropped in
 * the next frame's `_meta["dev.snodo/dropped"]`, `"close"` ends the stream. A transport may pace
 * its streams ({@link Streams.paceMillis}; HTTP does): a stream that wrote nothing within the
 * interval writes a change at once (leading edge); after a write it rests that long, and the
 * changes published meanwhile wait and leave together at the end of the rest (trailing edge), the
 * repeated ones coalesced. A publisher's rate makes at most one batch of writes per stream and
 * interval, and an idle stream costs no timer.
 *
 * Fan-out is cheap per stream: a change is encoded once for every stream it reaches (only the
 * subscription id differs), and when the transport's sink can write synchronously
 * (`RequestSink.offer`, an HTTP response), an idle stream's change is written straight from the
 * publisher's loop, without waking the stream's fiber; the fiber writes whatever had to wait.
 *
 * How it ends:
 * - the client cancels (stdio `notifications/cancelled`, HTTP closing the stream) or goes away: the
 *   request's fiber is interrupted, the scope unregisters the stream, nothing more is written;
 * - the transport ends it (EOF, shutdown) with {@link Streams.closeAll}: the changes already
 *   queued are written, then the request is answered with the `SubscriptionsListenResult`;
 * - the queue overflows under `"close"`: the request is answered with a -32603 error, so the
 *   client knows it missed changes and should listen again.
 *
 * On stdio, where every stream shares one channel, the transport writes {@link cancelledFrame}
 * after that answer: the server's `notifications/cancelled` is what ends a stream there.
 *
 * @since 0.1.0
 */
import type { Effect } from "effect"
import * as Encoder from "@snodo/protocol/jsonrpc/Encoder"
import * as Methods from "@snodo/protocol/methods/Methods"
import type { RequestId } from "@snodo/protocol/jsonrpc/Envelope"
import { InternalError, type McpError } from "@snodo/protocol/jsonrpc/McpError"
import * as LazyModule from "../pipeline/internal/LazyModule.ts"
import { idValue, subscriptionMeta } from "./internal/ListenModel.ts"
import { listenStream } from "./internal/ListenStreamModule.ts"
import type { End, Input, Limits, Streams, Support } from "./internal/ListenModel.ts"

export { DroppedKey, idValue } from "./internal/ListenModel.ts"
export type { End, ExtensionFilter, Input, Limits, ListenFilter, Overflow, Streams, Support } from "./internal/ListenModel.ts"

/**
 * Defaults: 64 queued changes or 1 Mi characters of them, drop-oldest, 1,000 URIs.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultLimits: Limits = { queue: 64, queueBytes: 1024 * 1024, overflow: "drop-oldest", maxResourceSubscriptions: 1000 }

/**
 * Characters the open streams of one transport may hold in their filters together by default
 * (32 Mi): a stream holds its subscribed URIs for its lifetime. @since 0.1.0
 */
export const defaultStreamBytes = 32 * 1024 * 1024

/**
 * Open streams per stdio connection by default.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultStdioStreams = 32
/**
 * Open streams per HTTP server by default.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultHttpStreams = 256

/**
 * What the advertised capabilities promise (each key's capability flag is the method table's
 * `declaredBy`, which the client reads too).
 *
 * @category combinators
 * @since 0.1.0
 */
export const supportOf = (capabilities: Readonly<Record<string, unknown>>): Support => ({
  toolsListChanged: Methods.declaresListenKey(capabilities, "toolsListChanged"),
  promptsListChanged: Methods.declaresListenKey(capabilities, "promptsListChanged"),
  resourcesListChanged: Methods.declaresListenKey(capabilities, "resourcesListChanged"),
  resourceSubscriptions: Methods.declaresListenKey(capabilities, "resourceSubscriptions")
})

/**
 * A transport's streams, at most `limit` open at once.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeStreams = (limit: number, maxBytes: number = defaultStreamBytes, paceMillis = 0): Streams => {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`the listen stream limit must be a non-negative integer, got ${limit}`)
  const open = new Set<() => void>()
  let bytesHeld = 0
  let closing = false
  return {
    limit,
    maxBytes,
    paceMillis,
    open: () => open.size,
    acquire: (onClose, bytes = 0) => {
      if (closing) return "closing"
      if (open.size >= limit) return "full"
      if (bytesHeld + bytes > maxBytes) return "over-budget"
      bytesHeld += bytes
      const entry = () => onClose()
      open.add(entry)
      return () => {
        if (open.delete(entry)) bytesHeld -= bytes
      }
    },
    closeAll: () => {
      closing = true
      for (const close of open) close()
    }
  }
}

/**
 * The result answering a stream the server ended gracefully (before shaping).
 *
 * @category combinators
 * @since 0.1.0
 */
export const closedResult = (id: RequestId): Record<string, unknown> => ({ _meta: subscriptionMeta(id) })

/**
 * The `notifications/cancelled` that ends a stream on a shared channel (stdio).
 *
 * @category combinators
 * @since 0.1.0
 */
export const cancelledFrame = (id: RequestId, reason: string): string =>
  Encoder.notification("notifications/cancelled", { _meta: subscriptionMeta(id), requestId: idValue(id), reason })

/**
 * The error answering a stream closed on overflow.
 *
 * @category combinators
 * @since 0.1.0
 */
export const overflowError = (queue: number): InternalError =>
  new InternalError({
    message: "Subscription closed: the client did not keep up with its notifications",
    data: { reason: "overflow", queue }
  })


/**
 * Serves one stream until the server ends it (the client ending it interrupts this effect). Fails
 * before the acknowledgement only: -32602 for a bad filter, -32021 for an extension's key the
 * request did not negotiate, -32603 when no place is free.
 *
 * @category combinators
 * @since 0.1.0
 */
export const run = (input: Input): Effect.Effect<End, McpError> => LazyModule.use(listenStream, (Stream) => Stream.run(input))
