import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Shaping from "@snodo/core/extension/Shaping"

const serverInfo = { name: "shaping", version: "1.0.0" }
const key = "io.modelcontextprotocol/serverInfo"

/** The shaping as it was written before: a copy with `resultType`, then `_meta` assigned. */
const reference = (result: Readonly<Record<string, unknown>>, cache: Shaping.CacheHint | undefined): Record<string, unknown> => {
  const resultType = result["resultType"] ?? "complete"
  const handlerMeta = result["_meta"] as Record<string, unknown> | undefined
  const shaped: Record<string, unknown> = { ...result, resultType }
  shaped["_meta"] = handlerMeta === undefined ? { [key]: serverInfo } : { ...handlerMeta, [key]: serverInfo }
  if (cache !== undefined && resultType === "complete") {
    shaped["ttlMs"] = cache.ttlMs
    shaped["cacheScope"] = cache.cacheScope
  }
  return shaped
}

const member = fc.oneof(fc.constantFrom("resultType", "_meta", "ttlMs", "content", "1", "0"), fc.string())

describe("Shaping.shape", () => {
  it("writes the same members in the same order, whatever members the result has", () => {
    fc.assert(
      fc.property(
        fc.dictionary(member, fc.oneof(fc.jsonValue(), fc.dictionary(fc.string(), fc.jsonValue()))),
        fc.option(fc.constant(Shaping.defaultCacheHint), { nil: undefined }),
        (result, cache) => {
          const shaped = Shaping.shape(result, serverInfo, cache)
          const expected = reference(result, cache)
          expect(Object.keys(shaped)).toEqual(Object.keys(expected))
          expect(JSON.stringify(shaped)).toBe(JSON.stringify(expected))
        }
      )
    )
  })

  it("never changes the handler's object", () => {
    const result = Object.freeze({ content: [], _meta: Object.freeze({ a: 1 }) })
    expect(Shaping.shape(result, serverInfo, undefined)).toEqual({ content: [], resultType: "complete", _meta: { a: 1, [key]: serverInfo } })
  })
})
