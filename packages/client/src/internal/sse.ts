/**
 * Server-sent events, as far as the Streamable HTTP transport needs them: the `data` of each
 * event (multi-line data joined with `\n`), from a stream of text chunks.
 */
import { Predicate, Stream } from "effect"

/** The data of each event of an `text/event-stream` body. */
export const events = <E>(text: Stream.Stream<string, E>): Stream.Stream<string, E> =>
  Stream.suspend(() => {
    let data: Array<string> = []
    return text.pipe(
      Stream.splitLines,
      Stream.map((line): string | undefined => {
        if (line === "") {
          const event = data.length > 0 ? data.join("\n") : undefined
          data = []
          return event
        }
        if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5))
        return undefined
      }),
      Stream.filter(Predicate.isNotUndefined)
    )
  })
