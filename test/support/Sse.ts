/**
 * Reads a `text/event-stream` response event by event: each call of the returned function resolves
 * with the next event's JSON-RPC message (events without data are skipped), and fails once the
 * stream has ended or no event came in time.
 */
export const eventsOf = (response: Response, timeoutMs = 10_000): () => Promise<Record<string, unknown>> => {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ""
  return async () => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const boundary = buffer.indexOf("\n\n")
      if (boundary >= 0) {
        const event = buffer.slice(0, boundary)
        buffer = buffer.slice(boundary + 2)
        const data = event.split("\n").filter((line) => line.startsWith("data: ")).map((line) => line.slice(6)).join("\n")
        if (data === "") continue
        return JSON.parse(data) as Record<string, unknown>
      }
      const chunk = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no event in time")), Math.max(1, deadline - Date.now())))
      ])
      if (chunk.done) throw new Error("the stream ended")
      buffer += chunk.value
    }
  }
}
