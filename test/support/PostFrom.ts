/**
 * One JSON POST from a socket bound to a chosen loopback address (127.0.0.2 is another client
 * than 127.0.0.1 to a server on this machine): for tests of limits counted per source address.
 */
import * as Http from "node:http"

/** A response: status, headers, body text. */
export interface Answer {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

/** POSTs `body` as JSON to `url` from `localAddress`, with the Streamable HTTP accept header. */
export const postFrom = (url: string, localAddress: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  new Promise<Answer>((resolve, reject) => {
    const target = new URL(url)
    const req = Http.request({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: "POST",
      localAddress,
      agent: false,
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => void (text += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end(JSON.stringify(body))
  })
