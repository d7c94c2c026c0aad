/**
 * A bounded queue of messages to the other side that no request waits for (an initialize-era
 * session's list changes and resource updates): at most `max` are waiting to be written at once,
 * and one beyond that is dropped, so a peer that stopped reading never holds the publisher.
 *
 * The queue counts; the transport writes (`write` calls `written` once the channel took the
 * frame). A stdio connection has one; an HTTP session has one per open GET stream.
 *
 * @example
 * ```ts
 * import * as Outbox from "@snodo/core/transport/Outbox"
 *
 * const outbox = Outbox.makeUnsafe({ write: (frame, written) => socket.write(`${frame}\n`, written) })
 * outbox.offer(frame) // false: dropped, 64 were waiting
 * ```
 *
 * @since 0.1.0
 */

/**
 * Messages waiting to be written before more are dropped, unless an outbox says otherwise.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultMax = 64

/**
 * @category models
 * @since 0.1.0
 */
export interface Outbox {
  /** Hands a frame to the transport; `false` when it was dropped (the queue is full or closed). */
  readonly offer: (frame: string) => boolean
  /** Frames handed over and not yet written. */
  readonly waiting: () => number
  /** Drops everything offered from now on. */
  readonly close: () => void
}

/**
 * An outbox over a transport's writer (a plain allocation: no fiber, no scope).
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeUnsafe = (options: {
  /** Writes one frame; calls `written` once the channel took it. */
  readonly write: (frame: string, written: () => void) => void
  /** Default {@link defaultMax}. */
  readonly max?: number
}): Outbox => {
  const max = options.max ?? defaultMax
  let waiting = 0
  let closed = false
  const written = () => void waiting--
  return {
    offer: (frame) => {
      if (closed || waiting >= max) return false
      waiting++
      options.write(frame, written)
      return true
    },
    waiting: () => waiting,
    close: () => void (closed = true)
  }
}
