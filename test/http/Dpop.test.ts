/**
 * DPoP end to end (RFC 9449; SEP-1932): the everything server as a resource server that accepts
 * DPoP-bound tokens only and demands server nonces (`ResourceServer`'s `dpop: { required: true,
 * nonce: true }`), a real authorization server on loopback that binds tokens to the proof key of
 * the token request (`test/support/AuthorizationServer.ts`), and `@snodo/client` with a DPoP key:
 * the token request carries a proof, every MCP request `Authorization: DPoP …` and a fresh proof,
 * and the server's `use_dpop_nonce` challenge is answered; the same through a mounted `McpHttp`
 * route with `ResourceServer.middleware`. Then each refusal on the wire, with
 * proofs signed here: no proof, a proof for another method or URI, too old, for another token, by
 * another key, replayed, without the nonce; a bound token presented as Bearer; an unbound token;
 * and the optional mode, where unbound Bearer tokens stay accepted.
 */
import { Effect, Exit, Layer, ManagedRuntime } from "effect"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Authorization from "@snodo/core/Authorization"
import * as McpHttp from "@snodo/http/McpHttp"
import * as Scopes from "@snodo/oauth/Scopes"
import { FetchHttpClient, HttpClient, HttpRouter, HttpServer } from "effect/http"
import { createHash } from "node:crypto"
import { createServer } from "node:http"
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Dpop, McpClient, OAuthClient, StreamableHttpClientTransport, TokenStore } from "@snodo/client"
import * as JwtVerifier from "@snodo/oauth/JwtVerifier"
import * as ResourceServer from "@snodo/oauth/ResourceServer"
import * as OAuth from "../../examples/everything/oauth.ts"
import { ServerLayer } from "../../examples/everything/server.ts"
import { errorOf, post, request } from "../../packages/http/test/support/Raw.ts"
import * as AuthorizationServer from "../support/AuthorizationServer.ts"
import { freePort } from "../support/FreePort.ts"

const clients = { agent: { secret: "s3cret", scopes: ["mcp", "mcp:admin"] } }

let as: AuthorizationServer.TestAuthorizationServer
let runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>
let url = ""
let metadataUrl = ""

beforeAll(async () => {
  as = await AuthorizationServer.start(clients, { dpop: true })
  const port = await freePort()
  url = `http://127.0.0.1:${port}/mcp`
  metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`
  runtime = ManagedRuntime.make(OAuth.layer({ issuer: as.issuer, port, leeway: 0, dpop: { required: true, nonce: true } }))
  await runtime.runPromise(Effect.service(HttpServer.HttpServer))
})

afterAll(async () => {
  await runtime?.dispose()
  await as?.stop()
})

/** A key pair of the test's own, and a proof from it. */
const keyPair = async () => {
  const { privateKey, publicKey } = await generateKeyPair("ES256")
  const { crv, kty, x, y } = await exportJWK(publicKey)
  return { privateKey, jwk: { crv, kty, x, y } as JWK }
}

interface ProofClaims {
  readonly htm?: string
  readonly htu?: string
  readonly iat?: number
  readonly ath?: string
  readonly nonce?: string
  readonly jti?: string
}

const proofOf = (key: { readonly privateKey: CryptoKey; readonly jwk: JWK }, claims: ProofClaims) =>
  new SignJWT({ htm: "POST", htu: url, ...claims })
    .setProtectedHeader({ typ: "dpop+jwt", alg: "ES256", jwk: key.jwk })
    .setJti(claims.jti ?? crypto.randomUUID())
    .setIssuedAt(claims.iat ?? Math.floor(Date.now() / 1000))
    .sign(key.privateKey)

const ath = (token: string) => createHash("sha256").update(token).digest("base64url")

/** A token bound to `key`, from the authorization server's token endpoint as a client gets it. */
const boundToken = async (key: { readonly privateKey: CryptoKey; readonly jwk: JWK }, resource = url) => {
  const proof = await proofOf(key, { htu: `${as.issuer}/token` })
  const response = await fetch(`${as.issuer}/token`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from("agent:s3cret").toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
      dpop: proof
    },
    body: new URLSearchParams({ grant_type: "client_credentials", resource, scope: "mcp" })
  })
  const json = await response.json() as { access_token: string; token_type: string }
  expect(json.token_type).toBe("DPoP")
  return json.access_token
}

/** The server's current nonce: the one its challenge hands out. */
const nonceFor = async (token: string, key: { readonly privateKey: CryptoKey; readonly jwk: JWK }) => {
  const challenged = await post(url, request("tools/list"), { authorization: `DPoP ${token}`, dpop: await proofOf(key, { ath: ath(token) }) })
  expect(challenged.status).toBe(401)
  const nonce = challenged.headers["dpop-nonce"]
  expect(typeof nonce).toBe("string")
  return nonce as string
}

describe("DPoP: @snodo/client against @snodo/oauth", () => {
  it("binds its token to its key, answers the nonce challenge, steps up on 403, and calls tools with a fresh proof each time", async () => {
    const seen: Array<string> = []
    const Recording = Layer.effect(
      HttpClient.HttpClient,
      Effect.map(Effect.service(HttpClient.HttpClient), (client) =>
        client.pipe(HttpClient.tap((response) =>
          Effect.sync(() => {
            const target = new URL(response.request.url)
            const scheme = response.request.headers["authorization"]?.split(" ")[0] ?? "-"
            const proof = response.request.headers["dpop"] === undefined ? "" : " proof"
            seen.push(`${response.request.method} ${target.origin === new URL(url).origin ? "" : "AS "}${target.pathname} ${scheme}${proof} ${response.status}`)
          })
        )))
    ).pipe(Layer.provide(FetchHttpClient.layer))
    const before = as.boundTokens()
    const program = Effect.gen(function*() {
      const client = yield* McpClient
      const first = yield* client.callTool("add", { a: 2, b: 40 })
      const second = yield* client.callTool("add", { a: 1, b: 1 })
      // needs mcp:admin: the 403 (a DPoP challenge) makes the client step up, with a new bound token
      const admin = yield* client.callTool("test_trigger_tool_change")
      return [first.structuredContent, second.structuredContent, admin.content]
    })
    const key = await Effect.runPromise(Dpop.generate("ES256"))
    const layer = McpClient.layer({ clientInfo: { name: "dpop-e2e", version: "1.0.0" } }).pipe(
      Layer.provide(StreamableHttpClientTransport.layer({ url })),
      Layer.provide(
        OAuthClient.layer({
          clientName: "dpop-e2e",
          flow: { grant: "client_credentials" },
          preRegistered: [{ clientId: "agent", clientSecret: "s3cret" }],
          dpop: key
        }).pipe(Layer.provide([Recording, TokenStore.layerMemory]))
      )
    )
    expect(await Effect.runPromise(program.pipe(Effect.provide(layer)))).toEqual([
      { sum: 42 },
      { sum: 2 },
      [{ type: "text", text: "Mutation triggered" }]
    ])
    expect(as.boundTokens() - before).toBe(2)
    expect(seen).toContain("POST /mcp DPoP proof 403")
    const mcp = seen.filter((line) => line.startsWith("POST /mcp"))
    // no token → 401 → discovery → the token (with a proof) → the nonce challenge → accepted
    expect(seen.slice(0, 7)).toEqual([
      "POST /mcp - 401",
      "GET /.well-known/oauth-protected-resource/mcp - 200",
      "GET AS /.well-known/oauth-authorization-server - 404",
      "GET AS /.well-known/openid-configuration - 200",
      "POST AS /token Basic proof 200",
      "POST /mcp DPoP proof 401",
      "POST /mcp DPoP proof 200"
    ])
    expect(mcp.filter((line) => line === "POST /mcp DPoP proof 401")).toHaveLength(1)
    expect(mcp.slice(1).every((line) => line.startsWith("POST /mcp DPoP proof"))).toBe(true)
  })
})

describe("DPoP: refusals on the wire", () => {
  const invalidProof = (description: string) =>
    `DPoP error="invalid_dpop_proof", resource_metadata="${metadataUrl}", error_description="${description}", algs="ES256 ES384 ES512 PS256 PS384 PS512 RS256 RS384 RS512 EdDSA"`

  it("a request without a token is challenged with the DPoP scheme and its algorithms", async () => {
    const response = await post(url, request("tools/list"))
    expect(response.status).toBe(401)
    expect(response.headers["www-authenticate"]).toBe(
      `DPoP resource_metadata="${metadataUrl}", scope="mcp", algs="ES256 ES384 ES512 PS256 PS384 PS512 RS256 RS384 RS512 EdDSA"`
    )
  })

  it("a valid proof with the server's nonce is accepted; each other proof is refused with the reason", async () => {
    const key = await keyPair()
    const other = await keyPair()
    const token = await boundToken(key)
    const nonce = await nonceFor(token, key)
    const call = async (proof: string | undefined, scheme = "DPoP") =>
      post(url, request("tools/list"), { authorization: `${scheme} ${token}`, ...(proof === undefined ? {} : { dpop: proof }) })

    const accepted = await call(await proofOf(key, { ath: ath(token), nonce }))
    expect(accepted.status).toBe(200)

    const cases: ReadonlyArray<readonly [string, Promise<string> | undefined, string]> = [
      ["no proof", undefined, "A DPoP-bound token needs a DPoP proof"],
      ["another method", proofOf(key, { htm: "GET", ath: ath(token), nonce }), "The DPoP proof's htm is not this request's method"],
      ["another URI", proofOf(key, { htu: `${url}/other`, ath: ath(token), nonce }), "The DPoP proof's htu is not this request's URI"],
      ["too old", proofOf(key, { iat: Math.floor(Date.now() / 1000) - 600, ath: ath(token), nonce }), "The DPoP proof's iat is outside the accepted window"],
      ["another token's hash", proofOf(key, { ath: ath(`${token}x`), nonce }), "The DPoP proof's ath is not the presented token's hash"],
      ["another key", proofOf(other, { ath: ath(token), nonce }), "The DPoP proof's key is not the key the token is bound to"]
    ]
    for (const [name, proof, description] of cases) {
      const refused = await call(proof === undefined ? undefined : await proof)
      expect([name, refused.status, refused.headers["www-authenticate"]]).toEqual([name, 401, invalidProof(description)])
      expect(errorOf(refused)).toMatchObject({ code: -32001 })
    }
  })

  it("a proof used twice is refused the second time (jti replay)", async () => {
    const key = await keyPair()
    const token = await boundToken(key)
    const nonce = await nonceFor(token, key)
    const proof = await proofOf(key, { ath: ath(token), nonce })
    const headers = { authorization: `DPoP ${token}`, dpop: proof }
    expect((await post(url, request("tools/list"), headers)).status).toBe(200)
    const replayed = await post(url, request("tools/list"), headers)
    expect(replayed.status).toBe(401)
    expect(replayed.headers["www-authenticate"]).toBe(invalidProof("The DPoP proof was used before (jti replay)"))
  })

  it("a proof without the nonce, or with a made-up one: 401 use_dpop_nonce with a DPoP-Nonce to use", async () => {
    const key = await keyPair()
    const token = await boundToken(key)
    for (const nonce of [undefined, "made-up"]) {
      const refused = await post(url, request("tools/list"), {
        authorization: `DPoP ${token}`,
        dpop: await proofOf(key, { ath: ath(token), ...(nonce === undefined ? {} : { nonce }) })
      })
      expect(refused.status).toBe(401)
      expect(refused.headers["www-authenticate"]).toMatch(/^DPoP error="use_dpop_nonce", resource_metadata="[^"]+", error_description="The resource server requires a fresh DPoP nonce"/)
      expect(refused.headers["dpop-nonce"]).toMatch(/^[A-Za-z0-9_-]{43}$/)
    }
  })

  it("a DPoP-bound token presented as Bearer, and an unbound token, are refused invalid_token", async () => {
    const key = await keyPair()
    const bound = await boundToken(key)
    const asBearer = await post(url, request("tools/list"), { authorization: `Bearer ${bound}` })
    expect(asBearer.status).toBe(401)
    expect(asBearer.headers["www-authenticate"]).toContain(
      `error="invalid_token", resource_metadata="${metadataUrl}", error_description="The access token is DPoP-bound: present it with the DPoP scheme and a proof"`
    )
    const unbound = await as.token("agent", { resource: url, scope: "mcp" })
    for (const scheme of ["Bearer", "DPoP"]) {
      const refused = await post(url, request("tools/list"), { authorization: `${scheme} ${unbound}`, dpop: await proofOf(key, { ath: ath(unbound) }) })
      expect([scheme, refused.status]).toEqual([scheme, 401])
      expect(refused.headers["www-authenticate"]).toMatch(/^DPoP error="invalid_token"/)
    }
  })
})

describe("DPoP optional (the dpop option without required): ResourceServer.authenticate", () => {
  const resource = "https://mcp.example.com/mcp"
  const target = { method: "POST", path: "/mcp" }
  const run = <A>(program: Effect.Effect<A, never, ResourceServer.ResourceServer>) =>
    Effect.runPromise(program.pipe(
      Effect.provide(ResourceServer.layer({ resource, dpop: {} }).pipe(
        Layer.provide(JwtVerifier.layer({ issuer: as.issuer })),
        Layer.provide(FetchHttpClient.layer)
      ))
    ))
  /** The principal id of an accepted request, or the status and challenge of a refused one. */
  const outcome = (headers: Record<string, string>, at: typeof target | "no request line" = target) =>
    Effect.gen(function*() {
      const server = yield* ResourceServer.ResourceServer
      const exit = yield* Effect.exit(server.authenticate(headers, at === "no request line" ? undefined : at))
      if (Exit.isSuccess(exit)) return exit.value.principal.id
      const reason = exit.cause.reasons[0]
      return reason?._tag === "Fail" ? `${reason.error.status} ${String(reason.error.headers?.["www-authenticate"] ?? "")}` : "defect"
    })

  it("accepts unbound Bearer tokens and bound DPoP tokens with a proof; refuses a bound token as Bearer", async () => {
    const key = await keyPair()
    const jkt = AuthorizationServer.thumbprint(key.jwk)
    const unbound = await as.mint({ aud: resource, scope: "mcp", sub: "alice" })
    const bound = await as.mint({ aud: resource, scope: "mcp", sub: "bob", cnf: { jkt } })
    const proof = await new SignJWT({ htm: "POST", htu: resource, ath: ath(bound) })
      .setProtectedHeader({ typ: "dpop+jwt", alg: "ES256", jwk: key.jwk })
      .setJti(crypto.randomUUID())
      .setIssuedAt()
      .sign(key.privateKey)
    const results = await run(Effect.all([
      outcome({ authorization: `Bearer ${unbound}` }),
      outcome({ authorization: `DPoP ${bound}`, dpop: proof }),
      outcome({ authorization: `Bearer ${bound}` }),
      outcome({ authorization: `DPoP ${bound}`, dpop: proof }, "no request line")
    ]))
    expect(results[0]).toBe(`user:${as.issuer}#alice`)
    expect(results[1]).toBe(`user:${as.issuer}#bob`)
    // the challenge stays Bearer when DPoP is optional
    expect(results[2]).toMatch(/^401 Bearer error="invalid_token", .*DPoP-bound: present it with the DPoP scheme/)
    // without the request line a proof cannot be checked
    expect(results[3]).toMatch(/^401 DPoP error="invalid_dpop_proof", .*The request's URI is unknown/)
  })
})

describe("DPoP on a mounted route (McpHttp with ResourceServer.middleware)", () => {
  it("our client with a DPoP key is accepted, the nonce challenge answered, through the middleware", async () => {
    const port = await freePort()
    const mounted = `http://127.0.0.1:${port}/mcp`
    const Routes = Layer.mergeAll(McpHttp.layerRoute({ path: "/mcp" }).pipe(Layer.provide(ResourceServer.middleware.layer)), ResourceServer.layerMetadata)
    const served = ManagedRuntime.make(
      HttpRouter.serve(Routes, { disableLogger: true, disableListenLog: true }).pipe(
        Layer.provideMerge(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })),
        Layer.provide(ResourceServer.layer({ resource: mounted, scopesSupported: ["mcp"], dpop: { required: true, nonce: true } }).pipe(
          Layer.provide(JwtVerifier.layer({ issuer: as.issuer, leeway: 0 })),
          Layer.provide(FetchHttpClient.layer)
        )),
        Layer.provide(ServerLayer.pipe(Layer.provide(Authorization.layer(Scopes.requireScopes(OAuth.scopes)))))
      )
    )
    try {
      await served.runPromise(Effect.service(HttpServer.HttpServer))
      const key = await Effect.runPromise(Dpop.generate("ES256"))
      const layer = McpClient.layer({ clientInfo: { name: "dpop-mounted", version: "1.0.0" } }).pipe(
        Layer.provide(StreamableHttpClientTransport.layer({ url: mounted })),
        Layer.provide(OAuthClient.layer({
          clientName: "dpop-mounted",
          flow: { grant: "client_credentials" },
          preRegistered: [{ clientId: "agent", clientSecret: "s3cret" }],
          dpop: key
        }).pipe(Layer.provide([FetchHttpClient.layer, TokenStore.layerMemory])))
      )
      const sum = await Effect.runPromise(Effect.flatMap(McpClient, (client) => client.callTool("add", { a: 20, b: 22 })).pipe(Effect.provide(layer)))
      expect(sum.structuredContent).toEqual({ sum: 42 })
      // and a bound token without a proof is refused by the middleware as by NodeServe
      const token = await boundToken(await keyPair(), mounted)
      const refused = await post(mounted, request("tools/list"), { authorization: `DPoP ${token}` })
      expect(refused.status).toBe(401)
      expect(refused.headers["www-authenticate"]).toMatch(/^DPoP error="invalid_dpop_proof", .*A DPoP-bound token needs a DPoP proof/)
    } finally {
      await served.dispose()
    }
  })
})
