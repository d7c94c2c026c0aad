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
import { Clock, Deferred, Effect, Exit } from "effect"
import * as Encoder from "@snodo/protocol/jsonrpc/Encoder"
import * as Methods from "@snodo/protocol/methods/Methods"
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

const encodeChange = (change: Change, meta: unknown): string => {
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

/** A change's frame around its `_meta` value (the one part that differs from stream to stream). */
interface Template {
  readonly head: string
  readonly tail: string
}

const marker = "\u0000"
const markerJson = JSON.stringify(marker)
/** `null`: the change is encoded per stream (a topic whose params carry a `_meta` of their own). */
const templates = new WeakMap<Change, Template | null>()

/**
 * The template of a change, encoded once for every stream the change reaches (the hub hands the
 * same object to each): one change to 1,000 streams is one `JSON.stringify`, not 1,000.
 */
const templateOf = (change: Change): Template | null => {
  const known = templates.get(change)
  if (known !== undefined) return known
  let template: Template | null = null
  if (change._tag !== "Topic" || !Object.hasOwn(change.params, "_meta")) {
    const frame = encodeChange(change, marker)
    // `_meta` is a list change's first param, and a topic's last.
    const at = change._tag === "Topic" ? frame.lastIndexOf(markerJson) : frame.indexOf(markerJson)
    if (at >= 0) template = { head: frame.slice(0, at), tail: frame.slice(at + markerJson.length) }
  }
  templates.set(change, template)
  return template
}

/** A change's frame for a stream whose `_meta` is `meta`, encoded as `metaJson`. */
const changeFrame = (change: Change, meta: Record<string, unknown>, metaJson: string): string => {
  const template = templateOf(change)
  return template === null ? encodeChange(change, meta) : template.head + metaJson + template.tail
}

/**
 * A synchronous write from the publisher's loop: a transport that throws must not stop the loop
 * (the other streams' deliveries); the change then takes the fiber's way, where a throw ends only
 * this stream.
 */
const offerContained = (offer: NonNullable<RequestSink["offer"]>, frame: string, written: () => void): boolean => {
  try {
    return offer(frame, written)
  } catch {
    return false
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
  const queue = (change: Change): void => {
    if (mailbox.offer(change) === "overflow") Deferred.doneUnsafe(overflowed, Exit.succeed(overflow))
  }
  const held = (input.decoded.resourceSubscriptions ?? []).reduce((sum, uri) => sum + uri.length, 0)
  // Set once the transport ends every stream: the queue is written without resting first.
  let closing = false
  const release = input.streams.acquire(() => {
    closing = true
    mailbox.end()
  }, held)
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
  const metaJson = JSON.stringify(meta)
  // The transport is gone (closed connection, ended response): stop without writing anything.
  const write = (frame: string) => Effect.catchTag(sink.write(frame), "SinkClosed", () => Effect.interrupt)
  const { acknowledged, ...honoured } = honour(input.decoded, input.support)
  const filter: Filter = { ...honoured, topics: extensions.topics }
  // Under "drop-oldest" nothing ends a stream from the mailbox's side, so a write needs no race.
  const closesOnOverflow = input.limits.overflow === "close"
  const pace = input.streams.paceMillis
  const clock = yield* Clock.Clock
  // Paced: the stream rests until then, from the end of its last write; 0 when it never wrote.
  let restUntil = 0
  // The fast path of an idle stream: the change is written from the publisher's loop, without
  // waking the stream's fiber (which stays parked on its empty queue), when the transport can
  // write synchronously, the acknowledgement is out, nothing waits or is being written, and the
  // stream is not resting. Everything else queues, and the fiber writes it in order.
  const offer = sink.offer?.bind(sink)
  let live = false
  let writing = 0
  // The fiber waiting for a direct write to be taken before it takes the next change: at most one
  // change is with the transport and not yet taken, whichever way it went.
  let directWaiter: ((effect: Effect.Effect<void>) => void) | undefined
  const directWritten = () => {
    writing--
    if (pace > 0) restUntil = clock.currentTimeMillisUnsafe() + pace
    const waiter = directWaiter
    directWaiter = undefined
    waiter?.(Effect.void)
  }
  const directTaken = Effect.callback<void>((resume) => {
    if (writing === 0) return resume(Effect.void)
    directWaiter = resume
    return Effect.sync(() => {
      directWaiter = undefined
    })
  })
  const deliver = (change: Change): void => {
    if (offer !== undefined && live && writing === 0 && mailbox.waiting() === 0 && mailbox.state() === "open") {
      const now = pace > 0 ? clock.currentTimeMillisUnsafe() : 0
      if (now >= restUntil) {
        writing++
        // Resting from now on: a change before this write is taken waits, as after it.
        const rested = restUntil
        if (pace > 0) restUntil = now + pace
        if (offerContained(offer, changeFrame(change, meta, metaJson), directWritten)) return
        writing--
        restUntil = rested
      }
    }
    queue(change)
  }
  return yield* Effect.scoped(Effect.gen(function*() {
    yield* Effect.addFinalizer(() => Effect.sync(release))
    // Registered before the acknowledgement: a change published meanwhile waits in the queue.
    yield* input.hub.subscribe({ filter, principal: input.principal, deliver })
    const notifications = { ...acknowledged, ...extensions.acknowledged }
    yield* write(Encoder.notification("notifications/subscriptions/acknowledged", { _meta: meta, notifications }))
    live = true
    // Until the stream ends itself, an end is the client's (it cancelled, or went away).
    let ending: "client" | "server" | "overflow" = "client"
    if (observer !== undefined) {
      observer.opened()
      yield* Effect.addFinalizer(() => Effect.sync(() => observer.closed(ending)))
    }
    for (;;) {
      // Paced, between batches: an idle stream waits for a change with no timer armed, and writes
      // it at once (leading edge); only a change that comes while the stream rests waits for the
      // end of the interval (trailing edge), the changes published meanwhile coalescing.
      if (pace > 0 && mailbox.waiting() === 0) {
        yield* mailbox.ready
        const rest = restUntil - clock.currentTimeMillisUnsafe()
        if (rest > 0 && !closing) {
          yield* closesOnOverflow ? Effect.raceFirst(Effect.sleep(rest), Deferred.await(overflowed)) : Effect.sleep(rest)
        }
      }
      // A change written from the publisher's loop and not yet taken (a transport that fell
      // behind) is the one this stream has with the transport: the next waits in the queue until
      // it is taken, as behind the fiber's own write.
      if (offer !== undefined) {
        yield* mailbox.ready
        if (writing > 0) yield* closesOnOverflow ? Effect.raceFirst(directTaken, Deferred.await(overflowed)) : directTaken
      }
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
      const frame = write(dropped > 0 ? encodeChange(change, { ...meta, [DroppedKey]: dropped }) : changeFrame(change, meta, metaJson))
      writing++
      if (!closesOnOverflow) {
        yield* frame
        writing--
      } else {
        // A client that stopped reading leaves this write waiting; an overflow (close policy) ends it.
        const ended = yield* Effect.raceFirst(Effect.as(frame, undefined), Deferred.await(overflowed))
        if (ended !== undefined) {
          ending = "overflow"
          return ended
        }
        writing--
      }
      if (pace > 0) restUntil = clock.currentTimeMillisUnsafe() + pace
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
