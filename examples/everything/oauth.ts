/**
 * The everything server over Streamable HTTP as an OAuth 2.1 resource server (`--oauth-issuer`).
 *
 * Tokens are JWTs of the given issuer, verified against its JWKS (found through its metadata) and
 * bound to `http://<host>:<port>/mcp`. Every component needs the scope `mcp`; the two trigger tools,
 * which notify every listener, need `mcp:admin` (which implies `mcp`).
 */
import * as Authorization from "@snodo/core/Authorization"
import type { CatalogError } from "@snodo/core/Catalog"
import type { ConfigurationError } from "@snodo/core/ConfigurationError"
import type { SchemaCompileError } from "@snodo/core/SchemaValidator"
import type * as Dpop from "@snodo/oauth/Dpop"
import * as JwtVerifier from "@snodo/oauth/JwtVerifier"
import * as ResourceServer from "@snodo/oauth/ResourceServer"
import * as Scopes from "@snodo/oauth/Scopes"
import type { SkillsError } from "@snodo/skills/SkillsError"
import type * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import type * as HttpServer from "effect/http/HttpServer"
import type { ServeError } from "effect/http/HttpServerError"
import { ServerLayer } from "./server.ts"

/** Which scopes each component needs. */
export const scopes: Scopes.Rules = {
  default: ["mcp"],
  tools: { test_trigger_tool_change: ["mcp:admin"], test_trigger_prompt_change: ["mcp:admin"] },
  implies: { "mcp:admin": ["mcp"] }
}

export interface OAuthOptions {
  /** The authorization server's issuer identifier. */
  readonly issuer: string
  readonly port: number
  readonly host?: string
  /** Clock skew tolerated on token times (default 30 s). */
  readonly leeway?: Duration.Input
  /** Accept DPoP-bound tokens (RFC 9449), as `ResourceServer`'s `dpop` option says. */
  readonly dpop?: Dpop.Options
}

/** The everything server, served by NodeServe behind the resource server, with its metadata. */
export const layer = (options: OAuthOptions): Layer.Layer<HttpServer.HttpServer, ServeError | CatalogError | ConfigurationError | SchemaCompileError | SkillsError> =>
  layerWith(options, ServerLayer)

/** The same, for the everything server on another backend. */
export const layerWith = <E>(
  options: OAuthOptions,
  server: Layer.Layer<Layer.Success<typeof ServerLayer>, E>
): Layer.Layer<HttpServer.HttpServer, ServeError | CatalogError | ConfigurationError | SchemaCompileError | E> => {
  const host = options.host ?? "127.0.0.1"
  return ResourceServer.layerServe({ port: options.port, host }).pipe(
    Layer.provide(ResourceServer.layer({
      resource: `http://${host}:${options.port}/mcp`,
      scopesSupported: ["mcp"],
      resourceName: "snodo everything",
      dpop: options.dpop
    })),
    Layer.provide(JwtVerifier.layer({ issuer: options.issuer, ...(options.leeway === undefined ? {} : { leeway: options.leeway }) })),
    Layer.provide(FetchHttpClient.layer),
    Layer.provide(server.pipe(Layer.provide(Authorization.layer(Scopes.requireScopes(scopes)))))
  )
}
