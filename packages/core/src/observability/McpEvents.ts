/**
 * A typed stream of what the server does, for audit logs and dashboards: requests starting and
 * stopping, refusals with their reason, listen streams opening and closing, limits being hit.
 *
 * The server publishes only when the application provides this service where the server's
 * Layer is built, so an application that does not subscribe pays nothing. Events go through a
 * sliding `PubSub` (default capacity 4,096): a subscriber that falls behind loses the oldest
 * events instead of slowing the server down.
 *
 * Every request that reaches the pipeline is a `RequestStart` followed by exactly one
 * `RequestStop` (a result, an error answer, or cancelled) or `RequestException` (a defect of a
 * handler, answered with a generic -32603). A refusal (a bound, a rate limit, authorization at
 * invocation) is a `Refusal` just before its `RequestStop`.
 *
 * @example
 * ```ts
 * import { Effect, Layer, Stream } from "effect"
 * import * as McpEvents from "@snodo/core/McpEvents"
 *
 * // An audit log of refusals.
 * const audit = Effect.gen(function*() {
 *   const events = yield* McpEvents.McpEvents
 *   yield* events.stream.pipe(
 *     Stream.filter((event) => event._tag === "Refusal"),
 *     Stream.runForEach((event) => Effect.log(`refused ${event.method}: ${event.reason}`))
 *   )
 * })
 * const Events = McpEvents.layer() // provide it (Layer.provideMerge) to the server and to `audit`
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, type PubSub, type Scope, type Stream } from "effect"
import type { RequestId } from "@snodo/protocol/jsonrpc/Envelope"
import type { TransportKind } from "../runtime/McpRequest.ts"

/**
 * What every request event says about its request.
 *
 * @category models
 * @since 0.1.0
 */
export interface RequestFields {
  readonly id: RequestId
  readonly method: string
  /** The tool or prompt name, or the resource URI, when the method is about one. */
  readonly target: string | undefined
  readonly transport: TransportKind
  readonly principal: string
}

/**
 * @category models
 * @since 0.1.0
 */
export interface RequestStart extends RequestFields {
  readonly _tag: "RequestStart"
}

/**
 * The request was answered (`error` set for an error answer), or cancelled.
 *
 * @category models
 * @since 0.1.0
 */
export interface RequestStop extends RequestFields {
  readonly _tag: "RequestStop"
  readonly outcome: "result" | "error" | "cancelled"
  readonly durationMillis: number
  /** The JSON-RPC error code of an error answer. */
  readonly code?: number
}

/**
 * A handler died (a defect); the client got a generic -32603.
 *
 * @category models
 * @since 0.1.0
 */
export interface RequestException extends RequestFields {
  readonly _tag: "RequestException"
  readonly durationMillis: number
  readonly code: number
}

/**
 * A request refused before its handler ran: a concurrency or queue bound (`"busy"`), a rate
 * limit (`"rate-limited"`), or the authorization policy at invocation (`"forbidden"`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Refusal extends RequestFields {
  readonly _tag: "Refusal"
  readonly reason: "busy" | "rate-limited" | "forbidden"
  readonly code: number
}

/**
 * A `subscriptions/listen` stream was acknowledged.
 *
 * @category models
 * @since 0.1.0
 */
export interface ListenOpen {
  readonly _tag: "ListenOpen"
  readonly id: RequestId
  readonly principal: string
}

/**
 * A listen stream ended: the client left, the server closed it, or it overflowed.
 *
 * @category models
 * @since 0.1.0
 */
export interface ListenClose {
  readonly _tag: "ListenClose"
  readonly id: RequestId
  readonly principal: string
  readonly reason: "client" | "server" | "overflow"
}

/**
 * A limit refused or dropped something: `"listen-streams"` (no place for a stream),
 * `"listen-queue"` (a slow stream dropped changes; `count` of them), `"progress"` (progress
 * reports past a request's limit were dropped).
 *
 * @category models
 * @since 0.1.0
 */
export interface LimitHit {
  readonly _tag: "LimitHit"
  readonly limit: "listen-streams" | "listen-queue" | "progress"
  readonly id: RequestId
  readonly count: number
}

/**
 * @category models
 * @since 0.1.0
 */
export type McpEvent = RequestStart | RequestStop | RequestException | Refusal | ListenOpen | ListenClose | LimitHit

/**
 * @category services
 * @since 0.1.0
 */
export class McpEvents extends Context.Service<McpEvents, {
  /** Publishes an event (never blocks: the oldest is dropped when a subscriber is behind). */
  readonly publish: (event: McpEvent) => void
  /** A subscription for the current scope: events published from now on. */
  readonly subscribe: Effect.Effect<PubSub.Subscription<McpEvent>, never, Scope.Scope>
  /** The events published from the moment the stream runs. */
  readonly stream: Stream.Stream<McpEvent>
}>()("@snodo/core/McpEvents") {}

/**
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Events a subscriber may fall behind by before the oldest are dropped (default 4,096). */
  readonly capacity?: number
}

/**
 * An event hub over a sliding `PubSub`. Effect's `PubSub` and `Stream` modules are loaded when a
 * hub is made, not by every server that loads `@snodo/core`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options = {}): Effect.Effect<McpEvents["Service"]> =>
  Effect.flatMap(Effect.promise(() => import("./internal/EventHub.ts")), (EventHub) => EventHub.make<McpEvent>(options.capacity ?? 4096))

/**
 * Provides {@link McpEvents}: give it to the server's Layer and to whatever subscribes (for
 * instance with `Layer.provideMerge`).
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: Options): Layer.Layer<McpEvents> => Layer.effect(McpEvents, make(options))
