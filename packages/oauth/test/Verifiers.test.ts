/**
 * The two verifiers against a real authorization server on loopback (`oauth2-mock-server`):
 * metadata discovery (RFC 8414, then OpenID Connect, issuer checked), the JWKS cache (one fetch for
 * a flood of tokens signed with a rotated-in key, none for made-up key ids, a refetch after its
 * TTL, no storm while the server is down), and RFC 7662 introspection with its cache. Requests the
 * verifiers send are counted on the HTTP client they are given.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { afterAll, beforeAll } from "vitest"
import * as Introspection from "@snodo/oauth/Introspection"
import * as JwtVerifier from "@snodo/oauth/JwtVerifier"
import { TokenVerifier } from "@snodo/oauth/TokenVerifier"
import * as AuthorizationServer from "../../../test/support/AuthorizationServer.ts"

const resource = "http://127.0.0.1:9/mcp"
const clients = { rs: { secret: "rs-secret", scopes: [] } }
let as: AuthorizationServer.TestAuthorizationServer
let other: AuthorizationServer.TestAuthorizationServer

beforeAll(async () => {
  as = await AuthorizationServer.start(clients)
  other = await AuthorizationServer.start(clients)
})
afterAll(async () => {
  await as?.stop()
  await other?.stop()
})

/** The platform's HTTP client, counting the requests sent, by path. */
const counted = () => {
  const counts = new Map<string, number>()
  const layer = Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (client) =>
      client.pipe(HttpClient.tapRequest((request) =>
        Effect.sync(() => {
          const path = new URL(request.url).pathname
          counts.set(path, (counts.get(path) ?? 0) + 1)
        })
      )))
  ).pipe(Layer.provide(FetchHttpClient.layer))
  return { counts, layer }
}

const verifierOf = (layer: Layer.Layer<TokenVerifier, never, HttpClient.HttpClient>, http: Layer.Layer<HttpClient.HttpClient>) =>
  Effect.service(TokenVerifier).pipe(Effect.provide(layer.pipe(Layer.provide(http))))

const reasonOf = <A>(exit: Exit.Exit<A, { readonly _tag: string; readonly reason?: string }>) =>
  Exit.isFailure(exit) ? exit.cause.reasons.map((reason) => reason._tag === "Fail" ? `${reason.error._tag}:${reason.error.reason ?? ""}` : reason._tag) : "success"

describe("JwtVerifier", () => {
  it.live("discovers the keys through OpenID Connect when RFC 8414 metadata is absent, and verifies a token", () =>
    Effect.gen(function*() {
      const http = counted()
      const verifier = yield* verifierOf(JwtVerifier.layer({ issuer: as.issuer }), http.layer)
      const token = yield* Effect.promise(() => as.mint({ sub: "ada", client_id: "app", aud: [resource, "other"], scope: "mcp files:read" }))
      const verified = yield* verifier.verify(token, resource)
      expect([verified.subject, verified.clientId, verified.scopes, verified.issuer]).toEqual(["ada", "app", ["mcp", "files:read"], as.issuer])
      expect(verified.claims["sub"]).toBe("ada")
      expect(Object.fromEntries(http.counts)).toEqual({
        "/.well-known/oauth-authorization-server": 1,
        "/.well-known/openid-configuration": 1,
        "/jwks": 1
      })
      yield* verifier.verify(token, resource)
      expect(http.counts.get("/jwks")).toBe(1)
    }), { timeout: 10_000 })

  it.live("prefers RFC 8414 metadata, and never uses a document for another issuer", () =>
    Effect.gen(function*() {
      const server = yield* Effect.acquireRelease(Effect.promise(() => AuthorizationServer.start(clients)), (started) => Effect.promise(() => started.stop()))
      let claimed = server.issuer
      server.server.service.addRoute("GET", "/.well-known/oauth-authorization-server", (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ issuer: claimed, jwks_uri: `${server.issuer}/jwks` }))
      })
      const token = yield* Effect.promise(() => server.mint({ aud: resource }))
      const first = counted()
      const verifier = yield* verifierOf(JwtVerifier.layer({ issuer: server.issuer }), first.layer)
      expect((yield* verifier.verify(token, resource)).subject).toBe("test-user")
      expect(Object.fromEntries(first.counts)).toEqual({ "/.well-known/oauth-authorization-server": 1, "/jwks": 1 })
      // A document naming another issuer is skipped (here the OpenID Connect one is right).
      claimed = "https://honest.example"
      const second = counted()
      const next = yield* verifierOf(JwtVerifier.layer({ issuer: server.issuer }), second.layer)
      expect((yield* next.verify(token, resource)).subject).toBe("test-user")
      expect(second.counts.get("/.well-known/openid-configuration")).toBe(1)
      // No document for exactly this issuer (no normalization: the trailing slash differs).
      const wrong = yield* verifierOf(JwtVerifier.layer({ issuer: `${server.issuer}/` }), FetchHttpClient.layer)
      expect(reasonOf(yield* Effect.exit(wrong.verify(token, resource)))).toEqual(["VerifierUnavailable:"])
    }).pipe(Effect.scoped), { timeout: 10_000 })

  it.live("refuses each invalid token with its reason", () =>
    Effect.gen(function*() {
      const verifier = yield* verifierOf(JwtVerifier.layer({ issuer: as.issuer, leeway: "5 seconds" }), FetchHttpClient.layer)
      const cases = {
        "InvalidToken:expired": as.mint({ aud: resource }, { expiresIn: -10 }),
        "InvalidToken:audience": as.mint({ aud: "http://127.0.0.1:9/mcp/admin" }),
        "InvalidToken:issuer": as.mint({ aud: resource, iss: "http://127.0.0.1:1" }),
        "InvalidToken:not_yet_valid": as.mint({ aud: resource, nbf: Math.floor(Date.now() / 1000) + 60 }),
        "InvalidToken:claims": as.mint({ aud: resource, sub: undefined, client_id: undefined }),
        "InvalidToken:unknown_key": other.mint({ aud: resource }),
        "InvalidToken:malformed": Promise.resolve("a.b.c")
      }
      for (const [expected, minted] of Object.entries(cases)) {
        const token = yield* Effect.promise(() => minted)
        expect([expected, reasonOf(yield* Effect.exit(verifier.verify(token, resource)))]).toEqual([expected, [expected]])
      }
      // Inside the leeway an expired token is still accepted.
      const justExpired = yield* Effect.promise(() => as.mint({ aud: resource }, { expiresIn: -2 }))
      expect((yield* verifier.verify(justExpired, resource)).subject).toBe("test-user")
      // A shared-secret algorithm is refused before any key is looked up.
      const hs256 = ["eyJhbGciOiJIUzI1NiJ9", Buffer.from(JSON.stringify({ aud: resource, sub: "x" })).toString("base64url"), "c2ln"].join(".")
      expect(reasonOf(yield* Effect.exit(verifier.verify(hs256, resource)))).toEqual(["InvalidToken:algorithm"])
    }), { timeout: 10_000 })

  it.effect("a rotated-in key costs one JWKS fetch for many tokens; made-up key ids cost none", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const http = counted()
      const verifier = yield* verifierOf(JwtVerifier.layer({ issuer: as.issuer, minRefreshInterval: "30 seconds" }), http.layer)
      yield* verifier.verify(yield* Effect.promise(() => as.mint({ aud: resource })), resource)
      expect(http.counts.get("/jwks")).toBe(1)
      // Within the minimum interval of that fetch, a token signed with a key not seen yet is refused, unfetched.
      const early = yield* Effect.promise(() => other.mint({ aud: resource }))
      expect(reasonOf(yield* Effect.exit(verifier.verify(early, resource)))).toEqual(["InvalidToken:unknown_key"])
      expect(http.counts.get("/jwks")).toBe(1)
      yield* TestClock.adjust("31 seconds")
      const rotated = yield* Effect.promise(() => as.server.issuer.keys.generate("ES256"))
      const tokens = yield* Effect.promise(() => Promise.all(Array.from({ length: 20 }, (_, i) => as.mint({ aud: resource, sub: `u${i}` }, { kid: rotated.kid }))))
      const subjects = yield* Effect.forEach(tokens, (token) => Effect.map(verifier.verify(token, resource), (v) => v.subject), { concurrency: "unbounded" })
      expect(subjects).toEqual(tokens.map((_, i) => `u${i}`))
      expect(http.counts.get("/jwks")).toBe(2)
      const unknown = yield* Effect.promise(() => Promise.all(Array.from({ length: 10 }, () => other.mint({ aud: resource }))))
      const refused = yield* Effect.forEach(unknown, (token) => Effect.exit(verifier.verify(token, resource)), { concurrency: "unbounded" })
      expect(refused.map(reasonOf)).toEqual(unknown.map(() => ["InvalidToken:unknown_key"]))
      expect(http.counts.get("/jwks")).toBe(2)
    }), { timeout: 10_000 })

  it.effect("fetches the keys (and the metadata) again once their TTL has passed", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.now())
      const http = counted()
      const verifier = yield* verifierOf(JwtVerifier.layer({ issuer: as.issuer, keysTtl: "10 minutes" }), http.layer)
      const token = yield* Effect.promise(() => as.mint({ aud: resource }))
      yield* verifier.verify(token, resource)
      yield* TestClock.adjust("9 minutes")
      yield* verifier.verify(token, resource)
      expect([http.counts.get("/jwks"), http.counts.get("/.well-known/openid-configuration")]).toEqual([1, 1])
      yield* TestClock.adjust("2 minutes")
      yield* verifier.verify(token, resource)
      expect([http.counts.get("/jwks"), http.counts.get("/.well-known/openid-configuration")]).toEqual([2, 2])
    }), { timeout: 10_000 })

  it.live("an unreachable authorization server makes tokens unverifiable (503), with one attempt per interval", () =>
    Effect.gen(function*() {
      const http = counted()
      const verifier = yield* verifierOf(JwtVerifier.layer({ issuer: "http://127.0.0.1:1", timeout: "2 seconds" }), http.layer)
      const token = yield* Effect.promise(() => as.mint({ aud: resource }))
      const exits = yield* Effect.forEach(Array.from({ length: 10 }), () => Effect.exit(verifier.verify(token, resource)), { concurrency: "unbounded" })
      expect(exits.map(reasonOf)).toEqual(exits.map(() => ["VerifierUnavailable:"]))
      expect([...http.counts.values()].reduce((a, b) => a + b, 0)).toBe(1)
    }), { timeout: 10_000 })
})

describe("Introspection", () => {
  const layer = (options: Partial<Introspection.Options> = {}) =>
    Introspection.layer({ issuer: as.issuer, clientId: "rs", clientSecret: Redacted.make("rs-secret"), ...options })

  it.live("accepts an active token for this resource, and reuses the answer", () =>
    Effect.gen(function*() {
      const verifier = yield* verifierOf(layer(), FetchHttpClient.layer)
      const exp = Math.floor(Date.now() / 1000) + 600
      const token = as.opaque({ sub: "ada", client_id: "app", scope: "mcp", aud: resource, iss: as.issuer, exp })
      const before = as.introspections()
      const verified = yield* verifier.verify(token, resource)
      expect([verified.subject, verified.clientId, verified.scopes, verified.expiresAt]).toEqual(["ada", "app", ["mcp"], exp * 1000 + 30_000])
      yield* verifier.verify(token, resource)
      expect(as.introspections() - before).toBe(1)
    }), { timeout: 10_000 })

  it.live("refuses inactive, foreign-audience, audience-less, other-issuer and expired tokens", () =>
    Effect.gen(function*() {
      const verifier = yield* verifierOf(layer({ cacheTtl: 0, leeway: 0 }), FetchHttpClient.layer)
      const cases = {
        "InvalidToken:inactive": "never-issued",
        "InvalidToken:audience": as.opaque({ sub: "a", aud: "http://127.0.0.1:9/other" }),
        "InvalidToken:issuer": as.opaque({ sub: "a", aud: resource, iss: "http://127.0.0.1:1" }),
        "InvalidToken:expired": as.opaque({ sub: "a", aud: resource, exp: Math.floor(Date.now() / 1000) - 1 })
      }
      for (const [expected, token] of Object.entries(cases)) {
        expect([expected, reasonOf(yield* Effect.exit(verifier.verify(token, resource)))]).toEqual([expected, [expected]])
      }
      expect(reasonOf(yield* Effect.exit(verifier.verify(as.opaque({ sub: "a" }), resource)))).toEqual(["InvalidToken:audience"])
    }), { timeout: 10_000 })

  it.live("a resource server the authorization server does not know gets no answer (503)", () =>
    Effect.gen(function*() {
      const verifier = yield* verifierOf(layer({ clientSecret: Redacted.make("wrong") }), FetchHttpClient.layer)
      const token = as.opaque({ sub: "a", aud: resource })
      expect(reasonOf(yield* Effect.exit(verifier.verify(token, resource)))).toEqual(["VerifierUnavailable:"])
    }), { timeout: 10_000 })
})
