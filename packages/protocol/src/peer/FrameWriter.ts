/**
 * The serialized writer of a line-framed channel (stdio's stdout): frames are written in the order
 * they are accepted, so a request's notifications always precede its response.
 *
 * A frame accepted while the output has nothing in flight is written at once; frames accepted
 * while a write is in flight are coalesced into one write (a microtask later, or at once when the
 * batch reaches 64 KiB). A write completes as soon as its frame is accepted, unless more
 * than `queue` frames or `queueChars` characters are waiting for the output: then it waits until
 * the output catches up (its frame stays accepted, in order, even if the wait is interrupted): the
 * frames waiting and the batches in flight are one {@link Mailbox.Mailbox} (`"wait"`). If
 * the output accepts nothing for `stallMillis` while frames wait (or fails), the writer fails:
 * waiting and later writes fail with `SinkClosed` and `onFail` is called once.
 *
 * @example
 * ```ts
 * import * as FrameWriter from "@snodo/protocol/peer/FrameWriter"
 *
 * const writer = FrameWriter.make(
 *   { write: (text, done) => process.stdout.write(text, done) },
 *   { queue: 1024, queueChars: 1024 * 1024, stallMillis: 5000, onFail: (message) => console.error(message) }
 * )
 * writer.write('{"jsonrpc":"2.0","method":"notifications/message","params":{}}') // Effect<void, SinkClosed>
 * ```
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as Mailbox from "./Mailbox.ts"
import { SinkClosed } from "./RequestSink.ts"
import type { RequestSink } from "./RequestSink.ts"

/**
 * Where the text goes: Node's `Writable#write` has this shape.
 *
 * @category models
 * @since 0.1.0
 */
export interface Output {
  /** Hands text over; `done` is called once it is written (in order), or with the failure. */
  readonly write: (text: string, done: (error?: unknown) => void) => void
}

/**
 * @category models
 * @since 0.1.0
 */
export interface FrameWriter extends RequestSink {
  /**
   * Accepts a frame without a fiber (refusals written from an input callback, answers that
   * completed without suspending, listen streams' changes): `written` is called at once, or, past
   * the writer's bounds, once the output caught up (as `write` completes); `false` once the writer
   * failed or was closed.
   */
  readonly offer: (frame: string, written?: () => void) => boolean
  /** Completes once every frame accepted so far is written (at once if the writer failed). */
  readonly flushed: Effect.Effect<void>
  /** Stops the stall watchdog; frames accepted later are dropped. */
  readonly close: () => void
  /** Characters accepted and not yet written (the transport's read backpressure watches it). */
  readonly pendingChars: () => number
}

/** A batch is written at once when it reaches this many characters. */
const batchChars = 64 * 1024

/**
 * @category constructors
 * @since 0.1.0
 */
export const make = (output: Output, options: {
  /** Frames that may wait for the output before writers wait too. */
  readonly queue: number
  /** Characters that may wait for the output before writers wait too. */
  readonly queueChars: number
  /** How long the output may accept nothing while frames wait. */
  readonly stallMillis: number
  /** Called once when the writer fails (stall or output failure). */
  readonly onFail: (message: string) => void
  /** Called after each write the output completed (the waiting frames shrank). */
  readonly onWritten?: () => void
}): FrameWriter => {
  // The frames accepted and not yet written: those of the next batch wait in it, those handed to
  // the output are its batches not yet settled; a writer past either bound waits for room.
  const mailbox = Mailbox.makeUnsafe<string>({
    capacity: options.queue,
    maxChars: options.queueChars,
    charsOf: (frame) => frame.length + 1,
    overflow: "wait"
  })
  /** Characters of the next batch. */
  let nextChars = 0
  let scheduled = false
  /** The batches handed to the output and not yet written, oldest first. */
  const inFlight: Array<ReadonlyArray<string>> = []
  let failure: SinkClosed | undefined
  let closed = false
  let progressAt = 0
  let watchdog: ReturnType<typeof setTimeout> | undefined
  let flushWaiters: Array<() => void> = []
  /** The `written` callbacks of frames offered past the bounds, called once there is room again. */
  let roomWaiters: Array<() => void> = []

  const wakeRoom = (): void => {
    const waiters = roomWaiters
    roomWaiters = []
    for (const written of waiters) written()
  }

  const fail = (message: string): void => {
    if (failure !== undefined) return
    failure = new SinkClosed({ message })
    stopWatchdog()
    // What waited for room is let go (as the writers waiting for it fail).
    wakeRoom()
    options.onFail(message)
    // Wakes the writers waiting for room: they find the failure.
    mailbox.shutdown()
    const flushes = flushWaiters
    flushWaiters = []
    for (const wake of flushes) wake()
  }

  const stopWatchdog = (): void => {
    if (watchdog !== undefined) clearTimeout(watchdog)
    watchdog = undefined
  }

  const check = (): void => {
    watchdog = undefined
    if (inFlight.length === 0 || failure !== undefined || closed) return
    const idle = Date.now() - progressAt
    if (idle >= options.stallMillis) fail("the output did not accept a write in time")
    else watchdog = setTimeout(check, options.stallMillis - idle)
  }

  const onWritten = (error?: unknown): void => {
    if (failure !== undefined) return
    if (error !== undefined && error !== null) return fail("the output failed")
    const batch = inFlight.shift()
    if (batch !== undefined) mailbox.settle(batch)
    progressAt = Date.now()
    if (mailbox.size() === 0 && flushWaiters.length > 0) {
      const flushes = flushWaiters
      flushWaiters = []
      for (const wake of flushes) wake()
    }
    if (roomWaiters.length > 0 && !mailbox.isOver()) wakeRoom()
    options.onWritten?.()
  }

  const flush = (): void => {
    scheduled = false
    if (mailbox.waiting() === 0 || failure !== undefined) return
    const batch = mailbox.takeBatch()
    nextChars = 0
    const text = batch.length === 1 ? batch[0]! + "\n" : batch.join("\n") + "\n"
    if (inFlight.length === 0) progressAt = Date.now()
    inFlight.push(batch)
    if (watchdog === undefined && !closed) watchdog = setTimeout(check, options.stallMillis)
    output.write(text, onWritten)
  }

  const offer = (frame: string): void => {
    mailbox.offer(frame)
    nextChars += frame.length + 1
    if (nextChars >= batchChars || inFlight.length === 0) flush()
    else if (!scheduled) {
      scheduled = true
      queueMicrotask(flush)
    }
  }

  const room: Effect.Effect<void, SinkClosed> = Effect.andThen(
    mailbox.room,
    Effect.suspend(() => failure === undefined ? Effect.void : Effect.fail(failure))
  )

  const write = (frame: string): Effect.Effect<void, SinkClosed> =>
    Effect.suspend(() => {
      if (failure !== undefined) return Effect.fail(failure)
      if (closed) return Effect.void
      offer(frame)
      return mailbox.isOver() ? room : Effect.void
    })

  const flushed = Effect.callback<void>((resume) => {
    if (mailbox.waiting() > 0) flush()
    if (mailbox.size() === 0 || failure !== undefined) return resume(Effect.void)
    const wake = () => resume(Effect.void)
    flushWaiters.push(wake)
    return Effect.sync(() => {
      flushWaiters = flushWaiters.filter((waiter) => waiter !== wake)
    })
  })

  return {
    write,
    offer: (frame, written) => {
      if (failure !== undefined || closed) return false
      offer(frame)
      if (written !== undefined) {
        if (mailbox.isOver()) roomWaiters.push(written)
        else written()
      }
      return true
    },
    flushed,
    close: () => {
      closed = true
      stopWatchdog()
    },
    pendingChars: () => mailbox.chars()
  }
}
