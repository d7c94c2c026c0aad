/**
 * What a transport knows about one request, handed to the pipeline with it: the transport's kind,
 * where request-scoped notifications go, its listen streams, its initialize-era session, the
 * trace context it received beside the message.
 *
 * @since 0.1.0
 */
import type { Context, Tracer } from "effect"
import type * as Listen from "./Listen.ts"
import type { TransportKind } from "./McpRequest.ts"
import type { Principal } from "./Principal.ts"
import type { RequestSink } from "@snodo/protocol/peer/RequestSink"
import type { Session } from "./Session.ts"

/**
 * @category models
 * @since 0.1.0
 */
export interface RequestContext {
  readonly transport: TransportKind
  /** Where request-scoped notifications go; `undefined` when the transport cannot deliver them. */
  readonly sink: RequestSink | undefined
  /**
   * The transport's open `subscriptions/listen` streams and their cap (a stdio connection, an
   * HTTP server). Without it, the runtime's own streams apply (capped at 32).
   */
  readonly subscriptions?: Listen.Streams
  /**
   * The initialize-era session the request belongs to (a stdio connection, an HTTP session), when
   * the transport keeps one: admission reads the version of a request without `_meta` from it.
   */
  readonly session?: Session
  /**
   * The W3C `traceparent` / `tracestate` the transport received beside the message (HTTP
   * headers): the request's span is their child when its `_meta` carries none.
   */
  readonly traceparent?: string | undefined
  readonly tracestate?: string | undefined
  /**
   * Who sent the request, when the transport knows it: the `Principal` of the services the
   * request's fiber would run with. With it, `ServerRuntime.handle` runs the pipeline's steps as
   * soon as it is called, and a request that completes without suspending comes back as an `Exit`
   * the transport answers without a fiber; without it, the principal is read in the fiber.
   */
  readonly principal?: Principal["Service"] | undefined
  /**
   * The services the request's fiber would run with, when the transport knows them (with
   * `principal`, which is theirs). With them an observed request is answered without a fiber
   * too: its span's parent, its clock and the client's address (a `client.address` log
   * annotation) are read from them, as the fiber would read them; without them, an observed
   * request runs in a fiber.
   */
  readonly services?: Context.Context<never> | undefined
  /**
   * The request's span, when the runtime traces it (set by its instrumentation, not by
   * transports): the parent of the handler's spans, and what a task created here links to.
   */
  readonly span?: Tracer.Span | undefined
}

