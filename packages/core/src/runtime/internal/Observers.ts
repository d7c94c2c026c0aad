/**
 * What the runtime's services report to whoever observes the server (the server floor's
 * instrumentation: spans, metrics, events): a listen stream's life and a request's progress
 * reports. The services depend on these interfaces only, never on the instrumentation itself.
 *
 * @since 0.1.0
 */
import type { RequestId } from "@snodo/protocol/jsonrpc/Envelope"

/**
 * What a listen stream reports.
 *
 * @category models
 * @since 0.1.0
 */
export interface ListenObserver {
  readonly opened: () => void
  readonly closed: (reason: "client" | "server" | "overflow") => void
  readonly dropped: (count: number) => void
  readonly full: () => void
}

/**
 * What a request's progress reporter reports.
 *
 * @category models
 * @since 0.1.0
 */
export interface ProgressObserver {
  readonly reported: () => void
  readonly limited: () => void
}

/**
 * The observers of one server, made per stream and per request.
 *
 * @category models
 * @since 0.1.0
 */
export interface Observers {
  /** An observer of one listen stream. */
  readonly listen: (id: RequestId, principal: string) => ListenObserver
  /** An observer of one request's progress reports. */
  readonly progress: (id: RequestId) => ProgressObserver
}
