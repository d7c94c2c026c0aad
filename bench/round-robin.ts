/**
 * A round-robin HTTP/1.1 proxy for loads (`bench/sessions.ts`): each request goes to the next
 * backend in turn, with no stickiness, over connections kept open to every backend. It parses
 * only what it must (where a message ends, from its `Content-Length`) and forwards the bytes as
 * they came, so that the proxy, which every target of the scenario goes through alike, costs as
 * little as it can beside the servers measured. Node's `http` server and client on both sides
 * (`test/support/RoundRobinProxy.ts`, the tests' proxy, which also streams SSE and records where
 * each request went) cost more per request than the server under test.
 *
 * Only messages of known length: a request without `Content-Length` ends the client's connection,
 * and so does an answer that does not end where its length (or, chunked, its last chunk) says. One request at a time per client connection (a pipelined one
 * waits for the answer before it).
 */
import net from "node:net"

export interface Proxy {
  readonly url: string
  readonly close: () => Promise<void>
}

const separator = Buffer.from("\r\n\r\n")
const contentLength = /\r\ncontent-length:[ \t]*(\d+)/i
const chunked = /\r\ntransfer-encoding:/i

/** The end of a chunked body: the last chunk (size 0) and an empty trailer. */
const lastChunk = Buffer.from("\r\n0\r\n\r\n")

/**
 * The length of the first whole message in `buffer` (head and body), `undefined` while incomplete,
 * `-1` when unsupported. A chunked answer (the server's empty 202s) ends at its last chunk: found
 * by its bytes, which a JSON or SSE body never holds (their line breaks are not CRLF).
 */
const messageLength = (buffer: Buffer, answer: boolean): number | undefined => {
  const end = buffer.indexOf(separator)
  if (end < 0) return undefined
  const head = buffer.toString("latin1", 0, end)
  if (chunked.test(head)) {
    if (!answer) return -1
    const last = buffer.indexOf(lastChunk, end + 2)
    return last < 0 ? undefined : last + lastChunk.length
  }
  const length = contentLength.exec(head)
  const total = end + 4 + (length === null ? 0 : Number(length[1]))
  return buffer.length < total ? undefined : total
}

/** A connection to one backend: one request at a time, its answer handed to `done`. */
interface Upstream {
  readonly socket: net.Socket
  done: ((answer: Buffer | undefined) => void) | undefined
}

export const start = (backends: ReadonlyArray<string>): Promise<Proxy> => {
  const targets = backends.map((url) => new URL(url))
  const idle: Array<Array<Upstream>> = targets.map(() => [])
  const sockets = new Set<net.Socket>()
  let next = 0

  const connect = (backend: number): Upstream => {
    const target = targets[backend]!
    const socket = net.connect({ host: target.hostname, port: Number(target.port), noDelay: true })
    sockets.add(socket)
    const upstream: Upstream = { socket, done: undefined }
    let pending: Buffer | undefined
    const fail = () => {
      sockets.delete(socket)
      const list = idle[backend]!
      const at = list.indexOf(upstream)
      if (at >= 0) list.splice(at, 1)
      const done = upstream.done
      upstream.done = undefined
      done?.(undefined)
    }
    socket.on("data", (chunk: Buffer) => {
      pending = pending === undefined ? chunk : Buffer.concat([pending, chunk])
      const length = messageLength(pending, true)
      if (length === undefined) return
      if (length < 0 || length !== pending.length) return void socket.destroy()
      const answer = pending
      pending = undefined
      const done = upstream.done
      upstream.done = undefined
      idle[backend]!.push(upstream)
      done?.(answer)
    })
    socket.on("error", () => socket.destroy())
    socket.on("close", fail)
    return upstream
  }

  const forward = (request: Buffer, done: (answer: Buffer | undefined) => void): void => {
    const backend = next++ % targets.length
    const upstream = idle[backend]!.pop() ?? connect(backend)
    upstream.done = done
    upstream.socket.write(request)
  }

  const server = net.createServer({ noDelay: true }, (client) => {
    sockets.add(client)
    let pending: Buffer | undefined
    let busy = false
    const pump = (): void => {
      if (busy || pending === undefined) return
      const length = messageLength(pending, false)
      if (length === undefined) return
      if (length < 0) return void client.destroy()
      const request = length === pending.length ? pending : pending.subarray(0, length)
      pending = length === pending.length ? undefined : pending.subarray(length)
      busy = true
      forward(request, (answer) => {
        if (answer === undefined) return void client.destroy()
        busy = false
        client.write(answer)
        pump()
      })
    }
    client.on("data", (chunk: Buffer) => {
      pending = pending === undefined ? chunk : Buffer.concat([pending, chunk])
      pump()
    })
    client.on("error", () => client.destroy())
    client.on("close", () => sockets.delete(client))
  })

  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as net.AddressInfo
      resolve({
        url: `http://127.0.0.1:${address.port}/mcp`,
        close: () =>
          new Promise<void>((closed) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => closed())
          })
      })
    })
  })
}
