/**
 * Newline-delimited framing with a hard line limit, for stdio and any other byte stream.
 *
 * Bytes are split on `\n` (a trailing `\r` is dropped); each complete line is decoded as strict
 * UTF-8 (a leading byte-order mark dropped, as `TextDecoder` does). A chunk over 1 KiB that is
 * valid UTF-8 as a whole is checked once and its lines sliced from it natively. A line longer than
 * the limit is never buffered beyond it: its bytes are discarded up to the next newline and it is
 * reported once as `TooLong`, so one oversized message costs one error and loses nothing else.
 *
 * @example
 * ```ts
 * import * as LineFramer from "@snodo/protocol/peer/LineFramer"
 *
 * const framer = LineFramer.make(2 * 1024 * 1024)
 * framer.push(new TextEncoder().encode('{"a":1}\n{"b"')) // [{ _tag: "Line", text: '{"a":1}' }]
 * ```
 *
 * @since 0.1.0
 */

import { Buffer, isUtf8 } from "node:buffer"

/**
 * One framing event.
 *
 * @category models
 * @since 0.1.0
 */
export type Frame =
  | { readonly _tag: "Line"; readonly text: string }
  | { readonly _tag: "TooLong" }
  | { readonly _tag: "InvalidUtf8" }

/**
 * Default stdio line limit: 2 MiB.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultMaxLineBytes = 2 * 1024 * 1024

/**
 * @category models
 * @since 0.1.0
 */
export interface LineFramer {
  /** Feeds bytes; returns the frames completed by them. */
  readonly push: (chunk: Uint8Array) => ReadonlyArray<Frame>
  /** End of input: a final unterminated line, if any. */
  readonly end: () => ReadonlyArray<Frame>
}

const NEWLINE = 0x0a
const CR = 0x0d
const BOM_FIRST = 0xef

/**
 * `Buffer#utf8Slice(start, end)`: what `toString("utf8", start, end)` calls once it has checked
 * its arguments. Not in Node's types; where it is missing, every line goes to the decoder.
 */
interface Utf8Sliced {
  readonly utf8Slice: (start: number, end: number) => string
}

const sliced = (buffer: Buffer): Utf8Sliced => buffer as unknown as Utf8Sliced

const nativeSlice = typeof (Buffer.prototype as unknown as Partial<Utf8Sliced>).utf8Slice === "function"

/**
 * @category constructors
 * @since 0.1.0
 */
export const make = (maxLineBytes: number = defaultMaxLineBytes): LineFramer => {
  const decoder = new TextDecoder("utf-8", { fatal: true })
  let parts: Array<Uint8Array> = []
  let size = 0
  let discarding = false

  const emit = (frames: Array<Frame>, bytes: Uint8Array) => {
    let line = bytes
    if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1)
    if (line.length === 0) return
    try {
      frames.push({ _tag: "Line", text: decoder.decode(line) })
    } catch {
      frames.push({ _tag: "InvalidUtf8" })
    }
  }

  const take = (): Uint8Array => {
    const joined = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size)
    parts = []
    size = 0
    return joined
  }

  const push = (chunk: Uint8Array): ReadonlyArray<Frame> => {
    const frames: Array<Frame> = []
    // A chunk of several lines that is valid UTF-8 as a whole: each line in it is too (a newline
    // is never part of a multi-byte character), so a line wholly in the chunk is decoded by one
    // native slice of it, without a view of its bytes or the decoder's checks. A line that starts
    // with a byte-order mark goes to the decoder, which drops the mark.
    let whole: Utf8Sliced | undefined
    if (chunk.length > 1024 && nativeSlice && isUtf8(chunk)) {
      whole = sliced(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))
    }
    let start = 0
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start)
      if (whole !== undefined && newline !== -1 && size === 0 && !discarding && newline - start <= maxLineBytes && chunk[start] !== BOM_FIRST) {
        const stop = newline > start && chunk[newline - 1] === CR ? newline - 1 : newline
        if (stop > start) frames.push({ _tag: "Line", text: whole.utf8Slice(start, stop) })
        start = newline + 1
        continue
      }
      const stop = newline === -1 ? chunk.length : newline
      const piece = chunk.subarray(start, stop)
      if (discarding) {
        if (newline !== -1) discarding = false
      } else if (size + piece.length > maxLineBytes) {
        parts = []
        size = 0
        frames.push({ _tag: "TooLong" })
        discarding = newline === -1
      } else if (newline === -1) {
        parts.push(piece.slice())
        size += piece.length
      } else {
        if (size === 0) emit(frames, piece)
        else {
          parts.push(piece)
          size += piece.length
          emit(frames, take())
        }
      }
      if (newline === -1) break
      start = newline + 1
    }
    return frames
  }

  const end = (): ReadonlyArray<Frame> => {
    const frames: Array<Frame> = []
    if (!discarding && size > 0) emit(frames, take())
    return frames
  }

  return { push, end }
}
