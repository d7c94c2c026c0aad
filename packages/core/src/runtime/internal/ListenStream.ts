/**
 * One `subscriptions/listen` stream served (`Listen.run`): its queue, frames and writes. Loaded by
 * the `import()` of internal/ListenStreamModule when a runtime with a hub is built (or at
 * `Listen.run`'s first stream without one), so a server that does not serve listen does not load
 * (parse) it.
 *
 * @internal
 */
import { Clock, Deferred, Effect, Exit } from "effect"
import * as Encoder from "@snodo/protocol/jsonrpc/Encoder"
import { InternalError, InvalidParams, type McpError, ServerBusy } from "@snodo/protocol/jsonrpc/McpError"
import * as Negotiation from "../../pipeline/Negotiation.ts"
import type { SubscriptionFilter } from "@snodo/protocol/wire/Notifications"
import * as Mailbox from "@snodo/protocol/peer/Mailbox"
import type { RequestSink } from "@snodo/protocol/peer/RequestSink"
import type { Change, Filter } from "../SubscriptionHub.ts"
import { DroppedKey, type End, type Input, type Limits, subscriptionMeta, type Support } from "./ListenModel.ts"

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

/** Serves one stream (`Listen.run`). */
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
