/**
 * Server-sent events, as far as the Streamable HTTP transport needs them: the `data` of each
 * event (multi-line data joined with `\n`), from the body's bytes as they arrive, with bounds.
 *
 * Lines are split on the bytes (`\n`, `\r\n`, `\r` are ASCII, never inside a UTF-8 sequence), so
 * a line is held as its chunks until it ends: a line longer than `maxBytes`, or an event whose
 * `data` grows past `maxBytes` without the blank line that ends it, is refused at once instead of
 * being held (a server streaming 300 MiB of `data:` would otherwise grow the client by as much).
 *
 * The parser also keeps the last event `id` and the `retry` the server asked for: what a client
 * resumes a closed initialize-era stream with (a GET with `Last-Event-ID` after `retry` ms).
 */

/** What one chunk gave: the events it completed, and the bound it broke (then nothing more is read). */
export interface Pushed {
  readonly events: ReadonlyArray<string>
  readonly tooLarge?: "line" | "event"
}

/** A parser of one event stream. */
export interface Parser {
  readonly push: (chunk: Uint8Array) => Pushed
  /** The id of the last event that carried one (`undefined` before any). */
  readonly lastEventId: () => string | undefined
  /** The reconnection time the server last asked for, in milliseconds. */
  readonly retry: () => number | undefined
}

const LF = 10
const CR = 13
const decoder = new TextDecoder()

/** A parser whose lines and events hold at most `maxBytes`. */
export const make = (maxBytes: number): Parser => {
  let partial: Array<Uint8Array> = []
  let partialBytes = 0
  /** The event's data lines as bytes (each its own copy), decoded once the event ends: a bounded event holds its bytes, not twice as many in UTF-16. */
  let data: Array<Uint8Array> = []
  let dataBytes = 0
  let afterCR = false
  let lastEventId: string | undefined
  let retry: number | undefined

  /** An `id:` or `retry:` line (a short one: the bound of a line holds for them too). */
  const field = (text: string): void => {
    const value = (name: string) => text.startsWith(`${name}:`) ? text.slice(text.startsWith(`${name}: `) ? name.length + 2 : name.length + 1) : undefined
    const id = value("id")
    if (id !== undefined && !id.includes("\0")) lastEventId = id
    const wait = value("retry")
    if (wait !== undefined && /^\d+$/.test(wait)) retry = Number(wait)
  }

  /** Handles one complete line; `false` when the event grew past the bound. */
  const line = (bytes: Uint8Array, events: Array<string>): boolean => {
    if (bytes.length === 0) {
      if (data.length > 0) events.push(data.map((piece) => decoder.decode(piece)).join("\n"))
      data = []
      dataBytes = 0
      return true
    }
    // "data:" is 5 ASCII bytes; `id` and `retry` are kept for resumption; other fields and comments are not needed.
    if (bytes.length < 5 || bytes[0] !== 100 || bytes[1] !== 97 || bytes[2] !== 116 || bytes[3] !== 97 || bytes[4] !== 58) {
      if (bytes.length <= 1024) field(decoder.decode(bytes))
      return true
    }
    const start = bytes.length > 5 && bytes[5] === 32 ? 6 : 5
    dataBytes += bytes.length - start + 1
    if (dataBytes > maxBytes) return false
    data.push(bytes.slice(start))
    return true
  }

  const joined = (tail: Uint8Array): Uint8Array => {
    if (partial.length === 0) return tail
    const whole = new Uint8Array(partialBytes + tail.length)
    let at = 0
    for (const piece of partial) {
      whole.set(piece, at)
      at += piece.length
    }
    whole.set(tail, at)
    partial = []
    partialBytes = 0
    return whole
  }

  return {
    lastEventId: () => lastEventId,
    retry: () => retry,
    push: (chunk) => {
      const events: Array<string> = []
      let start = 0
      if (afterCR && chunk.length > 0 && chunk[0] === LF) start = 1
      afterCR = false
      for (let i = start; i < chunk.length; i++) {
        const byte = chunk[i]
        if (byte !== LF && byte !== CR) continue
        if (partialBytes + (i - start) > maxBytes) return { events, tooLarge: "line" }
        if (!line(joined(chunk.subarray(start, i)), events)) return { events, tooLarge: "event" }
        if (byte === CR) {
          if (i + 1 < chunk.length) {
            if (chunk[i + 1] === LF) i++
          } else {
            afterCR = true
          }
        }
        start = i + 1
      }
      if (start < chunk.length) {
        partialBytes += chunk.length - start
        if (partialBytes > maxBytes) return { events, tooLarge: "line" }
        partial.push(chunk.slice(start))
      }
      return { events }
    }
  }
}
