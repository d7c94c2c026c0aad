/**
 * The sliding `PubSub` behind `McpEvents.make`, loaded by its `import()` when a hub is made: a
 * server without one does not load Effect's `PubSub` and `Stream` modules (with `Channel`, `Sink`
 * and `Queue`) for it.
 *
 * @internal
 */
import { Effect, PubSub, type Scope, Stream } from "effect"

/** A hub of `A`s: publish without blocking (the oldest dropped past `capacity`), subscribe, or stream. */
export interface Hub<A> {
  readonly publish: (event: A) => void
  readonly subscribe: Effect.Effect<PubSub.Subscription<A>, never, Scope.Scope>
  readonly stream: Stream.Stream<A>
}

/** A hub over a sliding `PubSub` of `capacity`. */
export const make = <A>(capacity: number): Effect.Effect<Hub<A>> =>
  Effect.map(PubSub.sliding<A>(capacity), (pubsub) => ({
    publish: (event) => {
      PubSub.publishUnsafe(pubsub, event)
    },
    subscribe: PubSub.subscribe(pubsub),
    stream: Stream.fromPubSub(pubsub)
  }))
