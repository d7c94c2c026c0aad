/**
 * DPoP across instances: two resource servers for one resource URI (the everything server behind
 * `ResourceServer` on `NodeServe`, on two ports, each with its own PostgreSQL pool), as behind a
 * load balancer without sticky routing. With a shared `dpop.nonceSecret` and `PgDpopReplay` on one
 * schema, a nonce one instance issued is accepted by the other, and a proof one accepted is refused
 * by both afterwards (and of one proof sent to both at once, one request passes). With the
 * defaults, a nonce is good only where it was issued and each instance remembers only its own
 * proofs. A replay memory that cannot answer refuses the proof (fail closed). `PgDpopReplay` on its
 * own: claims, expiry, a race of claims, the cleanup.
 */
import { PgClient } from "@effect/sql-pg"
import * as Authorization from "@snodo/core/Authorization"
import { DpopReplay } from "@snodo/oauth/DpopReplay"
import * as JwtVerifier from "@snodo/oauth/JwtVerifier"
import * as ResourceServer from "@snodo/oauth/ResourceServer"
import * as Scopes from "@snodo/oauth/Scopes"
import * as PgDpopReplay from "@snodo/postgres/PgDpopReplay"
import { Effect, Exit, Layer, ManagedRuntime, Redacted } from "effect"
import { FetchHttpClient, HttpServer } from "effect/http"
import { createHash } from "node:crypto"
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as OAuth from "../../examples/everything/oauth.ts"
import { ServerLayer } from "../../examples/everything/server.ts"
import { post, request, sleep } from "../../packages/http/test/support/Raw.ts"
import { client, query, testSchema } from "../../packages/postgres/test/Database.ts"
import * as AuthorizationServer from "../support/AuthorizationServer.ts"
import { freePort } from "../support/FreePort.ts"

const schema = testSchema("snodo_dpop")
const secret = Redacted.make("a shared nonce secret of the fleet, 48 chars....")

let as: AuthorizationServer.TestAuthorizationServer
const running: Array<ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>> = []

beforeAll(async () => {
  as = await AuthorizationServer.start({}, { dpop: true })
})

afterAll(async () => {
  for (const runtime of running) await runtime.dispose()
  await as?.stop()
})

type Key = { readonly privateKey: CryptoKey; readonly jwk: JWK }

const keyPair = async (): Promise<Key> => {
  const { privateKey, publicKey } = await generateKeyPair("ES256")
  const { crv, kty, x, y } = await exportJWK(publicKey)
  return { privateKey, jwk: { crv, kty, x, y } as JWK }
}

const ath = (token: string) => createHash("sha256").update(token).digest("base64url")

/** A fleet of instances serving one resource URI (the first instance's address, as a balancer's would be). */
const fleet = async (size: number, options: ResourceServer.Options["dpop"], replay?: () => Layer.Layer<DpopReplay, unknown>) => {
  const ports = await Promise.all(Array.from({ length: size }, () => freePort()))
  const resource = `http://127.0.0.1:${ports[0]}/mcp`
  for (const port of ports) {
    const instance = ResourceServer.layerServe({ port, host: "127.0.0.1" }).pipe(
      Layer.provide(ResourceServer.layer({ resource, scopesSupported: ["mcp"], dpop: options })),
      Layer.provide(JwtVerifier.layer({ issuer: as.issuer, leeway: 0 })),
      Layer.provide(FetchHttpClient.layer),
      Layer.provide(ServerLayer.pipe(Layer.provide(Authorization.layer(Scopes.requireScopes(OAuth.scopes)))))
    )
    const runtime = ManagedRuntime.make(replay === undefined ? instance : instance.pipe(Layer.provide(replay())))
    running.push(runtime)
    await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  }
  const key = await keyPair()
  const token = await as.mint({ aud: resource, scope: "mcp", sub: "alice", cnf: { jkt: AuthorizationServer.thumbprint(key.jwk) } })
  /** A proof for a POST to the resource. */
  const proof = (nonce: string | undefined) =>
    new SignJWT({ htm: "POST", htu: resource, ath: ath(token), ...(nonce === undefined ? {} : { nonce }) })
      .setProtectedHeader({ typ: "dpop+jwt", alg: "ES256", jwk: key.jwk })
      .setJti(crypto.randomUUID())
      .setIssuedAt()
      .sign(key.privateKey)
  /** `tools/list` on instance `at` with that proof. */
  const call = (at: number, dpop: string) => post(`http://127.0.0.1:${ports[at]}/mcp`, request("tools/list"), { authorization: `DPoP ${token}`, dpop })
  /** The nonce instance `at` hands out in its challenge. */
  const nonceOf = async (at: number) => {
    const challenged = await call(at, await proof(undefined))
    expect(challenged.status).toBe(401)
    expect(challenged.headers["www-authenticate"]).toMatch(/^DPoP error="use_dpop_nonce"/)
    return challenged.headers["dpop-nonce"] as string
  }
  return { call, nonceOf, proof }
}

const challengeOf = (response: { readonly headers: Record<string, unknown> }) => String(response.headers["www-authenticate"])

const pgReplay = () => PgDpopReplay.layer({ schema }).pipe(Layer.provide(client({ maxConnections: 2 })))

describe("DPoP behind a load balancer: a shared nonce secret and PgDpopReplay", () => {
  it("a nonce from one instance is accepted by the other; a proof accepted once is refused everywhere", async () => {
    const { call, nonceOf, proof } = await fleet(2, { required: true, nonce: true, nonceSecret: secret }, pgReplay)
    const nonce = await nonceOf(0)
    const once = await proof(nonce)
    expect((await call(1, once)).status).toBe(200)
    for (const at of [0, 1]) {
      const replayed = await call(at, once)
      expect(replayed.status).toBe(401)
      expect(challengeOf(replayed)).toMatch(/error_description="The DPoP proof was used before \(jti replay\)"/)
    }
    // One proof sent to both instances at the same moment: exactly one request passes.
    for (let round = 0; round < 5; round++) {
      const raced = await proof(nonce)
      const statuses = (await Promise.all([call(0, raced), call(1, raced)])).map((response) => response.status)
      expect(statuses.toSorted()).toEqual([200, 401])
    }
  })

  it("with the defaults, a nonce is good only where it was issued, and each instance remembers only its own proofs", async () => {
    const { call, nonceOf, proof } = await fleet(2, { required: true, nonce: true })
    const nonce = await nonceOf(0)
    const elsewhere = await call(1, await proof(nonce))
    expect(elsewhere.status).toBe(401)
    expect(challengeOf(elsewhere)).toMatch(/^DPoP error="use_dpop_nonce"/)
    // What PgDpopReplay is for: the in-process memories do not know each other's proofs.
    const unshared = await fleet(2, { required: true })
    const once = await unshared.proof(undefined)
    expect((await unshared.call(0, once)).status).toBe(200)
    expect((await unshared.call(1, once)).status).toBe(200)
    expect((await unshared.call(1, once)).status).toBe(401)
  })

  it("a replay memory that cannot answer refuses the proof, and the server keeps serving once it is back", async () => {
    const { call, proof } = await fleet(1, { required: true }, pgReplay)
    expect((await call(0, await proof(undefined))).status).toBe(200)
    await query(Effect.flatMap(Effect.service(PgClient.PgClient), (sql) => sql.unsafe(`ALTER TABLE ${schema}.snodo_dpop_proofs RENAME TO snodo_dpop_proofs_away`)))
    try {
      const refused = await call(0, await proof(undefined))
      expect(refused.status).toBe(401)
      expect(challengeOf(refused)).toMatch(/error_description="The DPoP proof could not be checked against replay; retry with a fresh proof"/)
    } finally {
      await query(Effect.flatMap(Effect.service(PgClient.PgClient), (sql) => sql.unsafe(`ALTER TABLE ${schema}.snodo_dpop_proofs_away RENAME TO snodo_dpop_proofs`)))
    }
    expect((await call(0, await proof(undefined))).status).toBe(200)
  })

  it("a nonce secret shorter than 32 characters refuses to start, saying so", async () => {
    const exit = await Effect.runPromiseExit(Effect.scoped(Layer.build(
      ResourceServer.layer({ resource: "https://mcp.example.com/mcp", dpop: { nonce: true, nonceSecret: Redacted.make("short") } }).pipe(
        Layer.provide(JwtVerifier.layer({ issuer: as.issuer })),
        Layer.provide(FetchHttpClient.layer)
      )
    )))
    expect(Exit.isFailure(exit) && String(exit.cause)).toMatch(/dpop\.nonceSecret: at least 32 characters are needed, got 5/)
  })
})

describe("PgDpopReplay", () => {
  const run = <A, E>(program: Effect.Effect<A, E, DpopReplay>, cleanupIntervalMs?: number) =>
    Effect.runPromise(program.pipe(
      Effect.provide(PgDpopReplay.layer({ schema, ...(cleanupIntervalMs === undefined ? {} : { cleanupIntervalMs }) }).pipe(Layer.provide(client()))),
      Effect.scoped
    ))

  it("claims a proof once until it expires; of many claims at once, one wins", async () => {
    const key = `thumbprint.${crypto.randomUUID()}`
    const claimed = await run(Effect.gen(function*() {
      const replay = yield* DpopReplay
      const now = Date.now()
      const sequence = [
        yield* replay.claim(key, now, now + 1_000), // fresh
        yield* replay.claim(key, now + 500, now + 1_500), // a replay within its time
        yield* replay.claim(key, now + 1_000, now + 2_000) // its time is over: fresh again
      ]
      const raced = `thumbprint.${crypto.randomUUID()}`
      const racers = yield* Effect.all(Array.from({ length: 20 }, () => replay.claim(raced, now, now + 1_000)), { concurrency: "unbounded" })
      return { racers, sequence }
    }))
    expect(claimed.sequence).toEqual([true, false, true])
    expect(claimed.racers.filter(Boolean)).toHaveLength(1)
  })

  it("deletes expired proofs in the background", async () => {
    const key = `thumbprint.${crypto.randomUUID()}`
    const count = () =>
      query(Effect.flatMap(Effect.service(PgClient.PgClient), (sql) =>
        sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM ${sql(`${schema}.snodo_dpop_proofs`)} WHERE proof = ${key}`))
    await run(Effect.gen(function*() {
      const replay = yield* DpopReplay
      yield* replay.claim(key, Date.now(), Date.now() + 50)
      expect((yield* Effect.promise(count))[0]?.n).toBe(1)
      // Gone within a few cleanup rounds (polled: a loaded machine may delay a round).
      let left = 1
      for (let waited = 0; left > 0 && waited < 10_000; waited += 100) {
        yield* Effect.promise(() => sleep(100))
        left = (yield* Effect.promise(count))[0]?.n ?? 0
      }
      expect(left).toBe(0)
    }), 100)
  })
})
