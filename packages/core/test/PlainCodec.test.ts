import { describe, expect, it } from "@effect/vitest"
import { Exit, Schema } from "effect"
import * as fc from "fast-check"
import * as PlainCodec from "../src/pipeline/internal/PlainCodec.ts"
import { CallToolRequestParams } from "@snodo/protocol/wire/Tools"
import { PaginatedRequestParams } from "@snodo/protocol/wire/Meta"

// A compiled function answers exactly what the schema's own codec answers (the same value, its
// keys in the same order), or `unsure`; it is never more lenient than the parser.

const Shape = Schema.Struct({
  text: Schema.String,
  count: Schema.optionalKey(Schema.Number),
  flag: Schema.optionalKey(Schema.Boolean),
  kind: Schema.optionalKey(Schema.Literals(["a", "b"])),
  tags: Schema.optionalKey(Schema.Array(Schema.String)),
  nested: Schema.optionalKey(Schema.Struct({ at: Schema.Number, note: Schema.NullOr(Schema.String) }))
})

const schemas = {
  shape: Shape,
  open: Schema.StructWithRest(Schema.Struct({ name: Schema.String }), [Schema.Record(Schema.String, Schema.Unknown)]),
  callTool: CallToolRequestParams,
  paginated: PaginatedRequestParams
} as const

const json = fc.jsonValue({ maxDepth: 3 })
const keys = fc.constantFrom("text", "count", "flag", "kind", "tags", "nested", "name", "_meta", "arguments", "cursor", "other", "at", "note")
const value = fc.oneof(
  json,
  fc.dictionary(keys, json, { maxKeys: 6 }),
  fc.record({ text: fc.string(), count: fc.oneof(fc.integer(), fc.double()), tags: fc.array(fc.string()) }, { requiredKeys: ["text"] }),
  fc.record({ name: fc.string(), arguments: fc.dictionary(fc.string(), json), _meta: fc.dictionary(fc.string(), json) }, { requiredKeys: ["name"] })
)

let copies = 0

const agrees = (plain: PlainCodec.Plain, parsed: (value: unknown) => Exit.Exit<unknown, unknown>, input: unknown): void => {
  const copied = plain(input)
  if (copied === PlainCodec.unsure) return
  copies++
  const exit = parsed(input)
  expect(Exit.isSuccess(exit)).toBe(true)
  if (Exit.isSuccess(exit)) {
    expect(copied).toStrictEqual(exit.value)
    expect(JSON.stringify(copied)).toBe(JSON.stringify(exit.value))
  }
}

describe("PlainCodec", () => {
  for (const [name, schema] of Object.entries(schemas)) {
    it(`decodes ${name} as its schema does`, () => {
      const plain = PlainCodec.compile(schema.ast, "decode")!
      expect(plain).toBeDefined()
      const parse = Schema.decodeUnknownExit(schema as Schema.Decoder<unknown>)
      copies = 0
      fc.assert(fc.property(value, (input) => agrees(plain, parse, input)), { numRuns: 2000 })
      // The values tried include many the plain function copies, not only ones it leaves to the parser.
      expect(copies).toBeGreaterThan(200)
    })
  }

  it("decodes JSON as the JSON codec does, and encodes as it does", () => {
    const codec = Schema.toCodecJson(Shape) as unknown as Schema.Codec<unknown, unknown>
    const decode = PlainCodec.compile(Shape.ast, "decodeJson")!
    const encode = PlainCodec.compile(Shape.ast, "encodeJson")!
    const decodeExit = Schema.decodeUnknownExit(codec)
    const encodeExit = Schema.encodeUnknownExit(codec)
    fc.assert(fc.property(value, (input) => {
      agrees(decode, decodeExit, input)
      agrees(encode, encodeExit, input)
    }), { numRuns: 2000 })
    // Not JSON: left to the codec (which writes NaN as a string).
    expect(encode({ text: "x", count: Number.NaN })).toBe(PlainCodec.unsure)
  })

  it("copies a valid value in the parser's key order, drops undeclared keys, and leaves invalid ones to the parser", () => {
    const plain = PlainCodec.compile(Shape.ast, "decode")!
    expect(JSON.stringify(plain({ count: 1, text: "t", extra: true }))).toBe(`{"text":"t","count":1}`)
    expect(plain({ text: 1 })).toBe(PlainCodec.unsure)
    expect(plain({})).toBe(PlainCodec.unsure)
    expect(plain([])).toBe(PlainCodec.unsure)
  })

  it("knows no schema with checks or transformations", () => {
    expect(PlainCodec.compile(Schema.Struct({ n: Schema.Finite }).ast, "decode")).toBeUndefined()
    expect(PlainCodec.compile(Schema.Struct({ n: Schema.NumberFromString }).ast, "decode")).toBeUndefined()
    expect(PlainCodec.compile(Schema.Struct({ d: Schema.Date }).ast, "decodeJson")).toBeUndefined()
    expect(PlainCodec.compile(Schema.Struct({ u: Schema.Unknown }).ast, "encodeJson")).toBeUndefined()
  })
})
