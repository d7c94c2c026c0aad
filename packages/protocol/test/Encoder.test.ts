import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Encoder from "../src/jsonrpc/Encoder.ts"

/** The result response as it was always written: the id, then the value serialized on its own. */
const written = (id: string | number | bigint, value: unknown): string =>
  `{"jsonrpc":"2.0","id":${typeof id === "bigint" ? id.toString() : JSON.stringify(id)},"result":${JSON.stringify(value)}}`

describe("Encoder.result", () => {
  it("writes every id and JSON value as the id followed by the value serialized alone", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.string(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })),
        fc.dictionary(fc.string(), fc.jsonValue()),
        (id, value) => {
          expect(Encoder.result(id, value)).toBe(written(id, value))
        }
      )
    )
  })

  it("leaves out members that JSON leaves out, and keeps the order of integer-like names", () => {
    const value = { b: 1, skipped: undefined, f: () => 1, 2: "two", a: [undefined, 3], 1: "one" }
    expect(Encoder.result(7, value)).toBe(written(7, value))
    expect(Encoder.result(7, value)).toBe(`{"jsonrpc":"2.0","id":7,"result":{"1":"one","2":"two","b":1,"a":[null,3]}}`)
  })

  it("serializes a value with its own toJSON alone (toJSON sees the key it always saw)", () => {
    const keys: Array<string> = []
    const value = { toJSON: (key: string) => (keys.push(key), { key }) }
    expect(Encoder.result(1, value)).toBe(`{"jsonrpc":"2.0","id":1,"result":{"key":""}}`)
    expect(keys).toEqual([""])
    const nested = { inner: { toJSON: (key: string) => key } }
    expect(Encoder.result("a", nested)).toBe(written("a", nested))
  })

  it("writes scalar results and int64 ids as before", () => {
    expect(Encoder.result(9007199254740993n, "x")).toBe(`{"jsonrpc":"2.0","id":9007199254740993,"result":"x"}`)
    expect(Encoder.result(1, null)).toBe(written(1, null))
    expect(Encoder.result(1, [1, 2])).toBe(written(1, [1, 2]))
  })
})

describe("Encoder.objectWithEncoded", () => {
  it("is the value serialized with the encoded member first, as one object", () => {
    // Names an object literal would reorder (integer-like) or treat apart (`__proto__`) are left to the example below.
    const name = fc.string().filter((key) => key !== "items" && key !== "__proto__" && !/^(0|[1-9]\d*)$/.test(key))
    fc.assert(
      fc.property(
        fc.dictionary(name, fc.jsonValue()),
        fc.array(fc.jsonValue()),
        (value, items) => {
          const text = Encoder.objectWithEncoded(value, "items", JSON.stringify(items))
          expect(text).toBe(JSON.stringify({ items, ...value }))
        }
      )
    )
  })

  it("writes the encoded member first whatever the other names, and no comma for an empty value", () => {
    expect(Encoder.objectWithEncoded({}, "tools", "[]")).toBe(`{"tools":[]}`)
    expect(Encoder.objectWithEncoded({ 2: "b", nextCursor: "c" }, "tools", "[1]")).toBe(`{"tools":[1],"2":"b","nextCursor":"c"}`)
  })
})
