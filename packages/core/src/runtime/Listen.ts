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
 * its streams ({@link Streams.paceMillis}; HTTP does): after writing what waited, a stream rests
 * that long, so a publisher's rate makes at most one batch of writes per stream and interval, the
 * repeated changes of the interval coalesced.
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
import { Deferred, Effect, Exit } from "effect"
import * as Encoder from "@snodo/protocol/jsonrpc/Encoder"
import type { RequestId } from "@snodo/protocol/jsonrpc/Envelope"
import { InternalError, InvalidParams, type McpError, ServerBusy } from "@snodo/protocol/jsonrpc/McpError"
import { SubscriptionIdKey } from "@snodo/protocol/wire/Meta"
import * as Negotiation from "../pipeline/Negotiation.ts"
import type { SubscriptionFilter } from "@snodo/protocol/wire/Notifications"
import type { ListenObserver } from "./internal/Observers.ts"
import type { Principal } from "./Principal.ts"
import * as Mailbox from "@snodo/protocol/peer/Mailbox"
import type { RequestSink } from "@snodo/protocol/peer/RequestSink"
import type { Change, Filter, SubscriptionHub } from "./SubscriptionHub.ts"

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

const flag = (capabilities: Readonly<Record<string, unknown>>, name: string, key: string): boolean => {
  const capability = capabilities[name]
  return typeof capability === "object" && capability !== null && (capability as Record<string, unknown>)[key] === true
}

/**
 * What the advertised capabilities promise.
 *
 * @category combinators
 * @since 0.1.0
 */
export const supportOf = (capabilities: Readonly<Record<string, unknown>>): Support => ({
  toolsListChanged: flag(capabilities, "tools", "listChanged"),
  promptsListChanged: flag(capabilities, "prompts", "listChanged"),
  resourcesListChanged: flag(capabilities, "resources", "listChanged"),
  resourceSubscriptions: flag(capabilities, "resources", "subscribe")
})

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
   * The least time between two writes of one stream, in milliseconds (0: none): changes published
   * meanwhile wait in its queue, where repeated ones coalesce, and leave together. It bounds the
   * work one publisher makes per stream, whatever its rate.
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
 * How a stream ended when the server ended it.
 *
 * @category models
 * @since 0.1.0
 */
export type End =
  | { readonly _tag: "Graceful" }
  | { readonly _tag: "Overflow"; readonly queue: number }

/** What coalesces in a queue: a change already waiting is not queued twice. Topic changes never coalesce. */
const keyOf = (change: Change): string | undefined => {
  switch (change._tag) {
    case "ToolsListChanged":
      return "t"
    case "PromptsListChanged":
      return "p"
    case "ResourcesListChanged":
      return "r"
    case "ResourceUpdated":
      return `u:${change.uri}`
    case "Topic":
      return undefined
  }
}

/** What a queued change costs (its URI; a topic's params are not measured), in characters. */
const sizeOf = (change: Change): number =>
  change._tag === "ResourceUpdated" ? change.uri.length + 64 : change._tag === "Topic" ? change.method.length + 256 : 64

/**
 * The bounded, coalescing queue of one stream: the peer layer's mailbox with the stream's limits.
 * `offer` is synchronous and never blocks (the hub delivers from the publisher's fiber), and it
 * wakes the stream's fiber at once, so a change published before a handler answers is written
 * before that answer.
 */
const mailboxOf = (limits: Limits): Mailbox.Mailbox<Change> =>
  Mailbox.makeUnsafe({
    capacity: limits.queue,
    maxChars: limits.queueBytes,
    charsOf: sizeOf,
    coalesce: keyOf,
    overflow: limits.overflow
  })

const rawJSON = (JSON as unknown as { readonly rawJSON: (text: string) => unknown }).rawJSON

/**
 * A request id as a JSON value (an int64 beyond the safe range keeps its digits).
 *
 * @category combinators
 * @since 0.1.0
 */
export const idValue = (id: RequestId): unknown => typeof id === "bigint" ? rawJSON(id.toString()) : id

const subscriptionMeta = (id: RequestId) => ({ [SubscriptionIdKey]: idValue(id) })

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

const changeFrame = (change: Change, meta: Record<string, unknown>): string => {
  switch (change._tag) {
    case "ToolsListChanged":
      return Encoder.notification("notifications/tools/list_changed", { _meta: meta })
    case "PromptsListChanged":
      return Encoder.notification("notifications/prompts/list_changed", { _meta: meta })
    case "ResourcesListChanged":
      return Encoder.notification("notifications/resources/list_changed", { _meta: meta })
    case "ResourceUpdated":
      return Encoder.notification("notifications/resources/updated", { _meta: meta, uri: change.uri })
    case "Topic":
      return Encoder.notification(change.method, { ...change.params, _meta: meta })
  }
}

/** The honoured subset of a requested filter: for the hub, and as acknowledged on the wire. */
const honour = (requested: SubscriptionFilter, support: Support) => {
  const tools = requested.toolsListChanged === true && support.toolsListChanged
  const prompts = requested.promptsListChanged === true && support.promptsListChanged
  const resources = requested.resourcesListChanged === true && support.resourcesListChanged
  const uris = support.resourceSubscriptions ? [...new Set(requested.resourceSubscriptions ?? [])] : []
  const acknowledged: Record<string, unknown> = {}
  if (tools) acknowledged["toolsListChanged"] = true
  if (prompts) acknowledged["promptsListChanged"] = true
  if (resources) acknowledged["resourcesListChanged"] = true
  if (uris.length > 0) acknowledged["resourceSubscriptions"] = uris
  return {
    acknowledged,
    toolsListChanged: tools,
    promptsListChanged: prompts,
    resourcesListChanged: resources,
    resourceSubscriptions: new Set(uris)
  }
}

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

/** The topics and acknowledgements of the extensions' keys present in the request. */
const honourExtensions = (input: Input) =>
  Effect.gen(function*() {
    const topics = new Set<string>()
    const acknowledged: Record<string, unknown> = {}
    for (const filter of input.filters) {
      const value = input.requested[filter.key]
      if (value === undefined) continue
      if (!input.negotiated(filter.extension)) return yield* Negotiation.required(filter.extension)
      const honoured = yield* filter.honour(value, input.principal)
      for (const topic of honoured.topics) topics.add(topic)
      acknowledged[filter.key] = honoured.acknowledged
    }
    return { topics, acknowledged }
  })

/**
 * Serves one stream until the server ends it (the client ending it interrupts this effect). Fails
 * before the acknowledgement only: -32602 for a bad filter, -32021 for an extension's key the
 * request did not negotiate, -32603 when no place is free.
 *
 * @category combinators
 * @since 0.1.0
 */
export const run = Effect.fnUntraced(function*(input: Input): Effect.fn.Return<End, McpError> {
  const max = input.limits.maxResourceSubscriptions
  if ((input.decoded.resourceSubscriptions?.length ?? 0) > max) {
    return yield* new InvalidParams({ message: `Invalid params: at most ${max} resourceSubscriptions per stream` })
  }
  const extensions = yield* honourExtensions(input)
  const sink = input.sink
  if (sink === undefined) return yield* new InternalError({ message: "This transport cannot hold a subscription stream" })
  const mailbox = mailboxOf(input.limits)
  // Completes on an overflow under "close": a write that is stuck must not hide it.
  const overflowed = Deferred.makeUnsafe<End>()
  const overflow: End = { _tag: "Overflow", queue: input.limits.queue }
  const deliver = (change: Change): void => {
    if (mailbox.offer(change) === "overflow") Deferred.doneUnsafe(overflowed, Exit.succeed(overflow))
  }
  const held = (input.decoded.resourceSubscriptions ?? []).reduce((sum, uri) => sum + uri.length, 0)
  const release = input.streams.acquire(() => mailbox.end(), held)
  const observer = input.observer
  if (release === "full" || release === "over-budget") observer?.full()
  if (release === "full") {
    return yield* new ServerBusy({
      message: "Server busy: too many open subscriptions",
      data: { retryable: true, limit: input.streams.limit }
    })
  }
  if (release === "over-budget") {
    return yield* new ServerBusy({
      message: "Server busy: open subscriptions hold too many resource URIs",
      data: { retryable: true, limit: input.streams.maxBytes }
    })
  }
  if (release === "closing") return yield* new InternalError({ message: "Server shutting down", data: { retryable: true } })
  const id = input.id
  const meta = subscriptionMeta(id)
  // The transport is gone (closed connection, ended response): stop without writing anything.
  const write = (frame: string) => Effect.catchTag(sink.write(frame), "SinkClosed", () => Effect.interrupt)
  const { acknowledged, ...honoured } = honour(input.decoded, input.support)
  const filter: Filter = { ...honoured, topics: extensions.topics }
  // Under "drop-oldest" nothing ends a stream from the mailbox's side, so a write needs no race.
  const closesOnOverflow = input.limits.overflow === "close"
  const pace = input.streams.paceMillis
  return yield* Effect.scoped(Effect.gen(function*() {
    yield* Effect.addFinalizer(() => Effect.sync(release))
    // Registered before the acknowledgement: a change published meanwhile waits in the queue.
    yield* input.hub.subscribe({ filter, principal: input.principal, deliver })
    const notifications = { ...acknowledged, ...extensions.acknowledged }
    yield* write(Encoder.notification("notifications/subscriptions/acknowledged", { _meta: meta, notifications }))
    // Until the stream ends itself, an end is the client's (it cancelled, or went away).
    let ending: "client" | "server" | "overflow" = "client"
    if (observer !== undefined) {
      observer.opened()
      yield* Effect.addFinalizer(() => Effect.sync(() => observer.closed(ending)))
    }
    for (;;) {
      const change = yield* Effect.orElseSucceed(mailbox.take, () => undefined)
      if (change === undefined) {
        // The mailbox ended (the transport ends every stream) or shut down (an overflow under "close").
        const end: End = Deferred.isDoneUnsafe(overflowed) ? overflow : { _tag: "Graceful" }
        ending = end._tag === "Overflow" ? "overflow" : "server"
        return end
      }
      const dropped = mailbox.takeDropped()
      if (dropped > 0) {
        observer?.dropped(dropped)
        yield* Effect.logWarning("subscription stream dropped changes: the client is not keeping up").pipe(
          Effect.annotateLogs({ subscriptionId: String(id), dropped })
        )
      }
      const written = write(changeFrame(change, dropped > 0 ? { ...meta, [DroppedKey]: dropped } : meta))
      // Paced: once what waited is written, the stream rests; changes published meanwhile coalesce.
      const frame = pace > 0 ? Effect.andThen(written, Effect.suspend(() => mailbox.waiting() === 0 ? Effect.sleep(pace) : Effect.void)) : written
      if (!closesOnOverflow) {
        yield* frame
        continue
      }
      // A client that stopped reading leaves this write waiting; an overflow (close policy) ends it.
      const ended = yield* Effect.raceFirst(Effect.as(frame, undefined), Deferred.await(overflowed))
      if (ended !== undefined) {
        ending = "overflow"
        return ended
      }
    }
  }))
})

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
