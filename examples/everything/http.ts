/**
 * The everything server over Streamable HTTP, on `http://127.0.0.1:<port>/mcp`.
 *
 * `serveHttp(port)` serves until interrupted (`serveHttp(port, issuer, server)` on another backend) and logs one line with the URL on stderr once the
 * port is bound (port 0 picks a free one; the line tells which). With `oauthIssuer`, callers need
 * an access token of that authorization server (`./oauth.ts`).
 */
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import type { ServeError } from "effect/http/HttpServerError"
import type { CatalogError } from "@snodo/core/catalog/Catalog"
import type { SchemaCompileError } from "@snodo/core/catalog/SchemaValidator"
import * as NodeServe from "@snodo/http/NodeServe"
import * as OAuth from "./oauth.ts"
import { ServerLayer } from "./server.ts"

/** Serves the everything server over HTTP on `127.0.0.1:port` until interrupted: `ServerLayer` (tasks in memory), or `server`. */
export function serveHttp(port: number, oauthIssuer?: string): Effect.Effect<never, ServeError | CatalogError | SchemaCompileError>
export function serveHttp<E>(
  port: number,
  oauthIssuer: string | undefined,
  server: Layer.Layer<Layer.Success<typeof ServerLayer>, E>
): Effect.Effect<never, ServeError | CatalogError | SchemaCompileError | E>
export function serveHttp(
  port: number,
  oauthIssuer?: string,
  server: Layer.Layer<Layer.Success<typeof ServerLayer>, unknown> = ServerLayer
): Effect.Effect<never, unknown> {
  return Layer.launch(
    Layer.effectDiscard(
      HttpServer.addressFormattedWith((url) => Effect.sync(() => process.stderr.write(`snodo everything listening on ${url}/mcp\n`)))
    ).pipe(
      Layer.provideMerge(
        oauthIssuer === undefined
          ? NodeServe.layer({ port, host: "127.0.0.1" }).pipe(Layer.provide(server))
          : OAuth.layerWith({ issuer: oauthIssuer, port }, server)
      )
    )
  )
}
