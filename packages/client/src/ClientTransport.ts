/**
 * The seam between the client and a connection: a transport opens a {@link Channel} that writes
 * JSON-RPC frames and hands every frame the server sends to `receive`. Stdio, Streamable HTTP and
 * the in-memory transport are such adapters; the client's JSON-RPC peer (from `@snodo/core`) is
 * the same over each.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as ClientTransport from "@snodo/client/ClientTransport"
 *
 * // a transport of one's own: frames out through `write`, frames in through `receive`
 * const echo: ClientTransport.ClientTransport = {
 *   open: (receive) => Effect.succeed({ write: (frame) => Effect.sync(() => receive(frame)), closed: Effect.never })
 * }
 * ```
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Effect, Scope } from "effect"
import type * as Tools from "@snodo/protocol/wire/Tools"
import type { TransportError } from "./McpClientError.ts"

/**
 * One open connection.
 *
 * @category models
 * @since 0.1.0
 */
export interface Channel {
  /**
   * Writes one JSON-RPC frame; completes once the transport took it, in order. `sent`, when the
   * client gives it, is what the frame holds (the client encoded it just now): a transport that
   * reads a frame for its routing (HTTP's `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` headers) reads
   * it there instead of parsing the frame again.
   */
  readonly write: (frame: string, sent?: Sent) => Effect.Effect<void, TransportError>
  /** Fails when the connection ends on its own (the process exited, the stream closed); never succeeds. */
  readonly closed: Effect.Effect<never, TransportError>
  /**
   * Told the protocol version once negotiated through `initialize` (HTTP sends it as the
   * `MCP-Protocol-Version` header of every later request).
   */
  readonly negotiated?: (protocolVersion: string) => void
  /**
   * Told the tools the server listed (HTTP mirrors their `x-mcp-header` parameters into
   * `Mcp-Param-*` headers of `tools/call`).
   */
  readonly toolsListed?: (tools: ReadonlyArray<Tools.Tool>) => void
  /** Who the channel talks to, for error messages: the command line, or the URL. */
  readonly label?: string
  /**
   * Ends the connection now (the client saw the server break the protocol past its budget): stop
   * reading, end the process or the streams. Closing the scope still releases the rest.
   */
  readonly end?: () => void
  /**
   * Told that the client stopped waiting for a request's answer (it came, the request was
   * cancelled or timed out): HTTP closes the stream that carried it.
   */
  readonly settled?: (requestId: string) => void
}

/**
 * What a frame the client wrote holds: its method, its id (a request) and its params.
 *
 * @category models
 * @since 0.1.0
 */
export interface Sent {
  readonly method: string
  readonly id?: string | number | undefined
  readonly params: Readonly<Record<string, unknown>>
}

/**
 * Fails the request with this id (the one a POST carried) with the transport's reason.
 *
 * @category models
 * @since 0.1.0
 */
export type FailRequest = (requestId: string | number, error: TransportError) => void

/**
 * A way to reach a server.
 *
 * @category models
 * @since 0.1.0
 */
export interface ClientTransport {
  /**
   * Opens a channel for the current scope; frames the server writes go to `receive`, in order; a
   * request whose answer the transport could not read goes to `fail` (when given).
   */
  readonly open: (receive: (frame: string) => void, fail?: FailRequest) => Effect.Effect<Channel, TransportError, Scope.Scope>
}

/**
 * The transport the client in context connects with.
 *
 * @category services
 * @since 0.1.0
 */
export class Transport extends Context.Service<Transport, ClientTransport>()("@snodo/client/ClientTransport") {}
