/**
 * The Node server `NodeServe` listens with, by protocol: HTTP/1.1 (`node:http`), HTTP/1.1 and
 * cleartext HTTP/2 with prior knowledge on one port (`h2c`), or TLS with HTTP/2 and HTTP/1.1
 * chosen by ALPN (`node:http2`'s secure server with `allowHTTP1`), or TLS with HTTP/1.1 alone.
 *
 * Whatever the protocol, requests arrive as Node's `request` / `checkContinue` events with the
 * compatibility request and response of `node:http` or `node:http2`, so the endpoint answers both
 * the same way. HTTP/2 gets its limits per connection here: at most `maxConcurrentStreams` streams
 * at once (more are refused with `REFUSED_STREAM`), header lists beyond `maxHeaderListSize`
 * refused, a connection that opens no stream within the head timeout or stays without one for
 * the keep-alive timeout closed with GOAWAY, and on shutdown every session sent GOAWAY
 * (`session.close()`: open streams finish, new ones are refused). nghttp2 itself refuses a rapid
 * reset flood (CVE-2023-44487) and CONTINUATION floods with GOAWAY.
 *
 * h2c beside HTTP/1.1: a connection whose first bytes are HTTP/2's connection preface
 * (`PRI * HTTP/2.0`) is handed to the HTTP/2 server, any other to Node's HTTP/1.1 connection
 * listener, with the bytes read so far put back; one that sends nothing is closed at the head
 * timeout. Over TLS, a handshake not complete by the head timeout is abandoned. (`Upgrade: h2c` from HTTP/1.1 is not offered:
 * clients and proxies that speak h2c use prior knowledge.)
 *
 * @since 0.1.0
 */
import type * as Http from "node:http"
import type * as Http2 from "node:http2"
import type * as Net from "node:net"
import * as Builtins from "./Builtins.ts"
import * as Tls from "./Tls.ts"

/**
 * How a listener speaks.
 *
 * @category models
 * @since 0.1.0
 */
export type Protocol =
  | { readonly _tag: "Http1" }
  | { readonly _tag: "H2c" }
  | { readonly _tag: "Tls"; readonly certificates: Tls.Certificates; readonly http2: boolean }

/**
 * The limits of a listener.
 *
 * @category models
 * @since 0.1.0
 */
export interface Limits {
  readonly maxHeaderBytes: number
  readonly headersTimeout: number
  readonly requestTimeout: number
  readonly keepAliveTimeout: number
  readonly maxConcurrentStreams: number
}

/**
 * A listener: the server that listens, and the HTTP/2 sessions open on it.
 *
 * @category models
 * @since 0.1.0
 */
export interface NodeListener {
  /** The server that listens (its `connection` event sees every TCP connection). */
  readonly server: Net.Server
  /** Where `request` and `checkContinue` are emitted (one or two servers). */
  readonly emitters: ReadonlyArray<Net.Server>
  /** Sends GOAWAY on every HTTP/2 session (open streams finish) and closes idle HTTP/1.1 connections. */
  readonly closeIdle: () => void
  /** Destroys every connection. */
  readonly closeAll: () => void
  /** Stops whatever the listener holds besides its connections (timers, a certificate subscription). */
  readonly dispose: () => void
  /** The protocol of a request's connection: `"h2"`, `"h2c"`, `"http/1.1"`. */
  readonly protocolName: string
}

const preface = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1")

/**
 * Tracks the sessions of an HTTP/2 server: each one sent GOAWAY when no stream has opened within
 * `headersTimeout`, or none has been open for `keepAliveTimeout`.
 */
const trackSessions = (server: Net.Server, limits: Limits): Set<Http2.Http2Session> => {
  const sessions = new Set<Http2.Http2Session>()
  server.on("session", (session: Http2.ServerHttp2Session) => {
    sessions.add(session)
    let open = 0
    let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(() => session.close(), limits.headersTimeout)
    session.on("stream", (stream: Http2.ServerHttp2Stream) => {
      open++
      if (timer !== undefined) timer = void clearTimeout(timer)
      stream.once("close", () => {
        if (--open === 0 && !session.closed) timer = setTimeout(() => session.close(), limits.keepAliveTimeout)
      })
    })
    session.once("close", () => {
      clearTimeout(timer)
      sessions.delete(session)
    })
    // A peer's protocol error ends its session; nothing else needs to hear of it.
    session.on("error", () => undefined)
  })
  return sessions
}

const http2Settings = (limits: Limits): Http2.Settings => ({
  maxConcurrentStreams: limits.maxConcurrentStreams,
  maxHeaderListSize: limits.maxHeaderBytes
})

const http1Options = (limits: Limits): Http.ServerOptions => ({
  maxHeaderSize: limits.maxHeaderBytes,
  headersTimeout: limits.headersTimeout,
  requestTimeout: limits.requestTimeout,
  keepAliveTimeout: limits.keepAliveTimeout,
  // Node checks the head and request timeouts only this often (30 s by default).
  connectionsCheckingInterval: Math.min(1000, limits.headersTimeout)
})

/** A TLS handshake not complete by the head timeout is abandoned (Node's default waits 120 s). */
const tlsLimits = (limits: Limits) => ({ handshakeTimeout: limits.headersTimeout })

const http2Options = (limits: Limits): Http2.ServerOptions => ({
  settings: http2Settings(limits),
  // Node's default (10 MB): a session buffering more (a peer that stops reading) refuses new streams.
  maxSessionMemory: 10
})

/** Tracks every socket of a server, so that `closeAll` can end those the HTTP/2 side owns. */
const trackSockets = (server: Net.Server, event: string): Set<Net.Socket> => {
  const sockets = new Set<Net.Socket>()
  server.on(event, (socket: Net.Socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  })
  return sockets
}

const closeSessions = (sessions: Set<Http2.Http2Session>) => {
  for (const session of sessions) if (!session.closed) session.close()
}

/**
 * Makes the listener of a protocol (not listening yet).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (protocol: Protocol, limits: Limits): NodeListener => {
  switch (protocol._tag) {
    case "Http1": {
      const server = Builtins.http().createServer(http1Options(limits))
      return {
        server,
        emitters: [server],
        closeIdle: () => server.closeIdleConnections(),
        closeAll: () => server.closeAllConnections(),
        dispose: () => undefined,
        protocolName: "http/1.1"
      }
    }
    case "H2c": {
      const server = Builtins.http().createServer(http1Options(limits))
      const h2 = Builtins.http2().createServer(http2Options(limits))
      const sessions = trackSessions(h2, limits)
      const sockets = trackSockets(server, "connection")
      // Node's own HTTP/1.1 connection listener, called for connections that are not HTTP/2.
      const http1 = server.listeners("connection").filter((listener) => listener.name === "connectionListener")
      for (const listener of http1) server.off("connection", listener as (socket: Net.Socket) => void)
      const toHttp1 = (socket: Net.Socket) => {
        for (const listener of http1) listener.call(server, socket)
      }
      // Until a connection is handed over, it is this listener's: one that sends nothing is
      // closed at the head timeout (as Node's HTTP/1.1 server would), and its errors are ignored.
      const ignore = () => undefined
      server.on("connection", (socket: Net.Socket) => {
        let head: Buffer = Buffer.alloc(0)
        const silent = setTimeout(() => socket.destroy(), limits.headersTimeout)
        const sniff = () => {
          const chunk = socket.read() as Buffer | null
          if (chunk === null) return
          head = head.length === 0 ? chunk : Buffer.concat([head, chunk])
          const compared = Math.min(head.length, preface.length)
          const isHttp2 = head.subarray(0, compared).equals(preface.subarray(0, compared))
          if (isHttp2 && head.length < preface.length) return
          clearTimeout(silent)
          socket.off("readable", sniff)
          socket.off("error", ignore)
          socket.unshift(head)
          if (isHttp2) h2.emit("connection", socket)
          else toHttp1(socket)
        }
        socket.on("error", ignore)
        socket.once("close", () => clearTimeout(silent))
        socket.on("readable", sniff)
      })
      return {
        server,
        emitters: [server, h2],
        closeIdle: () => {
          closeSessions(sessions)
          server.closeIdleConnections()
        },
        closeAll: () => {
          server.closeAllConnections()
          for (const socket of sockets) socket.destroy()
        },
        dispose: () => undefined,
        protocolName: "h2c"
      }
    }
    case "Tls": {
      const tls = Tls.options(protocol.certificates.current())
      if (!protocol.http2) {
        const server = Builtins.https().createServer({ ...tls, ...tlsLimits(limits), ...http1Options(limits) })
        const unsubscribe = protocol.certificates.subscribe((pair) => server.setSecureContext(Tls.options(pair)))
        return {
          server,
          emitters: [server],
          closeIdle: () => server.closeIdleConnections(),
          closeAll: () => server.closeAllConnections(),
          dispose: unsubscribe,
          protocolName: "http/1.1"
        }
      }
      const server = Builtins.http2().createSecureServer({ ...tls, ...tlsLimits(limits), ...http2Options(limits), ...http1Options(limits), allowHTTP1: true })
      const sessions = trackSessions(server, limits)
      const sockets = trackSockets(server, "connection")
      const unsubscribe = protocol.certificates.subscribe((pair) => server.setSecureContext(Tls.options(pair)))
      return {
        server,
        emitters: [server],
        closeIdle: () => closeSessions(sessions),
        closeAll: () => {
          for (const socket of sockets) socket.destroy()
        },
        dispose: unsubscribe,
        protocolName: "h2"
      }
    }
  }
}
