/**
 * Discovery and metadata validation against real HTTP servers on loopback whose answers each test
 * scripts (the resource and authorization servers a client may meet, honest or not): the order of
 * the well-known URLs as requested on the wire, the challenge's `resource_metadata` taking
 * precedence, and the documents a client must refuse (a resource that is another server, an issuer
 * that is not the one asked for, insecure endpoints, no PKCE S256).
 */
import { Effect, Exit } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import * as AuthorizationPrompt from "../../src/oauth/AuthorizationPrompt.ts"
import * as Discovery from "../../src/oauth/Discovery.ts"
import * as OAuthClient from "../../src/oauth/OAuthClient.ts"
import * as OAuthError from "../../src/oauth/OAuthError.ts"
import * as TokenStore from "../../src/oauth/TokenStore.ts"

type Route = (request: Http.IncomingMessage) => { readonly status: number; readonly json?: unknown; readonly headers?: Record<string, string> }

interface Scripted {
  readonly origin: string
  readonly seen: Array<string>
  readonly routes: Map<string, Route>
}

const servers: Array<Http.Server> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

/** A server answering each `METHOD path` from `routes` (404 otherwise), recording every request. */
const scripted = async (): Promise<Scripted> => {
  const seen: Array<string> = []
  const routes = new Map<string, Route>()
  const server = Http.createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname
    seen.push(`${request.method} ${path}`)
    request.resume()
    const route = routes.get(`${request.method} ${path}`)
    const answer = route === undefined ? { status: 404, json: { error: "not_found" } } : route(request)
    response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers })
    response.end(answer.json === undefined ? "" : JSON.stringify(answer.json))
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, routes }
}

const run = <A, E>(effect: Effect.Effect<A, E, HttpClient.HttpClient>) => Effect.runPromiseExit(Effect.provide(effect, FetchHttpClient.layer))
const failureOf = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail" ? OAuthError.fromCause(exit.cause.reasons[0].error) : undefined

describe("Discovery.protectedResource", () => {
  it("tries the path-suffixed well-known URL, then the root, and accepts a root document naming the origin", async () => {
    const rs = await scripted()
    rs.routes.set("GET /.well-known/oauth-protected-resource", () => ({ status: 200, json: { resource: rs.origin, authorization_servers: ["https://auth.example.com"] } }))
    const exit = await run(Effect.flatMap(HttpClient.HttpClient, (client) => Discovery.protectedResource(client, `${rs.origin}/mcp`)))
    expect(Exit.isSuccess(exit) && exit.value.issuer).toBe("https://auth.example.com")
    expect(rs.seen).toEqual(["GET /.well-known/oauth-protected-resource/mcp", "GET /.well-known/oauth-protected-resource"])
  })

  it("uses only the challenge's resource_metadata URL when there is one", async () => {
    const rs = await scripted()
    rs.routes.set("GET /custom/prm.json", () => ({ status: 200, json: { resource: `${rs.origin}/mcp`, authorization_servers: ["https://auth.example.com"] } }))
    const exit = await run(Effect.flatMap(HttpClient.HttpClient, (client) => Discovery.protectedResource(client, `${rs.origin}/mcp`, `${rs.origin}/custom/prm.json`)))
    expect(Exit.isSuccess(exit)).toBe(true)
    expect(rs.seen).toEqual(["GET /custom/prm.json"])
  })

  it("refuses a document naming another server, one without an authorization server, and an http authorization server off loopback", async () => {
    const rs = await scripted()
    const documents = [
      { resource: "https://evil.example.com/mcp", authorization_servers: ["https://auth.example.com"] },
      { resource: `${rs.origin}/mcp`, authorization_servers: [] },
      { resource: `${rs.origin}/mcp`, authorization_servers: ["http://auth.example.com"] }
    ]
    const messages: Array<string | undefined> = []
    for (const document of documents) {
      rs.routes.set("GET /.well-known/oauth-protected-resource/mcp", () => ({ status: 200, json: document }))
      const exit = await run(Effect.flatMap(HttpClient.HttpClient, (client) => Discovery.protectedResource(client, `${rs.origin}/mcp`)))
      const failure = failureOf(exit)
      expect(failure?._tag).toBe("ResourceMetadataError")
      messages.push(failure?.message)
    }
    expect(messages[0]).toContain("names the resource https://evil.example.com/mcp")
    expect(messages[1]).toContain("lists no authorization server")
    expect(messages[2]).toContain("neither https nor loopback")
  })
})

describe("Discovery.authorizationServer", () => {
  it("walks the three URLs of an issuer with a path, in order, and refuses a document whose issuer is not identical", async () => {
    const as = await scripted()
    const issuer = `${as.origin}/tenant1`
    as.routes.set("GET /.well-known/oauth-authorization-server/tenant1", () => ({ status: 200, json: { issuer: `${issuer}/`, token_endpoint: `${issuer}/token` } }))
    const exit = await run(Effect.flatMap(HttpClient.HttpClient, (client) => Discovery.authorizationServer(client, issuer)))
    const failure = failureOf(exit)
    expect(failure?._tag).toBe("AuthorizationServerMetadataError")
    expect(failure?.message).toContain(`names the issuer ${issuer}/`)
    expect(as.seen).toEqual([
      "GET /.well-known/oauth-authorization-server/tenant1",
      "GET /.well-known/openid-configuration/tenant1",
      "GET /tenant1/.well-known/openid-configuration"
    ])
  })

  it("takes the OIDC document when the RFC 8414 one is missing, and refuses an http endpoint off loopback", async () => {
    const as = await scripted()
    as.routes.set("GET /.well-known/openid-configuration", () => ({ status: 200, json: { issuer: as.origin, token_endpoint: `${as.origin}/token` } }))
    const good = await run(Effect.flatMap(HttpClient.HttpClient, (client) => Discovery.authorizationServer(client, as.origin)))
    expect(Exit.isSuccess(good) && good.value.token_endpoint).toBe(`${as.origin}/token`)
    as.routes.set("GET /.well-known/openid-configuration", () => ({ status: 200, json: { issuer: as.origin, token_endpoint: "http://auth.example.com/token" } }))
    const bad = await run(Effect.flatMap(HttpClient.HttpClient, (client) => Discovery.authorizationServer(client, as.origin)))
    expect(failureOf(bad)?.message).toContain("The token_endpoint http://auth.example.com/token is neither https nor loopback")
  })
})

describe("OAuthClient: the flow stops at the step that fails", () => {
  it("an authorization server that does not advertise PKCE S256 is not sent the user (AuthorizationServerMetadataError), and the request is never retried", async () => {
    const rs = await scripted()
    const as = await scripted()
    rs.routes.set("POST /mcp", () => ({ status: 401, headers: { "www-authenticate": `Bearer resource_metadata="${rs.origin}/prm"` } }))
    rs.routes.set("GET /prm", () => ({ status: 200, json: { resource: `${rs.origin}/mcp`, authorization_servers: [as.origin] } }))
    as.routes.set("GET /.well-known/oauth-authorization-server", () => ({
      status: 200,
      json: { issuer: as.origin, authorization_endpoint: `${as.origin}/authorize`, token_endpoint: `${as.origin}/token`, code_challenge_methods_supported: ["plain"] }
    }))
    const exit = await Effect.runPromiseExit(
      Effect.gen(function*() {
        const oauth = yield* OAuthClient.make({
          clientName: "a",
          flow: { grant: "authorization_code", redirectUri: "http://127.0.0.1/cb" },
          preRegistered: [{ clientId: "pre" }]
        })
        const client = oauth.wrap(yield* HttpClient.HttpClient)
        return yield* client.execute(HttpClientRequest.post(`${rs.origin}/mcp`))
      }).pipe(Effect.provide([FetchHttpClient.layer, TokenStore.layerMemory, AuthorizationPrompt.layerHeadless]))
    )
    const failure = failureOf(exit)
    expect(failure?._tag).toBe("AuthorizationServerMetadataError")
    expect(failure?.message).toContain("PKCE S256")
    expect(rs.seen).toEqual(["POST /mcp", "GET /prm"])
    expect(as.seen).toEqual(["GET /.well-known/oauth-authorization-server"])
  })

  it("a second 401 after a fresh token is returned as it is (one authorization per request)", async () => {
    const rs = await scripted()
    const as = await scripted()
    rs.routes.set("POST /mcp", () => ({ status: 401, headers: { "www-authenticate": `Bearer resource_metadata="${rs.origin}/prm"` } }))
    rs.routes.set("GET /prm", () => ({ status: 200, json: { resource: `${rs.origin}/mcp`, authorization_servers: [as.origin] } }))
    as.routes.set("GET /.well-known/oauth-authorization-server", () => ({
      status: 200,
      json: { issuer: as.origin, token_endpoint: `${as.origin}/token`, grant_types_supported: ["client_credentials"] }
    }))
    as.routes.set("POST /token", () => ({ status: 200, json: { access_token: "t", token_type: "Bearer", expires_in: 60 } }))
    const exit = await Effect.runPromiseExit(
      Effect.gen(function*() {
        const oauth = yield* OAuthClient.make({ clientName: "m", flow: { grant: "client_credentials" }, preRegistered: [{ clientId: "m", clientSecret: "s" }] })
        const client = oauth.wrap(yield* HttpClient.HttpClient)
        return (yield* client.execute(HttpClientRequest.post(`${rs.origin}/mcp`))).status
      }).pipe(Effect.provide([FetchHttpClient.layer, TokenStore.layerMemory]))
    )
    expect(Exit.isSuccess(exit) && exit.value).toBe(401)
    expect(rs.seen).toEqual(["POST /mcp", "GET /prm", "POST /mcp"])
    expect(as.seen).toEqual(["GET /.well-known/oauth-authorization-server", "POST /token"])
  })
})
