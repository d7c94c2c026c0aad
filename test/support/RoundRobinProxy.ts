/**
 * A load balancer for tests: an HTTP proxy on loopback that sends each request to the next
 * backend in turn (no stickiness: a session's requests spread over every instance), skipping a
 * backend that refuses the connection (a killed instance). Bodies and answers stream through, so
 * SSE answers and GET streams reach the client as they are written; a backend that dies cuts the
 * client's response too.
 *
 * It records where each request went: the method, the JSON-RPC method of a POST (or `response`
 * for a client's answer to a server request, with its id), the backend, and the status.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export interface Routed {
  readonly backend: number
  readonly httpMethod: string
  /** A POST's JSON-RPC method, or `response` for a client's answer (see `id`). */
  readonly rpc: string | undefined
  readonly id: unknown
  /** A tool call's tool name. */
  readonly tool: string | undefined
  status: number | undefined
  /** A GET stream still open. */
  open: boolean
}

export interface Proxy {
  readonly url: string
  /** Requests answered (their answer's head arrived), in that order. */
  readonly routed: ReadonlyArray<Routed>
  /** Requests whose body was written to a backend, in that order (answered or not). */
  readonly sent: ReadonlyArray<Routed>
  readonly close: () => Promise<void>
}

const describe = (body: string): Pick<Routed, "rpc" | "id" | "tool"> => {
  try {
    const message = JSON.parse(body) as Record<string, unknown>
    const params = message["params"] as Record<string, unknown> | undefined
    const tool = typeof params?.["name"] === "string" ? params["name"] : undefined
    if (typeof message["method"] === "string") return { rpc: message["method"], id: message["id"], tool }
    return { rpc: "response", id: message["id"], tool: undefined }
  } catch {
    return { rpc: undefined, id: undefined, tool: undefined }
  }
}

/** `record: false` keeps no record (a bench's millions of requests). */
export const start = (backends: ReadonlyArray<string>, options?: { readonly record?: boolean }): Promise<Proxy> => {
  const recording = options?.record ?? true
  const targets = backends.map((url) => new URL(url))
  const routed: Array<Routed> = []
  const sent: Array<Routed> = []
  let next = 0
  const server = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const body = Buffer.concat(chunks)
      const first = next++ % targets.length
      const attempt = (tries: number) => {
        const backend = (first + tries) % targets.length
        const target = targets[backend]!
        const entry: Routed = recording
          ? { backend, httpMethod: request.method ?? "", ...describe(body.toString("utf8")), status: undefined, open: false }
          : { backend, httpMethod: "", rpc: undefined, id: undefined, tool: undefined, status: undefined, open: false }
        const upstream = Http.request({
          host: target.hostname,
          port: target.port,
          method: request.method,
          path: request.url,
          headers: { ...request.headers, host: target.host }
        }, (answer) => {
          if (recording) routed.push(entry)
          entry.status = answer.statusCode
          entry.open = request.method === "GET"
          response.writeHead(answer.statusCode ?? 502, answer.headers)
          response.flushHeaders()
          answer.on("data", (chunk: Buffer) => response.write(chunk))
          answer.on("end", () => {
            entry.open = false
            response.end()
          })
          // The backend died mid-answer: the client's response is cut as well.
          answer.on("error", () => {
            entry.open = false
            response.destroy()
          })
          answer.on("close", () => {
            entry.open = false
            if (!response.writableEnded) response.destroy()
          })
        })
        upstream.on("error", (error: NodeJS.ErrnoException) => {
          if (error.code === "ECONNREFUSED" && tries + 1 < targets.length && !response.headersSent) return attempt(tries + 1)
          if (!response.headersSent) {
            response.writeHead(502)
            response.end()
          } else {
            response.destroy()
          }
        })
        response.on("close", () => {
          if (!response.writableFinished) upstream.destroy()
        })
        upstream.on("finish", () => {
          if (recording) sent.push(entry)
        })
        upstream.end(body)
      }
      attempt(0)
    })
  })
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}/mcp`,
        routed,
        sent,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
}
