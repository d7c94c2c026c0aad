/**
 * The everything server over Streamable HTTP, on `http://127.0.0.1:<port>/mcp`.
 *
 * `serveHttp(port)` serves until interrupted (`serveHttp(port, issuer, server)` on another backend,
 * `serveHttp(port, issuer, dialects, server, sessions)` with its sessions in a shared store) and logs one line with the URL on stderr once the
 * port is bound (port 0 picks a free one; the line tells which). With `oauthIssuer`, callers need
 * an access token of that authorization server (`./oauth.ts`). `port` may be a {@link Listen}:
 * the port with TLS (HTTPS, HTTP/2 and HTTP/1.1 by ALPN), h2c beside HTTP/1.1, and the proxies to trust.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as HttpServer from "effect/http/HttpServer"
import type { ServeError } from "effect/http/HttpServerError"
import type { CatalogError } from "@snodo/core/Catalog"
import type { SchemaCompileError } from "@snodo/core/SchemaValidator"
import * as NodeServe from "@snodo/http/NodeServe"
import type * as SessionStore from "@snodo/http/SessionStore"
import type { BuiltInVersion } from "@snodo/core/McpServer"
import * as OAuth from "./oauth.ts"
import { defaultDialects, serverLayerFor } from "./server.ts"

/** Where and how the server listens: the port, and the transport options of `NodeServe`. */
export interface Listen extends Pick<NodeServe.ServeOptions, "tls" | "h2c" | "trustProxy"> {
  readonly port: number
}

/**
 * Serves the everything server over HTTP on `127.0.0.1:port` until interrupted: tasks in memory
 * speaking `dialects`, or `server` (the everything server on another backend).
 */
export function serveHttp(
  port: number | Listen,
  oauthIssuer?: string,
  dialects?: ReadonlyArray<BuiltInVersion>
): Effect.Effect<never, ServeError | CatalogError | SchemaCompileError>
export function serveHttp<E, S = never>(
  port: number | Listen,
  oauthIssuer: string | undefined,
  dialects: ReadonlyArray<BuiltInVersion>,
  server: Layer.Layer<Layer.Success<ReturnType<typeof serverLayerFor>>, E>,
  sessions?: Layer.Layer<SessionStore.SessionStore, S>
): Effect.Effect<never, ServeError | CatalogError | SchemaCompileError | E | S>
export function serveHttp(
  listen: number | Listen,
  oauthIssuer?: string,
  dialects: ReadonlyArray<BuiltInVersion> = defaultDialects,
  server: Layer.Layer<Layer.Success<ReturnType<typeof serverLayerFor>>, unknown> = serverLayerFor(dialects),
  sessions?: Layer.Layer<SessionStore.SessionStore, unknown>
): Effect.Effect<never, unknown> {
  const { port, ...transport } = typeof listen === "number" ? { port: listen } : listen
  const endpoint = NodeServe.layer({ port, host: "127.0.0.1", sessions: true, ...transport }).pipe(Layer.provide(server))
  const scheme = transport.tls === undefined ? "http" : "https"
  return Layer.launch(
    Layer.effectDiscard(
      HttpServer.addressFormattedWith((url) =>
        Effect.sync(() => process.stderr.write(`snodo everything listening on ${url.replace(/^http:/, `${scheme}:`)}/mcp${transport.h2c === true ? " (HTTP/1.1 and h2c)" : ""}\n`))
      )
    ).pipe(
      Layer.provideMerge(
        oauthIssuer === undefined
          ? sessions === undefined ? endpoint : endpoint.pipe(Layer.provide(sessions))
          : OAuth.layerWith({ issuer: oauthIssuer, port }, server)
      )
    )
  )
}
