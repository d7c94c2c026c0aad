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
   * Accepts a frame without waiting, from outside any fiber (a refusal written from a transport's
   * input callback), where the transport can (`FrameWriter`); without it such a frame is written
   * from a fiber of its own.
   */
  readonly writeUnsafe?: ((frame: string) => void) | undefined
  /**
   * Writes one frame now, without a fiber, for a caller that has one frame for many sinks (a listen
   * stream's change, written from the publisher's loop): `written` is called once the transport
   * took it, as `write` completes; `false` when the transport can no longer write (`write` then
   * fails with {@link SinkClosed}). Optional (HTTP's exchanges have it): a caller falls back to
   * `write`.
   */
  readonly offer?: ((frame: string, written: () => void) => boolean) | undefined
}
