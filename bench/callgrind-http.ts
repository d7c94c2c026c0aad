/**
 * The HTTP side of a count (`bench/callgrind.ts`, `bench/callgrind-sessions.ts`): requests to a
 * server running under callgrind over kept connections, sent again on a reset, `connections` at a
 * time, and the wait until the slow server first answers.
 */
import * as Http from "node:http"
import type { Counted } from "./callgrind-child.ts"

export interface Answer {
  readonly status: number
  readonly type: string
  readonly text: string
  readonly headers: Http.IncomingHttpHeaders
}

export interface Poster {
  /**
   * POSTs `body` to `/mcp`, sent again on a reset: under valgrind the server's loop can be busy for
   * longer than its keep-alive timeout, which then closes a connection whose next request is
   * already waiting.
   */
  readonly post: (body: string, headers: Readonly<Record<string, string>>) => Promise<Answer>
  /** Closes the kept connections. */
  readonly destroy: () => void
}

/** A poster to `127.0.0.1:port` keeping up to `connections` connections. */
export const poster = (port: number, connections: number): Poster => {
  const agent = new Http.Agent({ keepAlive: true, maxSockets: connections })
  const once = (body: string, headers: Readonly<Record<string, string>>): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const request = Http.request(
        { host: "127.0.0.1", port, path: "/mcp", method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(body) } },
        (response) => {
          const chunks: Array<Buffer> = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("end", () =>
            resolve({
              status: response.statusCode ?? 0,
              type: String(response.headers["content-type"] ?? ""),
              text: Buffer.concat(chunks).toString("utf8"),
              headers: response.headers
            }))
          response.on("error", reject)
        }
      )
      request.on("error", reject)
      request.end(body)
    })
  const post = async (body: string, headers: Readonly<Record<string, string>>, attempts = 5): Promise<Answer> => {
    try {
      return await once(body, headers)
    } catch (error) {
      if (attempts <= 1 || (error as { readonly code?: unknown }).code !== "ECONNRESET") throw error
      return post(body, headers, attempts - 1)
    }
  }
  return { post: (body, headers) => post(body, headers), destroy: () => agent.destroy() }
}

/** Runs `total` requests, `connections` at a time (each connection one after another); `one` says what is wrong with its answer, if anything. */
export const inParallel = async (total: number, connections: number, one: () => Promise<string | undefined>): Promise<void> => {
  let left = total
  let failed: string | undefined
  const worker = async () => {
    while (left > 0) {
      left--
      const problem = await one()
      if (problem !== undefined) failed = problem
    }
  }
  await Promise.all(Array.from({ length: connections }, worker))
  if (failed !== undefined) throw new Error(failed)
}

/** `attempt`'s value once it succeeds, tried every 500 ms for up to 600 s while the server runs. */
export const whenServing = async <A>(counted: Counted, attempt: () => Promise<A>): Promise<A> => {
  const until = Date.now() + 600_000
  for (;;) {
    try {
      return await attempt()
    } catch (error) {
      if (counted.child.exitCode !== null) throw new Error(`server exited ${counted.child.exitCode}: ${counted.stderr()}`, { cause: error })
      if (Date.now() > until) throw new Error("the server did not answer within 600 s", { cause: error })
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }
}
