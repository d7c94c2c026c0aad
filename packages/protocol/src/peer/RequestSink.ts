/**
 * The seam between a request and its transport for request-scoped notifications (progress, log
 * messages). A transport that can deliver notifications alongside a response installs a sink;
 * `write` completes once the transport has taken the frame in order (stdio: accepted by its
 * serialized writer; HTTP: handed to the response stream), so whatever a handler sends before it
 * returns goes on the wire before its terminal response. A transport whose client stopped reading
 * makes `write` wait (bounded by the transport's own limits), never reorder.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { Effect } from "effect"

/**
 * The transport can no longer write for this request (closed connection, ended stream).
 *
 * @category errors
 * @since 0.1.0
 */
export class SinkClosed extends Schema.TaggedError<SinkClosed>()("SinkClosed", {
  message: Schema.String
}) {}

/**
 * @category models
 * @since 0.1.0
 */
export interface RequestSink {
  /** Writes one encoded JSON-RPC notification; completes once the transport took it, in order. */
  readonly write: (frame: string) => Effect.Effect<void, SinkClosed>
  /**
   * Hands one frame to the transport now, without a fiber, where the transport can (`FrameWriter`,
   * an HTTP exchange): a refusal written from a transport's input callback, an answer that completed
   * without suspending, a listen stream's change written from the publisher's loop to many sinks.
   * `written`, when given, is called once the transport took the frame, as `write` completes:
   * before `offer` returns when nothing has to wait. `false` (and `written` never called) when the
   * transport can no longer write (`write` then fails with {@link SinkClosed}). Without it, a
   * caller falls back to `write`.
   */
  readonly offer?: ((frame: string, written?: () => void) => boolean) | undefined
}
