/**
 * Runs the OAuth example on http://127.0.0.1:3007/mcp.
 *
 *   npx node examples/07-oauth/main.ts                          # with a local stand-in authorization server
 *   npx node examples/07-oauth/main.ts --issuer https://auth.example.com   # with yours (audience: the URL above)
 *
 * Without `--issuer` it starts `oauth2-mock-server` on http://127.0.0.1:9007 (a test double, a
 * dev dependency: it signs real JWTs but accepts any client), told to bind each token's audience
 * to the RFC 8707 `resource` the client asks for, as Keycloak, Auth0 or Entra ID do once
 * configured (see docs/authorization.md). Then, for instance:
 *
 *   curl -s http://127.0.0.1:3007/.well-known/oauth-protected-resource/mcp
 *   curl -s -u demo:demo -d grant_type=client_credentials -d scope=notes \
 *        -d resource=http://127.0.0.1:3007/mcp http://127.0.0.1:9007/token
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer } from "effect"
import { layer } from "./server.ts"

const port = 3007
const flag = process.argv.indexOf("--issuer")
let issuer = flag >= 0 ? process.argv[flag + 1] : undefined

if (issuer === undefined) {
  const { Events, OAuth2Server } = await import("oauth2-mock-server")
  const authorizationServer = new OAuth2Server()
  await authorizationServer.issuer.keys.generate("RS256")
  authorizationServer.service.on(Events.BeforeTokenSigning, (token, req) => {
    const body: Record<string, unknown> = { ...req.body }
    const client = Buffer.from((req.headers.authorization ?? "").replace(/^Basic /, ""), "base64").toString().split(":")[0]
    Object.assign(token.payload, { sub: client || "anonymous", client_id: client, aud: body["resource"], scope: body["scope"] })
  })
  await authorizationServer.start(9007, "127.0.0.1")
  issuer = authorizationServer.issuer.url!
  process.stderr.write(`stand-in authorization server: ${issuer}\n`)
}

process.stderr.write(`MCP server: http://127.0.0.1:${port}/mcp (tokens of ${issuer})\n`)
Layer.launch(layer({ issuer, port })).pipe(Effect.asVoid, NodeRuntime.runMain)
