/**
 * The source of the changes `subscriptions/listen` streams deliver: list changes of tools, prompts
 * and resources, and updates of individual resources.
 *
 * Handlers (or anything else in the application) `publish` a {@link Change}; every open listen
 * stream whose honoured filter asked for that kind of change (and, for `resources/updated`, that
 * URI) receives it. Delivery into a stream is synchronous and never blocks: each stream owns a
 * bounded queue with its own overflow policy, so one slow client cannot hold up a publisher.
 *
 * `layerMemory` routes within one process. The service is two operations so that a cross-instance
 * implementation (a broker, PostgreSQL `LISTEN/NOTIFY`) can replace it by Layer: `publish` sends to
 * the broker, and the broker's messages are handed to the local subscribers registered through
 * `subscribe`. Providing any hub is what makes a server advertise `listChanged` and
 * `resources.subscribe`.
 *
 * Extensions publish {@link Topic} changes (a task's status, say): a stream receives one when it
 * subscribed to the topic and, when the change names a principal, only if it is that principal's.
 *
 * Every subscriber carries the principal that opened its stream; `visible` is the memory hub's
 * seam for any further per-principal view of changes.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { McpServer, SubscriptionHub } from "@snodo/core"
 *
 * const reload = Tool.make("reload", { input: Schema.Struct({}) }, () =>
 *   SubscriptionHub.publish(SubscriptionHub.toolsListChanged).pipe(Effect.as("reloaded")))
 *
 * const Runtime = McpServer.make({ name: "demo", version: "1.0.0" }).add(reload).layer.pipe(
 *   Layer.provideMerge(SubscriptionHub.layerMemory())
 * )
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, type Scope } from "effect"
import type { Principal } from "./Principal.ts"

/**
 * A change on an extension's topic: delivered as the notification `method` with `params` (plus the
 * stream's subscription id) to the streams that subscribed to `topic` and belong to `principal`
 * (any stream, when `principal` is `undefined`). A stream never coalesces topic changes.
 *
 * @category models
 * @since 0.1.0
 */
export interface Topic {
  readonly _tag: "Topic"
  readonly topic: string
  readonly method: string
  readonly params: Readonly<Record<string, unknown>>
  readonly principal: string | undefined
}

/**
 * One change a listen stream can deliver.
 *
 * @category models
 * @since 0.1.0
 */
export type Change =
  | { readonly _tag: "ToolsListChanged" }
  | { readonly _tag: "PromptsListChanged" }
  | { readonly _tag: "ResourcesListChanged" }
  | { readonly _tag: "ResourceUpdated"; readonly uri: string }
  | Topic

/**
 * `notifications/tools/list_changed`.
 *
 * @category constants
 * @since 0.1.0
 */
export const toolsListChanged: Change = { _tag: "ToolsListChanged" }
/**
 * `notifications/prompts/list_changed`.
 *
 * @category constants
 * @since 0.1.0
 */
export const promptsListChanged: Change = { _tag: "PromptsListChanged" }
/**
 * `notifications/resources/list_changed`.
 *
 * @category constants
 * @since 0.1.0
 */
export const resourcesListChanged: Change = { _tag: "ResourcesListChanged" }
/**
 * `notifications/resources/updated` for `uri`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const resourceUpdated = (uri: string): Change => ({ _tag: "ResourceUpdated", uri })

/**
 * A change on an extension's topic (see {@link Topic}).
 *
 * @category combinators
 * @since 0.1.0
 */
export const topic = (options: Omit<Topic, "_tag">): Change => ({ _tag: "Topic", ...options })

/**
 * What one stream receives: the filter the server honoured, normalized.
 *
 * @category models
 * @since 0.1.0
 */
export interface Filter {
  readonly toolsListChanged: boolean
  readonly promptsListChanged: boolean
  readonly resourcesListChanged: boolean
  readonly resourceSubscriptions: ReadonlySet<string>
  /** Extension topics (see {@link Topic}). */
  readonly topics: ReadonlySet<string>
}

/**
 * Whether a stream with this filter asked for this change.
 *
 * @category combinators
 * @since 0.1.0
 */
export const matches = (filter: Filter, change: Change): boolean => {
  switch (change._tag) {
    case "ToolsListChanged":
      return filter.toolsListChanged
    case "PromptsListChanged":
      return filter.promptsListChanged
    case "ResourcesListChanged":
      return filter.resourcesListChanged
    case "ResourceUpdated":
      return filter.resourceSubscriptions.has(change.uri)
    case "Topic":
      return filter.topics.has(change.topic)
  }
}

/**
 * One open listen stream, as the hub sees it.
 *
 * @category models
 * @since 0.1.0
 */
export interface Subscriber {
  readonly filter: Filter
  /** Who opened the stream (the seam for per-principal filtering). */
  readonly principal: Principal["Service"]
  /** Hands a matching change to the stream; synchronous, never blocks, never fails. */
  readonly deliver: (change: Change) => void
}

/**
 * Whether a subscriber receives a change: it asked for it, and a topic change for one principal
 * goes to that principal's streams only. Every hub delivers by this rule.
 *
 * @category combinators
 * @since 0.1.0
 */
export const accepts = (subscriber: Subscriber, change: Change): boolean =>
  matches(subscriber.filter, change) &&
  (change._tag !== "Topic" || change.principal === undefined || change.principal === subscriber.principal.id)

/**
 * @category services
 * @since 0.1.0
 */
export class SubscriptionHub extends Context.Service<SubscriptionHub, {
  /** Delivers a change to every subscriber that asked for it. */
  readonly publish: (change: Change) => Effect.Effect<void>
  /** Registers a subscriber until the scope closes. */
  readonly subscribe: (subscriber: Subscriber) => Effect.Effect<void, never, Scope.Scope>
}>()("@snodo/core/SubscriptionHub") {
  /** Publishes through the hub in context. */
  static readonly publish = (change: Change): Effect.Effect<void, never, SubscriptionHub> =>
    SubscriptionHub.use((hub) => hub.publish(change))
}

/**
 * Options of the in-memory hub.
 *
 * @category models
 * @since 0.1.0
 */
export interface MemoryOptions {
  /**
   * Whether a subscriber may see a change (default: always). The seam for filtering by
   * principal: it runs once per matching subscriber and publish, so keep it cheap.
   */
  readonly visible?: (principal: Principal["Service"], change: Change) => boolean
}

/**
 * The in-memory hub, with the number of subscribers for tests and metrics.
 *
 * @category models
 * @since 0.1.0
 */
export type MemoryHub = SubscriptionHub["Service"] & { readonly size: () => number }

/**
 * An in-memory hub for one process.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeMemory = (options?: MemoryOptions): MemoryHub => {
  const subscribers = new Set<Subscriber>()
  const visible = options?.visible
  return {
    publish: (change) =>
      Effect.sync(() => {
        for (const subscriber of subscribers) {
          if (!accepts(subscriber, change)) continue
          if (visible !== undefined && !visible(subscriber.principal, change)) continue
          subscriber.deliver(change)
        }
      }),
    subscribe: (subscriber) =>
      Effect.acquireRelease(
        Effect.sync(() => void subscribers.add(subscriber)),
        () => Effect.sync(() => void subscribers.delete(subscriber))
      ),
    size: () => subscribers.size
  }
}

/**
 * The in-memory hub as a Layer.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerMemory = (options?: MemoryOptions): Layer.Layer<SubscriptionHub> =>
  Layer.sync(SubscriptionHub, () => makeMemory(options))

/**
 * Publishes a change through the hub in context (the module-level form of
 * `SubscriptionHub.publish`).
 *
 * @category constants
 * @since 0.1.0
 */
export const publish = SubscriptionHub.publish
