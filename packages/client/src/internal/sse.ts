/**
 * Server-sent events, as far as the Streamable HTTP transport needs them: each event's `data`
 * (multi-line data joined with `\n`), its `id` and the `retry` the server asked for, from a stream
 * of text chunks. The id and the retry are what a client resumes a closed stream with (a GET with
 * `Last-Event-ID` after `retry` milliseconds).
 */
import { Predicate, Stream } from "effect"

/** One event: its data (empty for a priming event), and the id and retry fields it carried. */
export interface Event {
  readonly data: string
  readonly id: string | undefined
  readonly retry: number | undefined
}

/** The events of an `text/event-stream` body (those with neither data nor an id are skipped). */
export const parse = <E>(text: Stream.Stream<string, E>): Stream.Stream<Event, E> =>
  Stream.suspend(() => {
    let data: Array<string> = []
    let id: string | undefined
    let retry: number | undefined
    const field = (line: string, name: string): string | undefined =>
      line.startsWith(`${name}:`) ? line.slice(line.startsWith(`${name}: `) ? name.length + 2 : name.length + 1) : undefined
    return text.pipe(
      Stream.splitLines,
      Stream.map((line): Event | undefined => {
        if (line === "") {
          const event = data.length > 0 || id !== undefined || retry !== undefined ? { data: data.join("\n"), id, retry } : undefined
          data = []
          id = undefined
          retry = undefined
          return event
        }
        const value = field(line, "data")
        if (value !== undefined) data.push(value)
        const given = field(line, "id")
        if (given !== undefined && !given.includes("\0")) id = given
        const wait = field(line, "retry")
        if (wait !== undefined && /^\d+$/.test(wait)) retry = Number(wait)
        return undefined
      }),
      Stream.filter(Predicate.isNotUndefined)
    )
  })

/** The data of each event of an `text/event-stream` body. */
export const events = <E>(text: Stream.Stream<string, E>): Stream.Stream<string, E> =>
  parse(text).pipe(Stream.filter((event) => event.data !== ""), Stream.map((event) => event.data))
