import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as StrictJson from "../src/jsonrpc/StrictJson.ts"

const ok = (text: string, options?: StrictJson.ParseOptions): StrictJson.Ok => {
  const result = StrictJson.parse(text, options)
  if (!("value" in result)) throw new Error(`expected Ok for ${JSON.stringify(text)}, got ${JSON.stringify(result)}`)
  return result
}

const refused = (reason: StrictJson.StrictJsonErrorReason, offset: number) => ({ _tag: "Error", reason, offset })

const nested = (depth: number, open: string, close: string, inner = "1"): string =>
  open.repeat(depth) + inner + close.repeat(depth)

/** Whether some number in an accepted text has an integer part longer than the limit. */
const hasLongInteger = (text: string): boolean => {
  let found = false
  JSON.parse(text, (_key, value: unknown, context?: { readonly source?: string }) => {
    if (typeof value === "number" && context?.source !== undefined) {
      const integerPart = context.source.replace(/^-/, "").split(/[.eE]/)[0]!
      if (integerPart.length > StrictJson.maxIntegerDigits) found = true
    }
    return value
  })
  return found
}

const jsonParseOrFail = (text: string): { readonly accepted: true; readonly value: unknown } | { readonly accepted: false } => {
  try {
    return { accepted: true, value: JSON.parse(text) }
  } catch {
    return { accepted: false }
  }
}

const roundTrip = (value: unknown) => {
  const text = JSON.stringify(value)
  expect(ok(text).value).toStrictEqual(JSON.parse(text))
}

/** Agrees with JSON.parse, except that it also refuses long integers and duplicate keys. */
const agreesWithJsonParse = (text: string) => {
  const ours = StrictJson.parse(text)
  const theirs = jsonParseOrFail(text)
  if (!theirs.accepted) {
    expect(ours).toMatchObject({ _tag: "Error" })
    return
  }
  if ("value" in ours) {
    expect(ours.value).toStrictEqual(theirs.value)
    return
  }
  expect(["duplicate-key", "integer-too-long"]).toContain(ours.reason)
  if (ours.reason === "integer-too-long") expect(hasLongInteger(text)).toBe(true)
  if (!hasLongInteger(text)) expect(ours.reason).toBe("duplicate-key")
}

describe("StrictJson.parse", () => {
  describe("values", () => {
    it("parses every kind of value like JSON.parse", () => {
      const text = ` {"s":"a\\"b\\\\c\\/\\b\\f\\n\\r\\t\\u00e9\\u20AC","n":[0,-0,1.5,-2e-3,1E+2,123456789012345678],` +
        `"t":true,"f":false,"z":null,"o":{},"a":[],"u":"\\ud83d\\ude00"}\r\n\t`
      expect(ok(text).value).toStrictEqual(JSON.parse(text))
    })

    it("keeps -0 and large magnitudes exactly as JSON.parse does", () => {
      expect(Object.is(ok("-0").value, -0)).toBe(true)
      expect(ok("9007199254740993").value).toBe(JSON.parse("9007199254740993"))
      expect(ok("1e400").value).toBe(Infinity)
      expect(ok("123456789012345").value).toBe(123456789012345)
    })

    it("makes a \"__proto__\" member an own data property, never the prototype", () => {
      const text = `{"__proto__":{"polluted":true},"a":{"__proto__":[1]}}`
      const value = ok(text).value as Record<string, unknown>
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
      expect(Object.hasOwn(value, "__proto__")).toBe(true)
      expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toStrictEqual({ polluted: true })
      expect(value["polluted"]).toBeUndefined()
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
      const inner = value["a"] as Record<string, unknown>
      expect(Object.getPrototypeOf(inner)).toBe(Object.prototype)
      expect(Object.keys(inner)).toStrictEqual(["__proto__"])
      expect(value).toStrictEqual(JSON.parse(text))
    })

    it("treats keys that exist on Object.prototype as ordinary keys", () => {
      expect(ok(`{"toString":1,"constructor":2,"hasOwnProperty":3}`).value).toStrictEqual(
        JSON.parse(`{"toString":1,"constructor":2,"hasOwnProperty":3}`)
      )
    })

    it("accepts unpaired surrogates, escaped or raw (RFC 8259 §8.2)", () => {
      expect(ok(`"\\ud800"`).value).toBe("\ud800")
      expect(ok(`"\\udc00x\\ud83d"`).value).toBe("\udc00x\ud83d")
      expect(ok(`"a\ud800b"`).value).toBe("a\ud800b")
      expect(ok(`"\u007f\u2028"`).value).toBe("\u007f\u2028")
    })
  })

  describe("syntax", () => {
    it.each([
      ["", 0],
      ["   ", 3],
      ["{", 1],
      ["[", 1],
      ["[1,]", 3],
      [`{"a":1,}`, 7],
      [`{"a" 1}`, 5],
      [`{"a":}`, 5],
      [`{1:2}`, 1],
      [`{'a':1}`, 1],
      ["[1 2]", 3],
      ["01", 1],
      ["-01", 2],
      ["1.", 2],
      ["1.e3", 2],
      [".5", 0],
      ["-", 1],
      ["-a", 1],
      ["1e", 2],
      ["1e+", 3],
      ["+1", 0],
      ["tru", 0],
      ["nul", 0],
      ["True", 0],
      ["NaN", 0],
      ["Infinity", 0],
      ["\ufeff{}", 0],
      ["\u00a0{}", 0],
      [`"abc`, 4],
      [`"abc\\`, 5],
      [`["a"`, 4],
      [`{"a":1`, 6]
    ])("refuses %j at offset %i", (text, offset) => {
      expect(StrictJson.parse(text)).toStrictEqual(refused("syntax", offset))
    })
  })

  describe("duplicate-key", () => {
    it("refuses a repeated member name at the offset of its quote", () => {
      expect(StrictJson.parse(`{"a":1,"a":2}`)).toStrictEqual(refused("duplicate-key", 7))
    })

    it("compares names after unescaping", () => {
      expect(StrictJson.parse(`{"a":1,"\\u0061":2}`)).toStrictEqual(refused("duplicate-key", 7))
    })

    it("finds duplicates in nested objects and \"__proto__\" duplicates", () => {
      expect(StrictJson.parse(`[{"x":{"k":1,"j":[],"k":2}}]`)).toStrictEqual(refused("duplicate-key", 20))
      expect(StrictJson.parse(`{"__proto__":1,"__proto__":2}`)).toStrictEqual(refused("duplicate-key", 15))
    })

    it("accepts equal names in different objects and distinct names that look alike", () => {
      expect(ok(`{"a":{"a":1},"b":{"a":2},"1":0,"01":1,"A":2}`).value).toStrictEqual({
        a: { a: 1 },
        b: { a: 2 },
        "1": 0,
        "01": 1,
        A: 2
      })
    })
  })

  describe("trailing-data", () => {
    it.each([
      ["1 2", 2],
      ["{} x", 3],
      ["[]]", 2],
      ["nullx", 4],
      [`"a""b"`, 3],
      ["{}\u0000", 2]
    ])("refuses %j at offset %i", (text, offset) => {
      expect(StrictJson.parse(text)).toStrictEqual(refused("trailing-data", offset))
    })

    it("accepts JSON whitespace around the value", () => {
      expect(ok(" \t\r\n{} \t\r\n").value).toStrictEqual({})
    })
  })

  describe("integer-too-long", () => {
    const digits64 = "1".repeat(64)
    const digits65 = "1".repeat(65)

    it("accepts an integer part of 64 digits", () => {
      expect(ok(digits64).value).toBe(Number(digits64))
      expect(ok(`-${digits64}.5e-3`).value).toBe(Number(`-${digits64}.5e-3`))
    })

    it("refuses an integer part of 65 digits at the start of the number", () => {
      expect(StrictJson.parse(digits65)).toStrictEqual(refused("integer-too-long", 0))
      expect(StrictJson.parse(`[1,-${digits65}]`)).toStrictEqual(refused("integer-too-long", 3))
      expect(StrictJson.parse(`{"a":${digits65}.0}`)).toStrictEqual(refused("integer-too-long", 5))
      expect(StrictJson.parse(`${digits65}e-70`)).toStrictEqual(refused("integer-too-long", 0))
    })

    it("does not count fraction or exponent digits", () => {
      expect(ok(`0.${"0".repeat(200)}1`).value).toBe(1e-201)
      expect(ok(`1e${"0".repeat(100)}1`).value).toBe(10)
    })
  })

  describe("depth", () => {
    it("accepts 128 levels and refuses 129 by default", () => {
      expect(ok(nested(128, "[", "]")).value).toBeInstanceOf(Array)
      expect(StrictJson.parse(nested(129, "[", "]"))).toStrictEqual(refused("depth", 128))
      expect(StrictJson.parse(nested(129, "[", "]", ""))).toStrictEqual(refused("depth", 128))
      expect(ok(nested(128, `{"a":`, "}")).value).toBeTypeOf("object")
      expect(StrictJson.parse(nested(129, `{"a":`, "}"))).toStrictEqual(refused("depth", 128 * 5))
    })

    it("counts arrays and objects together", () => {
      expect(StrictJson.parse(`[{"a":[{}]}]`, { maxDepth: 3 })).toStrictEqual(refused("depth", 7))
      expect(ok(`[{"a":[1]},[2]]`, { maxDepth: 3 }).value).toStrictEqual([{ a: [1] }, [2]])
    })

    it("honours a configured maximum, 0 meaning scalars only", () => {
      expect(ok("7", { maxDepth: 0 }).value).toBe(7)
      expect(StrictJson.parse("[]", { maxDepth: 0 })).toStrictEqual(refused("depth", 0))
      expect(StrictJson.parse(" {}", { maxDepth: 0 })).toStrictEqual(refused("depth", 1))
      expect(ok(nested(200, "[", "]"), { maxDepth: 200 }).value).toBeInstanceOf(Array)
      expect(StrictJson.parse(nested(129, "[", "]"), { maxDepth: Number.NaN })).toStrictEqual(refused("depth", 128))
      expect(StrictJson.parse(nested(129, "[", "]"), { maxDepth: -1 })).toStrictEqual(refused("depth", 128))
    })

    it("never overflows the call stack, however deep the nesting allowed", () => {
      const depth = 200_000
      const result = ok(nested(depth, "[", "]"), { maxDepth: Infinity })
      let cursor: unknown = result.value
      for (let k = 0; k < depth; k++) cursor = (cursor as Array<unknown>)[0]
      expect(cursor).toBe(1)
    })
  })

  describe("invalid-string", () => {
    it.each([
      ["\"a\u0001b\"", 2],
      ["\"a\nb\"", 2],
      ["\"\u001f\"", 1],
      [`"ok\\x"`, 3],
      [`"\\'"`, 1],
      [`"\\u12G4"`, 1],
      [`"\\u12"`, 1],
      [`"\\u12`, 1],
      [`"\\U0041"`, 1],
      [`{"a\\q":1}`, 3],
      ["[\"\\n\",\"\t\"]", 7]
    ])("refuses %j at offset %i", (text, offset) => {
      expect(StrictJson.parse(text)).toStrictEqual(refused("invalid-string", offset))
    })
  })

  describe("idLexeme", () => {
    it.each(["1", "-0", "1.0", "1e3", "12345678901234567890", "-1.5E-7", "0"])("reports %s verbatim", (lexeme) => {
      const result = ok(`{"jsonrpc":"2.0", "id" : ${lexeme} ,"method":"ping"}`)
      expect(result.idLexeme).toBe(lexeme)
      expect(result.value).toStrictEqual(JSON.parse(`{"jsonrpc":"2.0","id":${lexeme},"method":"ping"}`))
    })

    it("reports the id when it is the last member, without surrounding whitespace", () => {
      expect(ok(`{"method":"ping","id":\n  42\n}`).idLexeme).toBe("42")
      expect(ok(`{"id":7}`).idLexeme).toBe("7")
    })

    it("is undefined unless the top-level object's \"id\" is a number", () => {
      expect(ok(`{"id":"1"}`).idLexeme).toBeUndefined()
      expect(ok(`{"id":null}`).idLexeme).toBeUndefined()
      expect(ok(`{"id":[1]}`).idLexeme).toBeUndefined()
      expect(ok(`{"method":"ping"}`).idLexeme).toBeUndefined()
      expect(ok(`{"params":{"id":5},"x":[{"id":6}]}`).idLexeme).toBeUndefined()
      expect(ok(`{"\\u0069d":3}`).idLexeme).toBe("3")
      expect(ok(`[{"id":1}]`).idLexeme).toBeUndefined()
      expect(ok("1").idLexeme).toBeUndefined()
    })

    it("is not affected by a nested \"id\" after the top-level one", () => {
      expect(ok(`{"id":1,"params":{"id":2.5}}`).idLexeme).toBe("1")
      expect(ok(`{"params":{"id":2.5},"id":3}`).idLexeme).toBe("3")
    })
  })

  describe("properties", () => {
    it("parses JSON.stringify output of any JSON value to what JSON.parse gives", () => {
      fc.assert(fc.property(fc.jsonValue(), roundTrip), { numRuns: 1000 })
      fc.assert(fc.property(fc.jsonValue({ stringUnit: "binary" }), roundTrip), { numRuns: 500 })
    })

    it("parses pretty-printed JSON too", () => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          const text = JSON.stringify(value, null, "\t")
          expect(ok(`\n${text}\r\n`).value).toStrictEqual(JSON.parse(text))
        }),
        { numRuns: 300 }
      )
    })

    const tokenSoup = fc
      .array(
        fc.constantFrom(
          "{", "}", "[", "]", ":", ",", " ", "\n", "\"", "\\", "\"a\"", "\"id\"", "\"\\u00e9\"", "\"\\ud800\"",
          "\"\\n\"", "\\u", "0", "1", "-", ".", "e", "+", "01", "-0", "1.5", "1e5", "7".repeat(65), "true", "null",
          "false", "tru", "\u0001", "\ufeff", "x", "__proto__"
        ),
        { maxLength: 30 }
      )
      .map((parts) => parts.join(""))

    /** Valid JSON with one character inserted, deleted or replaced. */
    const mutatedJson = fc
      .tuple(fc.jsonValue({ maxDepth: 3 }), fc.nat(), fc.constantFrom("insert", "delete", "replace"), fc.string({
        unit: "binary-ascii",
        minLength: 1,
        maxLength: 1
      }))
      .map(([value, at, how, ch]) => {
        const text = JSON.stringify(value)
        const k = at % (text.length + 1)
        return how === "insert"
          ? text.slice(0, k) + ch + text.slice(k)
          : how === "delete"
          ? text.slice(0, k) + text.slice(k + 1)
          : text.slice(0, k) + ch + text.slice(k + 1)
      })

    it("never throws on arbitrary strings and agrees with JSON.parse", () => {
      fc.assert(fc.property(fc.string(), agreesWithJsonParse), { numRuns: 1000 })
      fc.assert(fc.property(fc.string({ unit: "binary" }), agreesWithJsonParse), { numRuns: 1000 })
      fc.assert(fc.property(fc.string({ unit: "binary-ascii" }), agreesWithJsonParse), { numRuns: 1000 })
      fc.assert(fc.property(tokenSoup, agreesWithJsonParse), { numRuns: 5000 })
      fc.assert(fc.property(mutatedJson, agreesWithJsonParse), { numRuns: 3000 })
    })

    it("refuses exactly the texts with duplicate keys among otherwise valid objects", () => {
      fc.assert(
        fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 }), { minKeys: 1 }), fc.nat(), (dict, pick) => {
          const entries = Object.entries(dict)
          const [key] = entries[pick % entries.length]!
          const members = entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`)
          const duplicated = `{${members.join(",")},${JSON.stringify(key)}:0}`
          expect(StrictJson.parse(duplicated)).toMatchObject({ _tag: "Error", reason: "duplicate-key" })
          expect(ok(`{${members.join(",")}}`).value).toStrictEqual(JSON.parse(`{${members.join(",")}}`))
        }),
        { numRuns: 500 }
      )
    })
    it("reads the member names every message uses, and a parse after a refusal starts afresh", () => {
      const text = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"n","_meta":{"io.modelcontextprotocol/protocolVersion":"v","idx":1,"i":2}}}`
      expect(StrictJson.parse(`{"params":{"a":[{"b":1,"b":2}]}}`)).toMatchObject({ _tag: "Error", reason: "duplicate-key" })
      expect(ok(text).value).toStrictEqual(JSON.parse(text))
      expect(StrictJson.parse(`{"id":{"id":[`)).toMatchObject({ _tag: "Error", reason: "syntax" })
      expect(ok(`[{"id":1}]`).value).toStrictEqual([{ id: 1 }])
    })
    it("reads objects of a shape it has seen as it reads new ones", () => {
      // Enough parses of each text that every shape is remembered and met again.
      const texts = [
        `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"a":1}}}`,
        `{"__proto__":{"polluted":true},"a":1}`,
        `{"a":1,"__proto__":[2]}`,
        `{"1":"one","01":"zero one","b":2,"0":"zero"}`,
        `{"toString":1,"constructor":2,"hasOwnProperty":3,"valueOf":4}`,
        `{"x\\"y":1,"x":2,"x\\u0022y2":3}`,
        `{"${"k".repeat(64)}":1,"${"k".repeat(65)}":2}`,
        `{${Array.from({ length: 40 }, (_, k) => `"m${k}":${k}`).join(",")}}`
      ]
      for (let round = 0; round < 20; round++) {
        for (const text of texts) {
          const value = ok(text).value as Record<string, unknown>
          expect(value).toStrictEqual(JSON.parse(text))
          expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
          expect(Object.keys(value)).toStrictEqual(Object.keys(JSON.parse(text) as object))
        }
      }
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()
      const proto = ok(texts[1]!).value as Record<string, unknown>
      expect(Object.getOwnPropertyDescriptor(proto, "__proto__")).toStrictEqual({
        value: { polluted: true },
        writable: true,
        enumerable: true,
        configurable: true
      })
    })

    it("refuses a duplicate in an object whose shape it has seen, at any member", () => {
      const members = Array.from({ length: 40 }, (_, k) => `"m${k}":${k}`)
      for (let round = 0; round < 20; round++) {
        expect(ok(`{"jsonrpc":"2.0","id":1,"method":"ping"}`).idLexeme).toBe("1")
        for (
          const [text, name] of [
            [`{"jsonrpc":"2.0","id":1,"method":"ping","id":2}`, `"id"`],
            [`{"jsonrpc":"2.0","id":1,"jsonrpc":"2.0"}`, `"jsonrpc"`],
            [`{"__proto__":1,"a":2,"__proto__":3}`, `"__proto__"`],
            [`{"a":{"b":1,"c":2},"d":{"b":1,"b":2}}`, `"b"`]
          ] as const
        ) {
          expect(StrictJson.parse(text)).toStrictEqual(refused("duplicate-key", text.lastIndexOf(name)))
        }
        expect(ok(`{${members.join(",")}}`).value).toStrictEqual(JSON.parse(`{${members.join(",")}}`))
        for (const at of [3, 15, 16, 17, 39]) {
          const text = `{${members.join(",")},"m${at}":0}`
          expect(StrictJson.parse(text)).toStrictEqual(refused("duplicate-key", text.lastIndexOf(`"m${at}"`)))
        }
      }
    })

    it("reads as many different objects as a peer invents, and the usual ones after them", () => {
      const invented = (from: number) => `[${Array.from({ length: 1500 }, (_, k) => `{"u${from + k}":${k},"v":[]}`).join(",")}]`
      for (let round = 0; round < 3; round++) {
        const text = `{"a":${invented(round * 1500)},"b":{"c":1,"d":${invented(10_000 + round * 1500)},"e":2},"f":3}`
        expect(ok(text).value).toStrictEqual(JSON.parse(text))
        expect(StrictJson.parse(`{"a":${invented(50_000)},"b":1,"a":2}`)).toMatchObject({ _tag: "Error", reason: "duplicate-key" })
        for (let k = 0; k < 10; k++) expect(ok(`{"jsonrpc":"2.0","id":${k},"method":"ping"}`).idLexeme).toBe(String(k))
      }
    })

    it("keeps a member name that is a prefix or an extension of the expected one apart from it", () => {
      for (let round = 0; round < 20; round++) {
        expect(ok(`{"params":{"name":"a","arguments":{}}}`).value).toStrictEqual({ params: { name: "a", arguments: {} } })
        expect(ok(`{"params":{"nam":"a","arguments":{}}}`).value).toStrictEqual({ params: { nam: "a", arguments: {} } })
        expect(ok(`{"params":{"names":"a","arguments":{}}}`).value).toStrictEqual({ params: { names: "a", arguments: {} } })
        expect(ok(`{"params":{"na\\u006de":"a","arguments":{}}}`).value).toStrictEqual({ params: { name: "a", arguments: {} } })
        expect(StrictJson.parse(`{"params":{"name`)).toStrictEqual(refused("syntax", 16))
      }
    })

    it("reads long strings like short ones: escapes, control characters and the end of the text", () => {
      const long = "x".repeat(40)
      expect(ok(`"${long}"`).value).toBe(long)
      expect(ok(`["${long}","${long}\\n${long}","${long}"]`).value).toStrictEqual([long, `${long}\n${long}`, long])
      expect(ok(`{"${long}":"${long}\\u0041"}`).value).toStrictEqual({ [long]: `${long}A` })
      expect(ok(`[\n "${long}",\n "${long}"\n]`).value).toStrictEqual([long, long])
      expect(StrictJson.parse(`"${long}\u0001${long}"`)).toStrictEqual(refused("invalid-string", 41))
      expect(StrictJson.parse(`["${long}","${long}\t"]`)).toStrictEqual(refused("invalid-string", 85))
      expect(StrictJson.parse(`"${long}`)).toStrictEqual(refused("syntax", 41))
      expect(StrictJson.parse(`"${long}\\q"`)).toStrictEqual(refused("invalid-string", 41))
      expect(StrictJson.parse(`["${long}\n"]`)).toStrictEqual(refused("invalid-string", 42))
      expect(StrictJson.parse(`"${long}\\`)).toStrictEqual(refused("syntax", 42))
    })

    it("reads a known member name the same whether it is written plainly, escaped or as a prefix", () => {
      const escaped = `{"i\\u0064":1,"\\u006aso\\u006erpc":"2.0","_meta":{"io.modelcontextprotocol/protocolVersion\\u0021":1}}`
      expect(ok(escaped)).toStrictEqual({
        _tag: "Ok",
        value: { id: 1, jsonrpc: "2.0", _meta: { "io.modelcontextprotocol/protocolVersion!": 1 } },
        idLexeme: "1"
      })
      expect(StrictJson.parse(`{"id":1,"i\\u0064":2}`)).toStrictEqual({ _tag: "Error", reason: "duplicate-key", offset: 8 })
      expect(StrictJson.parse(`{"i\\u0064":1,"id":2}`)).toStrictEqual({ _tag: "Error", reason: "duplicate-key", offset: 13 })
      expect(ok(`{"ids":1,"i":2,"id\\"":3,"method_":4}`).value).toStrictEqual({ ids: 1, i: 2, "id\"": 3, method_: 4 })
      expect(StrictJson.parse(`{"id`)).toStrictEqual({ _tag: "Error", reason: "syntax", offset: 4 })
      expect(StrictJson.parse(`{"id\u0001":1}`)).toStrictEqual({ _tag: "Error", reason: "invalid-string", offset: 4 })
    })
  })
})
