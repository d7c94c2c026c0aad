import { describe, expect, it } from "@effect/vitest"
import { Config, Effect, Exit, Redacted } from "effect"
import * as fc from "fast-check"
import { Keyring } from "@snodo/core"
import { RequestState } from "@snodo/core/extension"
import { InvalidParams } from "@snodo/core/McpError"

const keyringOf = (keys: Keyring.Options["keys"], ttl?: Keyring.Options["ttl"]) =>
  Effect.runSync(Keyring.Keyring.make(ttl === undefined ? { keys } : { keys, ttl }))

const ring = keyringOf([{ id: "k1", secret: new Uint8Array(32).fill(1) }])
const binding: RequestState.Binding = {
  method: "tools/call",
  params: { name: "book", arguments: { city: "Oslo", nights: 2, tags: ["a", "b"] }, _meta: { x: 1 } },
  principal: "alice"
}
const payload: RequestState.Payload = { answers: { step1: { action: "accept", content: { name: "Ada" } } }, states: { n: 1 } }
const now = 1_000_000

const sealed = (): string => {
  const token = RequestState.seal(ring, binding, payload, now)
  if (typeof token !== "string") throw new Error("sealing failed")
  return token
}

const refused = (outcome: unknown) => {
  expect(outcome).toBeInstanceOf(InvalidParams)
  expect((outcome as InvalidParams).message).toBe("Invalid or expired request state")
}

describe("RequestState", () => {
  it("round-trips what it carries", () => {
    expect(RequestState.open(ring, binding, sealed(), now + 1)).toEqual(payload)
  })

  it("ignores _meta, requestState, inputResponses and key order; array order and value types count", () => {
    const token = sealed()
    const same = {
      ...binding,
      params: { arguments: { tags: ["a", "b"], nights: 2, city: "Oslo" }, name: "book", requestState: token, inputResponses: {}, _meta: { y: 2 } }
    }
    expect(RequestState.open(ring, same, token, now)).toEqual(payload)
    for (const args of [{ city: "Oslo", nights: "2", tags: ["a", "b"] }, { city: "Oslo", nights: 2, tags: ["b", "a"] }, { city: "Oslo", nights: 2 }]) {
      refused(RequestState.open(ring, { ...binding, params: { name: "book", arguments: args } }, token, now))
    }
  })

  it("refuses another method, another principal, expiry and an unknown key", () => {
    const token = sealed()
    refused(RequestState.open(ring, { ...binding, method: "prompts/get" }, token, now))
    refused(RequestState.open(ring, { ...binding, principal: "mallory" }, token, now))
    refused(RequestState.open(ring, binding, token, now + 300_000))
    expect(RequestState.open(ring, binding, token, now + 299_999)).toEqual(payload)
    const other = keyringOf([{ id: "k2", secret: new Uint8Array(32).fill(2) }])
    refused(RequestState.open(other, binding, token, now))
    const sameIdOtherSecret = keyringOf([{ id: "k1", secret: new Uint8Array(32).fill(3) }])
    refused(RequestState.open(sameIdOtherSecret, binding, token, now))
  })

  it("keeps verifying after rotation; the newest key signs", () => {
    const token = sealed()
    const rotated = keyringOf([{ id: "k2", secret: new Uint8Array(32).fill(2) }, { id: "k1", secret: new Uint8Array(32).fill(1) }])
    expect(RequestState.open(rotated, binding, token, now)).toEqual(payload)
    const fresh = RequestState.seal(rotated, binding, payload, now) as string
    expect(fresh.startsWith("v1.k2.")).toBe(true)
    refused(RequestState.open(ring, binding, fresh, now))
  })

  it("refuses garbage, oversize tokens and an expiry beyond the longest TTL", () => {
    for (const token of ["", "v1", "v1.k1.1.e30.", "v2" + sealed().slice(2), sealed() + "=", "x".repeat(RequestState.maxTokenBytes + 1)]) {
      refused(RequestState.open(ring, binding, token, now))
    }
    const long = keyringOf([{ id: "k1", secret: new Uint8Array(32).fill(1) }], "900 seconds")
    const token = RequestState.seal(long, binding, payload, now) as string
    expect(RequestState.open(ring, binding, token, now)).toEqual(payload)
    refused(RequestState.open(ring, binding, token, now - 1))
  })

  it("refuses to seal more than 16 KiB", () => {
    const big = RequestState.seal(ring, binding, { answers: {}, states: { blob: "x".repeat(13_000) } }, now)
    expect(typeof big).not.toBe("string")
  })

  it("property: any single-byte change of a sealed token is refused", () => {
    const token = sealed()
    fc.assert(
      fc.property(fc.nat(token.length - 1), fc.integer({ min: 1, max: 255 }), (index, delta) => {
        const code = (token.charCodeAt(index) + delta) % 256
        const changed = token.slice(0, index) + String.fromCharCode(code) + token.slice(index + 1)
        const outcome = RequestState.open(ring, binding, changed, now)
        return outcome instanceof InvalidParams && outcome.message === "Invalid or expired request state"
      }),
      { numRuns: 2000 }
    )
  })

  it("canonical JSON sorts keys and keeps types apart", () => {
    expect(RequestState.canonicalJson({ b: [2, "2", true, null], a: { d: 1, c: undefined } })).toBe('{"a":{"d":1},"b":[2,"2",true,null]}')
  })
})

describe("Keyring", () => {
  const make = (options: Keyring.Options) => Effect.runSyncExit(Keyring.Keyring.make(options))
  const secret = new Uint8Array(32)

  it("refuses short secrets, too many keys, duplicate or bad ids, bad TTLs and non-base64 text", () => {
    const cases: ReadonlyArray<readonly [Keyring.Options, string]> = [
      [{ keys: [] }, "at least one key"],
      [{ keys: [{ id: "a", secret: new Uint8Array(31) }] }, "at least 32 bytes"],
      [{ keys: Array.from({ length: 9 }, (_, i) => ({ id: `k${i}`, secret })) }, "at most 8 keys"],
      [{ keys: [{ id: "a", secret }, { id: "a", secret }] }, "Duplicate key id"],
      [{ keys: [{ id: "a.b", secret }] }, "Key ids"],
      [{ keys: [{ id: "a", secret }], ttl: "901 seconds" }, "at most 900 seconds"],
      [{ keys: [{ id: "a", secret }], ttl: 0 }, "must be positive"],
      [{ keys: [{ id: "a", secret: Redacted.make("not base64!") }] }, "not base64"],
      [{ keys: [{ id: "a", secret: Redacted.make(Buffer.alloc(16).toString("base64")) }] }, "at least 32 bytes"]
    ]
    for (const [options, reason] of cases) {
      const exit = make(options)
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(String(exit.cause)).toContain(reason)
    }
  })

  it("accepts base64 and base64url secrets and a TTL up to 900 s", () => {
    const text = Buffer.alloc(48, 250).toString("base64url")
    const exit = make({ keys: [{ id: "k-1", secret: Redacted.make(text) }, { id: "k_0", secret }], ttl: "15 minutes" })
    expect(Exit.isSuccess(exit)).toBe(true)
    if (Exit.isSuccess(exit)) {
      expect(exit.value.keys.map((key) => key.id)).toEqual(["k-1", "k_0"])
      expect(exit.value.ttlMillis).toBe(900_000)
      expect(exit.value.ephemeral).toBe(false)
    }
  })

  it.effect("reads id:secret pairs from configuration; generates ephemeral keys", () =>
    Effect.gen(function*() {
      const value = `new:${Buffer.alloc(32, 1).toString("base64")},old:${Buffer.alloc(32, 2).toString("base64")}`
      const configured = yield* Keyring.Keyring.useSync((keyring) => keyring).pipe(
        Effect.provide(Keyring.layerConfig(Config.succeed(Redacted.make(value))))
      )
      expect(configured.keys.map((key) => key.id)).toEqual(["new", "old"])
      const ephemeral = yield* Keyring.Keyring.ephemeral()
      expect(ephemeral.ephemeral).toBe(true)
      expect(ephemeral.ttlMillis).toBe(300_000)
    }))
})
