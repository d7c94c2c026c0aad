/**
 * An MCP server that is an OAuth 2.1 resource server: two tools, two scopes.
 *
 * - `whoami` (scope `notes`) says who the verified token speaks for (its principal id, `client:<issuer>#<client_id>`
 *   for a client-credentials token);
 * - `forget` (scope `notes:admin`, which implies `notes`) is the kind of tool a client gets a 403
 *   `insufficient_scope` challenge for until it asks for more.
 *
 * `layer({ issuer, port })` serves it with `NodeServe` on `http://127.0.0.1:<port>/mcp`, its
 * Protected Resource Metadata next to it, accepting JWT access tokens of `issuer` issued for that
 * URI.
 */
import { Authorization, McpRequest, McpServer, Tool } from "@snodo/core"
import * as JwtVerifier from "@snodo/oauth/JwtVerifier"
import * as ResourceServer from "@snodo/oauth/ResourceServer"
import * as Scopes from "@snodo/oauth/Scopes"
import { Effect, Layer, Schema } from "effect"
import { FetchHttpClient } from "effect/http"

const whoami = Tool.make("whoami", {
  description: "Who the access token speaks for",
  input: Schema.Struct({}),
  output: Schema.Struct({ subject: Schema.String, scopes: Schema.Array(Schema.String) })
}, () => Effect.map(McpRequest.current, ({ principal }) => ({ subject: principal.id, scopes: Scopes.granted(principal) })))

const forget = Tool.make("forget", {
  description: "Forgets every note (needs notes:admin)",
  input: Schema.Struct({})
}, () => Effect.succeed("forgotten"))

export const Server = McpServer.make({ name: "oauth-example", version: "1.0.0" }).add(whoami, forget)

export const Policy = Authorization.layer(Scopes.requireScopes({
  default: ["notes"],
  tools: { forget: ["notes:admin"] },
  implies: { "notes:admin": ["notes"] }
}))

export const layer = (options: { readonly issuer: string; readonly port: number }) =>
  ResourceServer.layerServe({ port: options.port, host: "127.0.0.1" }).pipe(
    Layer.provide(ResourceServer.layer({ resource: `http://127.0.0.1:${options.port}/mcp`, scopesSupported: ["notes"] })),
    Layer.provide(JwtVerifier.layer({ issuer: options.issuer })),
    Layer.provide(FetchHttpClient.layer),
    Layer.provide(Server.layer.pipe(Layer.provide(Policy)))
  )
