/**
 * A stand-in OTLP/HTTP collector for the observability scenario: accepts every POST to
 * `/v1/traces` and `/v1/metrics` on 127.0.0.1, answers 200 `{}`, keeps only counts (requests,
 * bytes, spans seen in trace bodies). Bounded: it only ever holds one body at a time.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface Sink {
  /** The collector's base URL (give it to `--otlp`). */
  readonly url: string
  readonly received: () => { readonly traces: number; readonly metrics: number; readonly spans: number; readonly bytes: number }
  readonly close: () => Promise<void>
}

const spanIdKey = Buffer.from(`"spanId"`)

/**
 * A cheap count of the spans in an OTLP/JSON body: one `"spanId"` key per span (links carry one
 * too), found in the bytes as they came, so the stand-in collector, which shares the machine with
 * the server it measures, spends no more than it must (no decoding of each body to a string).
 */
const spanKeys = (body: Buffer): number => {
  let count = 0
  for (let at = body.indexOf(spanIdKey); at >= 0; at = body.indexOf(spanIdKey, at + spanIdKey.length)) count++
  return count
}

export const start = async (): Promise<Sink> => {
  const counts = { traces: 0, metrics: 0, spans: 0, bytes: 0 }
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    // An exporter that goes away mid-post (its server killed) resets the connection: not ours to crash on.
    request.on("error", () => {})
    response.on("error", () => {})
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const body = Buffer.concat(chunks)
      counts.bytes += body.length
      if (request.url === "/v1/traces") {
        counts.traces++
        counts.spans += spanKeys(body)
      } else if (request.url === "/v1/metrics") counts.metrics++
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    received: () => ({ ...counts }),
    close: () => new Promise((resolve) => server.close(() => resolve()))
  }
}
