/**
 * Issue 38's step-up loop: an MCP server that answers every authorized request 403
 * `insufficient_scope` must not make the OAuth client run a full authorization per request, nor
 * grow the scope list it asks for without bound. A hostile resource server and an authorization
 * server (client credentials) on loopback listeners; the client is `OAuthClient.wrap` around the
 * fetch `HttpClient`, as the Streamable HTTP transport uses it. On the main branch before the
 * fix, 20 requests to the fixed-scope server ran 21 token requests, and the growing-scope server
 * drove the requested list to 21 scopes.
 */
import { Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { OAuthClient, OAuthError, TokenStore } from "@snodo/client"

interface Servers {
  readonly url: string
  /** The `scope` of each token request the authorization server answered. */
  readonly tokenRequests: Array<ReadonlyArray<string>>
  readonly close: () => Promise<void>
}

const listen = (handler: Http.RequestListener) =>
  new Promise<{ readonly server: Http.Server; readonly origin: string }>((resolve) => {
    const server = Http.createServer(handler)
    server.listen(0, "127.0.0.1", () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }))
  })

const body = (request: Http.IncomingMessage) =>
  new Promise<string>((resolve) => {
    let text = ""
    request.setEncoding("utf8").on("data", (chunk: string) => void (text += chunk)).on("end", () => resolve(text))
  })

const json = (response: Http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(value))
}

/** The two servers; `challenge(n)` is the scope the resource server's n-th 403 names. */
const start = async (challenge: (n: number) => string): Promise<Servers> => {
  const tokenRequests: Array<ReadonlyArray<string>> = []
  const as = await listen(async (request, response) => {
    if (request.url === "/.well-known/oauth-authorization-server") {
      return json(response, 200, {
        issuer: as.origin,
        token_endpoint: `${as.origin}/token`,
        grant_types_supported: ["client_credentials"],
        token_endpoint_auth_methods_supported: ["client_secret_basic"],
        response_types_supported: ["code"],
        code_challenge_methods_supported: ["S256"]
      })
    }
    if (request.url === "/token" && request.method === "POST") {
      const form = new URLSearchParams(await body(request))
      const scope = (form.get("scope") ?? "").split(" ").filter((s) => s !== "")
      tokenRequests.push(scope)
      return json(response, 200, { access_token: `token-${tokenRequests.length}`, token_type: "Bearer", expires_in: 3600, scope: scope.join(" ") })
    }
    json(response, 404, { error: "not_found" })
  })
  let refusals = 0
  const rs = await listen((request, response) => {
    const metadata = `${rs.origin}/.well-known/oauth-protected-resource/mcp`
    if (request.url === "/.well-known/oauth-protected-resource/mcp") {
      return json(response, 200, { resource: `${rs.origin}/mcp`, authorization_servers: [as.origin], scopes_supported: ["mcp"] })
    }
    if (request.headers.authorization === undefined) {
      return json(response, 401, { error: "unauthorized" }, { "www-authenticate": `Bearer resource_metadata="${metadata}", scope="mcp"` })
    }
    refusals += 1
    json(response, 403, { error: "insufficient_scope" }, {
      "www-authenticate": `Bearer error="insufficient_scope", scope="${challenge(refusals)}", resource_metadata="${metadata}"`
    })
  })
  return {
    url: `${rs.origin}/mcp`,
    tokenRequests,
    close: async () => {
      for (const { server } of [as, rs]) {
        server.closeAllConnections()
        await new Promise((resolve) => server.close(resolve))
      }
    }
  }
}

let servers: Servers | undefined
afterEach(async () => {
  await servers?.close()
  servers = undefined
})

/** `count` POSTs through one OAuth client; each one's failure (an `OAuthError`) or status. */
const requests = (url: string, count: number, stepUp?: OAuthClient.StepUpOptions) =>
  Effect.gen(function*() {
    const oauth = yield* OAuthClient.make({
      clientName: "step-up-test",
      flow: { grant: "client_credentials" },
      preRegistered: [{ clientId: "agent", clientSecret: "s3cret" }],
      stepUp
    })
    const client = oauth.wrap(yield* HttpClient.HttpClient)
    const outcomes: Array<OAuthError.OAuthError | number> = []
    for (let i = 0; i < count; i++) {
      outcomes.push(
        yield* client.execute(HttpClientRequest.post(url)).pipe(
          Effect.map((response) => response.status),
          Effect.catch((error) => OAuthError.isOAuthError(error) ? Effect.succeed(error) : Effect.die(error))
        )
      )
    }
    return outcomes
  }).pipe(Effect.provide(Layer.mergeAll(FetchHttpClient.layer, TokenStore.layerMemory)), Effect.runPromise)

describe("OAuth step-up against a server that answers 403 insufficient_scope forever", () => {
  it("authorizes each distinct scope set once, then fails every request with StepUpError (repeated)", async () => {
    servers = await start(() => "admin")
    const outcomes = await requests(servers.url, 20)
    // the 401's authorization for the resource's scope, then one step-up for mcp + admin
    expect(servers.tokenRequests).toEqual([["mcp"], ["mcp", "admin"]])
    expect(outcomes).toHaveLength(20)
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ _tag: "StepUpError", reason: "repeated", serverUrl: servers.url, scope: ["mcp", "admin"] })
    }
    expect((outcomes[0] as OAuthError.StepUpError).message).toContain("still answers 403 insufficient_scope")
  })

  it("a server naming a new scope in every challenge cannot grow the requested list past maxScopes", async () => {
    servers = await start((n) => `extra-${n}`)
    const outcomes = await requests(servers.url, 20, { maxScopes: 6 })
    const largest = Math.max(...servers.tokenRequests.map((scope) => scope.length))
    expect(largest).toBeLessThanOrEqual(6)
    expect(servers.tokenRequests.length).toBeLessThanOrEqual(6)
    // once the bound is reached no further authorization runs: the rest fail without a token request
    const last = outcomes.at(-1)
    expect(last).toMatchObject({ _tag: "StepUpError", reason: "too_many_scopes" })
    expect((last as OAuthError.StepUpError).scope.length).toBeGreaterThan(6)
    expect(outcomes.every((outcome) => typeof outcome !== "number")).toBe(true)
  })

  it("the default bound holds too (32 scopes), however many requests", async () => {
    servers = await start((n) => `extra-${n}`)
    const outcomes = await requests(servers.url, 60)
    expect(Math.max(...servers.tokenRequests.map((scope) => scope.length))).toBeLessThanOrEqual(32)
    expect(servers.tokenRequests.length).toBeLessThanOrEqual(32)
    expect(outcomes.at(-1)).toMatchObject({ _tag: "StepUpError", reason: "too_many_scopes" })
  })

  it("past the step-up window the same set may be authorized again (window 0: once per request)", async () => {
    servers = await start(() => "admin")
    await requests(servers.url, 3, { windowMs: 0 })
    // each request steps up once; its retry's refusal ends it without a second authorization
    expect(servers.tokenRequests).toEqual([["mcp"], ["mcp", "admin"], ["mcp", "admin"], ["mcp", "admin"]])
  })
})
