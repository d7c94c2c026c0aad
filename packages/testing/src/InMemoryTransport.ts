/**
 * The in-memory transport: the client talks to a server Layer's `ServerRuntime` in the same
 * process, through the connection code the stdio transport uses (frames are encoded and decoded as
 * on the wire), without a process or a socket. For unit tests and for embedding a server.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { McpClient } from "@snodo/client"
 * import { InMemoryTransport } from "@snodo/testing"
 *
 * // ServerLayer: your McpServer layer (provides ServerRuntime)
 * const Client = McpClient.layer().pipe(Layer.provide(InMemoryTransport.layer), Layer.provide(ServerLayer))
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import * as Connection from "@snodo/core/transport/Connection"
import type { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import { type ClientTransport, Transport } from "@snodo/client/ClientTransport"

/**
 * A transport to the `ServerRuntime` in context; each `open` is a new connection.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: Effect.Effect<ClientTransport, never, ServerRuntime> = Effect.map(
  Effect.context<ServerRuntime>(),
  (context): ClientTransport => ({
    open: (receive) =>
      Effect.gen(function*() {
        const connection = yield* Connection.make({
          transport: "memory",
          sink: { write: (frame) => Effect.sync(() => receive(frame)) }
        })
        return { write: connection.receive, closed: Effect.never }
      }).pipe(Effect.provide(context))
  })
)

/**
 * {@link make} as the client's {@link Transport}.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<Transport, never, ServerRuntime> = Layer.effect(Transport, make)
