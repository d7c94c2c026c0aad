/**
 * The OAuth client's signed artifacts, verified with `jose` as a server would: a `private_key_jwt`
 * client assertion (RFC 7523 §3) and a DPoP proof (RFC 9449 §4.2/§4.3); and a key that cannot be
 * imported, refused with a typed error.
 */
import { Effect, Exit } from "effect"
import { calculateJwkThumbprint, decodeProtectedHeader, exportPKCS8, generateKeyPair, importJWK, type JWK, jwtVerify } from "jose"
import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import * as ClientAssertion from "../../src/oauth/ClientAssertion.ts"
import * as Dpop from "../../src/oauth/Dpop.ts"

describe("ClientAssertion", () => {
  it("signs iss = sub = client_id, aud = the issuer, a fresh jti and a short expiry", async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true })
    const key = await Effect.runPromise(ClientAssertion.fromPkcs8(await exportPKCS8(privateKey), "ES256", "key-1"))
    const sign = ClientAssertion.sign(key, { clientId: "agent", audience: "https://auth.example.com" })
    const [first, second] = await Effect.runPromise(Effect.all([sign, sign]))
    const { payload, protectedHeader } = await jwtVerify(first!, publicKey, { audience: "https://auth.example.com", issuer: "agent", subject: "agent" })
    expect(protectedHeader).toMatchObject({ alg: "ES256", kid: "key-1" })
    expect(payload.exp! - payload.iat!).toBe(60)
    expect(typeof payload.jti).toBe("string")
    expect((await jwtVerify(second!, publicKey)).payload.jti).not.toBe(payload.jti)
  })

  it("a PEM that is not a PKCS #8 key fails with SigningKeyError", async () => {
    const exit = await Effect.runPromiseExit(ClientAssertion.fromPkcs8("-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----", "ES256"))
    expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("SigningKeyError")
  })
})

describe("Dpop.proof", () => {
  it("is a dpop+jwt with the public jwk only, htm/htu (no query), iat, jti, ath and nonce", async () => {
    const key = await Effect.runPromise(Dpop.generate("ES256"))
    const token = "access-token-value"
    const proof = await Effect.runPromise(Dpop.proof(key, { method: "post", url: "https://mcp.example.com/mcp?x=1#f", accessToken: token, nonce: "n-1" }))
    const header = decodeProtectedHeader(proof)
    expect(header.typ).toBe("dpop+jwt")
    expect(Object.keys(header.jwk as JWK).toSorted()).toEqual(["crv", "kty", "x", "y"])
    const { payload } = await jwtVerify(proof, await importJWK(header.jwk as JWK, "ES256"), { typ: "dpop+jwt" })
    expect(payload).toMatchObject({ htm: "POST", htu: "https://mcp.example.com/mcp", nonce: "n-1", ath: createHash("sha256").update(token).digest("base64url") })
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(60)
    expect(key.thumbprint).toBe(await calculateJwkThumbprint(header.jwk as JWK, "sha256"))
    const again = await Effect.runPromise(Dpop.proof(key, { method: "POST", url: "https://mcp.example.com/mcp" }))
    const next = (await jwtVerify(again, await importJWK(header.jwk as JWK, "ES256"))).payload
    expect(next.jti).not.toBe(payload.jti)
    expect(next.ath).toBeUndefined()
  })

  it("a nonce cache keeps the latest nonce per origin, bounded", () => {
    const nonces = Dpop.makeNonceCache(2)
    nonces.set("https://a.example/token", "1")
    nonces.set("https://a.example/other", "2")
    nonces.set("https://b.example/mcp", "3")
    nonces.set("https://c.example/mcp", "4")
    expect([nonces.get("https://a.example/x"), nonces.get("https://b.example/mcp"), nonces.get("https://c.example/")]).toEqual([undefined, "3", "4"])
  })

  it("recognises a resource server's nonce challenge", () => {
    expect(Dpop.isNonceChallenge(401, { "www-authenticate": 'DPoP error="use_dpop_nonce"', "dpop-nonce": "n" })).toBe(true)
    expect(Dpop.isNonceChallenge(401, { "www-authenticate": 'DPoP error="invalid_dpop_proof"', "dpop-nonce": "n" })).toBe(false)
    expect(Dpop.isNonceChallenge(401, { "www-authenticate": 'DPoP error="use_dpop_nonce"' })).toBe(false)
  })
})
