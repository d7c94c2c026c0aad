/**
 * A bounded queue of messages to the other side that no request waits for (an initialize-era
 * session's list changes and resource updates): at most `max` are waiting to be written at once
 * (and `maxChars` characters of them), and one beyond that is dropped, so a peer that stopped
 * reading never holds the publisher. The queue is a {@link Mailbox.Mailbox} (`"drop-newest"`).
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
import * as Mailbox from "./Mailbox.ts"

/**
 * Messages waiting to be written before more are dropped, unless an outbox says otherwise.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultMax = 64

/**
 * Characters of the messages waiting before more are dropped, unless an outbox says otherwise
 * (1 Mi).
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultMaxChars = 1024 * 1024

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
  /** Frames dropped since the outbox was made (the queue was full). */
  readonly dropped: () => number
  /** Drops everything offered from now on, and what a paced outbox still holds. */
  readonly close: () => void
}

/**
 * An outbox over a transport's writer (a plain allocation: no fiber, no scope), on a
 * {@link Mailbox.Mailbox} that drops the newest frame past its bounds and counts frames handed to
 * the writer until it calls `written`.
 *
 * With `paceMillis`, it writes at most once per interval. A frame offered when nothing was written
 * within the interval is written at once (leading edge: an idle outbox costs no timer); frames
 * offered while it rests wait and leave together in one write at the end of the interval (trailing
 * edge), and a frame offered while the same frame waits is not queued twice (a second
 * `notifications/tools/list_changed` says nothing the first did not). The interval is a plain
 * timer, armed only while frames wait, on a path where a fiber per write would cost more than the
 * write.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeUnsafe = (options: {
  /** Writes frames, in order, in one write; calls `written` once the channel took them. */
  readonly write: (frames: ReadonlyArray<string>, written: () => void) => void
  /** Default {@link defaultMax}. */
  readonly max?: number
  /** Characters of the frames waiting (default {@link defaultMaxChars}); one frame alone always fits. */
  readonly maxChars?: number
  /** At most one write per this many milliseconds (default 0: every frame at once). */
  readonly paceMillis?: number
}): Outbox => {
  const pace = options.paceMillis ?? 0
  const mailbox = Mailbox.makeUnsafe<string>({
    capacity: options.max ?? defaultMax,
    maxChars: options.maxChars ?? defaultMaxChars,
    overflow: "drop-newest",
    coalesce: pace > 0 ? (frame) => frame : undefined
  })
  let timer: ReturnType<typeof setTimeout> | undefined
  let lastWrite = 0
  const writeNow = () => {
    const frames = mailbox.takeBatch()
    if (frames.length > 0) options.write(frames, () => mailbox.settle(frames))
  }
  const flush = () => {
    timer = undefined
    if (mailbox.state() !== "open" || mailbox.waiting() === 0) return
    lastWrite = Date.now()
    writeNow()
  }
  return {
    offer: (frame) => {
      const offered = mailbox.offer(frame)
      if (offered !== "queued") return offered === "coalesced"
      if (pace <= 0) {
        writeNow()
        return true
      }
      // Nothing waiting (no timer armed) and nothing written within the interval: at once.
      if (timer === undefined) {
        const now = Date.now()
        if (now - lastWrite >= pace) {
          lastWrite = now
          writeNow()
          return true
        }
      }
      timer ??= setTimeout(flush, Math.max(0, lastWrite + pace - Date.now()))
      return true
    },
    waiting: () => mailbox.size(),
    dropped: () => mailbox.dropped(),
    close: () => {
      mailbox.shutdown()
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
    }
  }
}
