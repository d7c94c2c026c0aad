/**
 * A third-party transport in one file, written only against exported modules (`@snodo/core`'s
 * server side, `@snodo/protocol`'s framing):
 * newline-delimited JSON-RPC over TCP, one MCP connection per socket.
 *
 * The peer layer does the protocol (`Connection`: requests in fibers, `notifications/cancelled`,
 * duplicate ids, listen streams, the initialize-era session, read backpressure); this adapter only
 * turns bytes into frames (`LineFramer`), writes frames in order (`FrameWriter`), tells the
 * connection how to pause and resume its socket, and owns each socket's lifetime: a closed socket
 * closes its connection's scope, which interrupts whatever it still runs.
 */
import { Effect, Exit, Scope } from "effect"
import * as net from "node:net"
import { McpError } from "@snodo/core"
import { Connection, type ServerRuntime } from "@snodo/core/transport"
import { FrameWriter, LineFramer } from "@snodo/protocol"

/** A listening server: its port, how many sockets are open, and how often reading paused and resumed. */
export interface TcpServer {
  readonly port: number
  readonly open: () => number
  readonly pauses: () => { readonly paused: number; readonly resumed: number }
}

const tooLong = new McpError.ParseError({ message: "Parse error: line exceeds the size limit" })

/**
 * Serves the `ServerRuntime` in context on `127.0.0.1:port` (0: any free port) until the scope
 * closes; `backpressure` sets the connections' read bounds (the connection's defaults otherwise).
 */
export const serve = (
  port: number,
  backpressure?: Pick<Connection.Backpressure, "maxInFlight" | "maxPendingChars" | "maxHeldChars">
): Effect.Effect<TcpServer, never, ServerRuntime.ServerRuntime | Scope.Scope> =>
  Effect.gen(function*() {
    const services = yield* Effect.context<ServerRuntime.ServerRuntime>()
    const sockets = new Set<net.Socket>()
    const pauses = { paused: 0, resumed: 0 }

    /** One socket: a connection in a scope of its own, closed with the socket. */
    const accept = (socket: net.Socket) => {
      sockets.add(socket)
      const scope = Scope.makeUnsafe()
      let written = () => {}
      const writer = FrameWriter.make(
        { write: (text, done) => void socket.write(text, done) },
        { queue: 1024, queueChars: 256 * 1024, stallMillis: 5000, onFail: () => socket.destroy(), onWritten: () => written() }
      )
      const framer = LineFramer.make()
      const connection = Effect.runSyncWith(services)(Scope.provide(
        Connection.make({
          transport: "tcp",
          sink: writer,
          backpressure: {
            ...backpressure,
            pendingOutput: writer.pendingChars,
            pause: () => {
              pauses.paused++
              socket.pause()
            },
            resume: () => {
              pauses.resumed++
              socket.resume()
            }
          }
        }),
        scope
      ))
      written = connection.writtenUnsafe
      socket.on("data", (chunk) => {
        for (const frame of framer.push(chunk)) {
          if (frame._tag === "Line") connection.receiveUnsafe(frame.text)
          else connection.rejectUnsafe(tooLong)
        }
      })
      socket.on("close", () => {
        sockets.delete(socket)
        writer.close()
        Effect.runFork(Scope.close(scope, Exit.void))
      })
      socket.on("error", () => socket.destroy())
    }

    const server = net.createServer(accept)
    const bound = yield* Effect.callback<number>((resume) => {
      server.listen(port, "127.0.0.1", () => {
        const address = server.address()
        resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : port))
      })
    })
    yield* Effect.addFinalizer(() =>
      Effect.callback<void>((resume) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resume(Effect.void))
      })
    )
    return { port: bound, open: () => sockets.size, pauses: () => ({ ...pauses }) }
  })
