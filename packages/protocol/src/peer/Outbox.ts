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
 * import * as Outbox from "@snodo/protocol/peer/Outbox"
 *
 * const outbox = Outbox.makeUnsafe({ write: (frames, written) => socket.write(frames.map((frame) => `${frame}\n`).join(""), written) })
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
  /**
   * Hands a frame to the transport; `false` when it was dropped (the queue is full or closed). A
   * paced outbox holds it until its next write, and takes a frame already waiting as written.
   */
  readonly offer: (frame: string) => boolean
  /** Frames handed over (or held for the next paced write) and not yet written. */
  readonly waiting: () => number
  /** Drops everything offered from now on, and what a paced outbox still holds. */
  readonly close: () => void
}

/**
 * An outbox over a transport's writer (a plain allocation: no fiber, no scope).
 *
 * With `paceMillis`, it writes at most once per interval: what was offered meanwhile leaves in
 * that one write, and a frame offered while the same frame waits is not queued twice (a second
 * `notifications/tools/list_changed` says nothing the first did not). The interval is a plain
 * timer: one per outbox with frames waiting, on a path where a fiber per write would cost more than
 * the write.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeUnsafe = (options: {
  /** Writes frames, in order, in one write; calls `written` once the channel took them. */
  readonly write: (frames: ReadonlyArray<string>, written: () => void) => void
  /** Default {@link defaultMax}. */
  readonly max?: number
  /** At most one write per this many milliseconds (default 0: every frame at once). */
  readonly paceMillis?: number
}): Outbox => {
  const max = options.max ?? defaultMax
  const pace = options.paceMillis ?? 0
  let writing = 0
  let held: Array<string> = []
  let timer: ReturnType<typeof setTimeout> | undefined
  let lastWrite = 0
  let closed = false
  const writeNow = (frames: ReadonlyArray<string>) => {
    writing += frames.length
    options.write(frames, () => void (writing -= frames.length))
  }
  const flush = () => {
    timer = undefined
    if (closed || held.length === 0) return
    const frames = held
    held = []
    lastWrite = Date.now()
    writeNow(frames)
  }
  return {
    offer: (frame) => {
      if (closed || writing + held.length >= max) return false
      if (pace <= 0) {
        writeNow([frame])
        return true
      }
      if (!held.includes(frame)) held.push(frame)
      timer ??= setTimeout(flush, Math.max(0, lastWrite + pace - Date.now()))
      return true
    },
    waiting: () => writing + held.length,
    close: () => {
      closed = true
      held = []
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
    }
  }
}
