/**
 * The OAuth client end to end, every boundary real: the everything server over Streamable HTTP as
 * an OAuth 2.1 resource server (`@snodo/oauth`: JWTs verified against the authorization server's
 * JWKS, audience bound to `http://127.0.0.1:<port>/mcp`, scope `mcp` for everything and
 * `mcp:admin` for the trigger tools), a real authorization server on loopback
 * (`support/AuthorizationServer.ts`, on `oauth2-mock-server`), and `FetchHttpClient` wrapped by
 * `OAuthClient`. Plain JSON-RPC POSTs stand in for the MCP client.
 */
import { Effect, Exit, Layer, ManagedRuntime } from "effect"
import { FetchHttpClient, HttpClient, type HttpClientError, HttpClientRequest, HttpServer } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Everything from "../../../../examples/everything/oauth.ts"
import * as AuthorizationPrompt from "../../src/oauth/AuthorizationPrompt.ts"
import * as OAuthClient from "../../src/oauth/OAuthClient.ts"
import * as OAuthError from "../../src/oauth/OAuthError.ts"
import * as TokenStore from "../../src/oauth/TokenStore.ts"
import * as AuthorizationServer from "./support/AuthorizationServer.ts"
import { freePort } from "../../../../test/support/FreePort.ts"

let as: AuthorizationServer.TestAuthorizationServer
let resourceServer: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>
let url = ""

beforeAll(async () => {
  as = await AuthorizationServer.start()
  const port = await freePort()
  url = `http://127.0.0.1:${port}/mcp`
  resourceServer = ManagedRuntime.make(Everything.layer({ issuer: as.issuer, port, leeway: 0 }))
  await resourceServer.runPromise(Effect.service(HttpServer.HttpServer))
})

afterAll(async () => {
  await resourceServer?.dispose()
  await as?.stop()
})

const authorizationCode: OAuthClient.Options = {
  clientName: "oauth-client-e2e",
  flow: { grant: "authorization_code", redirectUri: "http://127.0.0.1:8765/callback" }
}

let nextId = 1
/** One 2026-07-28 JSON-RPC request through `client`: the status and the JSON body. */
const rpc = <E>(client: HttpClient.HttpClient.With<E>, method: string, params: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const body = {
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "oauth-e2e", version: "1.0.0" }
        }
      }
    }
    const name = typeof params["name"] === "string" ? { "mcp-name": params["name"] } : {}
    const response = yield* client.execute(
      HttpClientRequest.post(url, {
        headers: { accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...name }
      }).pipe(HttpClientRequest.bodyJsonUnsafe(body))
    )
    const json = (yield* response.json) as { result?: Record<string, unknown>; error?: unknown }
    return { status: response.status, json }
  })

/** A wrapped client with its own store (returned too), run to completion. */
const withClient = <A, E>(
  options: OAuthClient.Options,
  use: (client: HttpClient.HttpClient.With<HttpClientError.HttpClientError | OAuthError.OAuthError>, store: TokenStore.TokenStore["Service"]) => Effect.Effect<A, E>,
  prompt: Layer.Layer<AuthorizationPrompt.AuthorizationPrompt> = AuthorizationPrompt.layerHeadless,
  store: TokenStore.TokenStore["Service"] = TokenStore.makeMemory()
) =>
  Effect.gen(function*() {
    const oauth = yield* OAuthClient.make(options)
    const client = oauth.wrap(yield* HttpClient.HttpClient)
    return yield* use(client, store)
  }).pipe(
    Effect.provide(Layer.mergeAll(FetchHttpClient.layer, Layer.succeed(TokenStore.TokenStore, store), prompt)),
    Effect.runPromiseExit
  )

const value = <A, E>(exit: Exit.Exit<A, E>): A => {
  if (Exit.isFailure(exit)) throw new Error(`failed: ${String(exit.cause)}`)
  return exit.value
}

describe("OAuthClient: authorization code + PKCE against @snodo/oauth", () => {
  it("401 → resource metadata → OIDC discovery → registration → authorization (PKCE S256, state, iss) → token for the resource → the request succeeds, and the token is reused", async () => {
    const before = { ...as.recorded, authorizations: as.recorded.authorizations.length, registrations: as.recorded.registrations.length, tokens: as.recorded.tokens.length }
    const store = TokenStore.makeMemory()
    const result = value(await withClient(authorizationCode, (client) =>
      Effect.gen(function*() {
        const first = yield* rpc(client, "tools/list")
        const second = yield* rpc(client, "tools/call", { name: "echo", arguments: { message: "hi" } })
        return { first, second }
      }), AuthorizationPrompt.layerHeadless, store))
    expect(result.first.status).toBe(200)
    expect(Array.isArray(result.first.json.result?.["tools"])).toBe(true)
    expect(result.second.status).toBe(200)
    expect(JSON.stringify(result.second.json.result)).toContain("hi")

    const registrations = as.recorded.registrations.slice(before.registrations)
    expect(registrations).toHaveLength(1)
    expect(registrations[0]).toMatchObject({
      client_name: "oauth-client-e2e",
      redirect_uris: ["http://127.0.0.1:8765/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      application_type: "native",
      token_endpoint_auth_method: "none"
    })
    const authorizations = as.recorded.authorizations.slice(before.authorizations)
    expect(authorizations).toHaveLength(1)
    expect(authorizations[0]).toMatchObject({ response_type: "code", code_challenge_method: "S256", resource: url, scope: "mcp" })
    expect(authorizations[0]!["code_challenge"]).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(authorizations[0]!["state"]).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const tokens = as.recorded.tokens.slice(before.tokens)
    expect(tokens).toEqual([{ grant: "authorization_code", resource: url, client: authorizations[0]!["client_id"], scope: "mcp" }])

    const stored = await Effect.runPromise(store.getTokens(url))
    expect(stored).toMatchObject({ issuer: as.issuer, resource: url, scope: ["mcp"] })
    expect(await Effect.runPromise(store.getClient(as.issuer))).toMatchObject({ clientId: authorizations[0]!["client_id"], authMethod: "none" })
  })

  it("concurrent requests answered 401 share one authorization", async () => {
    const before = as.recorded.authorizations.length
    const statuses = value(await withClient(authorizationCode, (client) =>
      Effect.all([rpc(client, "tools/list"), rpc(client, "prompts/list"), rpc(client, "resources/list")], { concurrency: "unbounded" }).pipe(
        Effect.map((responses) => responses.map((response) => response.status))
      )))
    expect(statuses).toEqual([200, 200, 200])
    expect(as.recorded.authorizations.length - before).toBe(1)
  })

  it("403 insufficient_scope → step-up for the union of the held and the challenged scopes → the call succeeds", async () => {
    const before = as.recorded.authorizations.length
    const result = value(await withClient(authorizationCode, (client) =>
      Effect.gen(function*() {
        const list = yield* rpc(client, "tools/list")
        const admin = yield* rpc(client, "tools/call", { name: "test_trigger_tool_change", arguments: {} })
        return { list, admin }
      })))
    expect(result.list.status).toBe(200)
    expect(result.admin.status).toBe(200)
    expect(result.admin.json.error).toBeUndefined()
    const scopes = as.recorded.authorizations.slice(before).map((query) => query["scope"])
    expect(scopes).toEqual(["mcp", "mcp mcp:admin"])
  })

  it("refreshes a token past its expires_in before sending it (refresh_token grant with the resource), without a new authorization", async () => {
    as.setExpiresIn(1)
    try {
      const authorizationsBefore = as.recorded.authorizations.length
      const tokensBefore = as.recorded.tokens.length
      const result = value(await withClient({ ...authorizationCode, refreshLeewayMs: 5_000 }, (client) =>
        Effect.gen(function*() {
          const first = yield* rpc(client, "tools/list")
          const second = yield* rpc(client, "tools/list")
          return [first.status, second.status]
        })))
      expect(result).toEqual([200, 200])
      expect(as.recorded.authorizations.length - authorizationsBefore).toBe(1)
      const grants = as.recorded.tokens.slice(tokensBefore)
      expect(grants.map((token) => token.grant)).toEqual(["authorization_code", "refresh_token"])
      expect(grants[1]).toMatchObject({ resource: url, scope: "mcp" })
    } finally {
      as.setExpiresIn(undefined)
    }
  })

  it("a pre-registered confidential client authenticates with client_secret_basic and registers nothing", async () => {
    as.register("pre-registered", "pr3-secret")
    const registrations = as.recorded.registrations.length
    const tokens = as.recorded.tokens.length
    const result = value(await withClient({
      ...authorizationCode,
      preRegistered: [{ issuer: as.issuer, clientId: "pre-registered", clientSecret: "pr3-secret" }]
    }, (client) => rpc(client, "tools/list")))
    expect(result.status).toBe(200)
    expect(as.recorded.registrations.length).toBe(registrations)
    expect(as.recorded.tokens.slice(tokens)).toEqual([{ grant: "authorization_code", resource: url, client: "pre-registered", scope: "mcp" }])
  })

  it("refuses an authorization response whose state was tampered with, before any token request", async () => {
    const tokens = as.recorded.tokens.length
    const tampering = Layer.effect(
      AuthorizationPrompt.AuthorizationPrompt,
      Effect.map(AuthorizationPrompt.AuthorizationPrompt, (headless) =>
        AuthorizationPrompt.AuthorizationPrompt.of({
          authorize: (authorizationUrl) =>
            Effect.map(headless.authorize(authorizationUrl), (answer) => {
              answer.set("state", "forged")
              return answer
            })
        }))
    ).pipe(Layer.provide(AuthorizationPrompt.layerHeadless))
    const exit = await withClient(authorizationCode, (client) => rpc(client, "tools/list"), tampering)
    expect(Exit.isFailure(exit)).toBe(true)
    const error = Exit.isFailure(exit) ? exit.cause.toString() : ""
    expect(error).toContain("AuthorizationResponseError")
    expect(error).toContain("state does not match")
    expect(as.recorded.tokens.length).toBe(tokens)
  })

  it("refuses an authorization response from another issuer (RFC 9207 iss) without reading its error", async () => {
    const tokens = as.recorded.tokens.length
    const mixUp = Layer.effect(
      AuthorizationPrompt.AuthorizationPrompt,
      Effect.map(AuthorizationPrompt.AuthorizationPrompt, (headless) =>
        AuthorizationPrompt.AuthorizationPrompt.of({
          authorize: (authorizationUrl) =>
            Effect.map(headless.authorize(authorizationUrl), (answer) => {
              answer.set("iss", `${as.issuer}/`)
              return answer
            })
        }))
    ).pipe(Layer.provide(AuthorizationPrompt.layerHeadless))
    const exit = await withClient(authorizationCode, (client) => rpc(client, "tools/list"), mixUp)
    const failure = Exit.isFailure(exit) ? OAuthError.fromCause(exit.cause.reasons[0]?._tag === "Fail" ? exit.cause.reasons[0].error : undefined) : undefined
    expect(failure?._tag).toBe("AuthorizationResponseError")
    expect(failure?._tag === "AuthorizationResponseError" ? failure.reason : undefined).toBe("issuer")
    expect(as.recorded.tokens.length).toBe(tokens)
  })
})

describe("OAuthClient: client credentials", () => {
  it("gets a token with client_secret_basic for the resource and the resource's scopes", async () => {
    as.register("machine", "m4chine")
    const tokens = as.recorded.tokens.length
    const result = value(await withClient({
      clientName: "machine",
      flow: { grant: "client_credentials" },
      preRegistered: [{ clientId: "machine", clientSecret: "m4chine" }]
    }, (client) => rpc(client, "tools/list")))
    expect(result.status).toBe(200)
    expect(as.recorded.tokens.slice(tokens)).toEqual([{ grant: "client_credentials", resource: url, client: "machine", scope: "mcp" }])
  })

  it("a wrong secret fails with TokenRequestError (invalid_client), carried through OAuthClient.layer as an HttpClientError's cause", async () => {
    as.register("machine-2", "right")
    const Authorized = OAuthClient.layer({
      clientName: "machine-2",
      flow: { grant: "client_credentials" },
      preRegistered: [{ clientId: "machine-2", clientSecret: "wrong" }]
    }).pipe(Layer.provide([FetchHttpClient.layer, TokenStore.layerMemory]))
    const exit = await Effect.runPromiseExit(
      Effect.flatMap(HttpClient.HttpClient, (client) => rpc(client, "tools/list")).pipe(Effect.provide(Authorized))
    )
    expect(Exit.isFailure(exit)).toBe(true)
    const error = Exit.isFailure(exit) && exit.cause.reasons[0]?._tag === "Fail" ? exit.cause.reasons[0].error : undefined
    expect((error as { _tag?: string } | undefined)?._tag).toBe("HttpClientError")
    const oauth = OAuthError.fromCause(error)
    expect(oauth).toMatchObject({ _tag: "TokenRequestError", grantType: "client_credentials", error: "invalid_client", status: 401 })
  })
})
