/**
 * The JSON Schema advertised for an Effect Schema (`jsonSchemaOf`) accepts exactly what the tool's
 * decoder (`Schema.toCodecJson`) accepts, judged by the full Draft 2020-12 backend, over a
 * generated corpus of schema shapes and arbitrary JSON inputs.
 *
 * Where Effect documents an approximation it always derives a looser schema, never a stricter one:
 * those shapes are checked for soundness only (the advertised schema never rejects a value the
 * decoder accepts), and the gaps are pinned by examples below.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Exit, Option, Schema } from "effect"
import * as fc from "fast-check"
import * as BasicJsonSchema from "@snodo/core/BasicJsonSchema"
import { jsonSchemaOf } from "../../core/src/catalog/internal/JsonSchemaOf.ts"
import { type CompiledSchema, SchemaValidator } from "@snodo/core/SchemaValidator"
import { JsonSchemaValidator } from "../src/index.ts"

/**
 * - `exact`: the advertised schema and the decoder agree on every JSON value;
 * - `bmp`: they agree on values without astral characters (Effect counts string length in UTF-16
 *   code units, JSON Schema in code points);
 * - `loose`: the advertised schema may accept more (documented approximations).
 */
type Exactness = "exact" | "bmp" | "loose"

interface Shape {
  readonly label: string
  readonly schema: Schema.Top
  readonly exactness: Exactness
  /** Values near the shape's boundaries, valid or just off. */
  readonly sample: fc.Arbitrary<unknown>
}

const worst = (...levels: ReadonlyArray<Exactness>): Exactness =>
  levels.includes("loose") ? "loose" : levels.includes("bmp") ? "bmp" : "exact"

const anyString = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.constantFrom("", "a", "ab", "abc", "\u{1F600}", "a\u{1F600}", "\u{1F600}\u{1F600}", "\uD800", "é")
)
const anyNumber = fc.oneof(
  fc.integer({ min: -20, max: 20 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
  fc.constantFrom(0, -0, 0.5, 1e21, 2 ** 53, -(2 ** 53), Number.MAX_VALUE, 9007199254740991)
)
const numberLikeString = fc.constantFrom("Infinity", "-Infinity", "NaN", "1", "")

/** Counterexamples print as the shape's label rather than its arbitraries. */
const named = (shape: Shape): Shape => Object.assign(shape, { [fc.toStringMethod]: () => shape.label })

const leaf = (label: string, schema: Schema.Top, exactness: Exactness, sample: fc.Arbitrary<unknown>): Shape =>
  named({ label, schema, exactness, sample })

const small = fc.integer({ min: 0, max: 4 })
const bound = fc.integer({ min: -5, max: 5 })

const stringShape: fc.Arbitrary<Shape> = fc.oneof(
  fc.constant(leaf("String", Schema.String, "exact", anyString)),
  small.map((n) =>
    leaf(`String.isMinLength(${n})`, Schema.String.check(Schema.isMinLength(n)), n <= 1 ? "exact" : "loose", anyString)
  ),
  small.map((n) => leaf(`String.isMaxLength(${n})`, Schema.String.check(Schema.isMaxLength(n)), n === 0 ? "exact" : "bmp", anyString)),
  fc.tuple(small, small).map(([a, b]) =>
    leaf(
      `String.isMinLength(${a}).isMaxLength(${a + b})`,
      Schema.String.check(Schema.isMinLength(a), Schema.isMaxLength(a + b)),
      worst(a <= 1 ? "exact" : "loose", a + b === 0 ? "exact" : "bmp"),
      anyString
    )
  ),
  fc.constant(leaf("NonEmptyString", Schema.NonEmptyString, "exact", anyString))
)

const numberShape: fc.Arbitrary<Shape> = fc.oneof(
  fc.constant(leaf("Number", Schema.Number, "exact", fc.oneof(anyNumber, numberLikeString))),
  fc.constant(leaf("Finite", Schema.Finite, "exact", fc.oneof(anyNumber, numberLikeString))),
  fc.constant(leaf("Int", Schema.Int, "exact", anyNumber)),
  bound.map((a) => leaf(`Finite >= ${a}`, Schema.Finite.check(Schema.isGreaterThanOrEqualTo(a)), "exact", anyNumber)),
  bound.map((a) => leaf(`Finite > ${a}`, Schema.Finite.check(Schema.isGreaterThan(a)), "exact", anyNumber)),
  bound.map((a) => leaf(`Finite < ${a}`, Schema.Finite.check(Schema.isLessThan(a)), "exact", anyNumber)),
  fc.tuple(bound, small).map(([a, b]) =>
    leaf(`Int in [${a}, ${a + b}]`, Schema.Int.check(Schema.isBetween({ minimum: a, maximum: a + b })), "exact", anyNumber)
  ),
  bound.map((a) => leaf(`Int <= ${a}`, Schema.Int.check(Schema.isLessThanOrEqualTo(a)), "exact", anyNumber)),
  // A check on `Number` sits behind its JSON transformation (NaN and infinities as strings), so
  // Effect advertises the unbounded number: looser, never stricter.
  bound.map((a) =>
    leaf(`Number >= ${a}`, Schema.Number.check(Schema.isGreaterThanOrEqualTo(a)), "loose", fc.oneof(anyNumber, numberLikeString))
  )
)

const literalValue = fc.oneof(fc.constantFrom("a", "b", "", "A"), fc.integer({ min: -2, max: 2 }), fc.boolean())

const literalShape: fc.Arbitrary<Shape> = fc.oneof(
  literalValue.map((value) => leaf(`Literal(${JSON.stringify(value)})`, Schema.Literal(value), "exact", fc.oneof(literalValue, anyString))),
  fc.uniqueArray(literalValue, { minLength: 1, maxLength: 4 }).map((values) =>
    leaf(
      `Literals(${JSON.stringify(values)})`,
      Schema.Literals(values as [string | number | boolean, ...Array<string | number | boolean>]),
      "exact",
      fc.oneof(fc.constantFrom(...values), literalValue)
    )
  ),
  fc.constant(leaf("Boolean", Schema.Boolean, "exact", fc.oneof(fc.boolean(), fc.constantFrom("true", 0, 1)))),
  fc.constant(leaf("Null", Schema.Null, "exact", fc.constantFrom(null, "null", 0, false, {})))
)

const leafShape = fc.oneof(stringShape, numberShape, literalShape)

const keyPool = ["a", "b", "name", "a/b", "~0", "x-y", "", "count"] as const

type Field = readonly [key: string, kind: "required" | "optional" | "optionalKey", shape: Shape]

const shapeOf: (depth: number) => fc.Arbitrary<Shape> = (depth) => {
  if (depth <= 0) return leafShape
  const inner = fc.constant(null).chain(() => shapeOf(depth - 1))
  const struct = fc.uniqueArray(
    fc.tuple(fc.constantFrom(...keyPool), fc.constantFrom("required", "optional", "optionalKey"), inner),
    { minLength: 1, maxLength: 4, selector: ([key]) => key }
  ).map((fields: ReadonlyArray<Field>): Shape => {
    const schema = Schema.Struct(Object.fromEntries(fields.map(([key, kind, shape]) => [
      key,
      kind === "required" ? shape.schema : kind === "optional" ? Schema.optional(shape.schema) : Schema.optionalKey(shape.schema)
    ])))
    const sample = fc.tuple(
      ...fields.map(([key, kind, shape]) =>
        fc.option(
          kind === "optional" ? fc.oneof(shape.sample, fc.constant(null)).map((value) => [key, value] as const) : shape.sample.map((value) => [key, value] as const),
          { freq: 4, nil: undefined }
        )
      ),
      fc.option(fc.dictionary(fc.constantFrom("extra", "a", "zz"), fc.jsonValue({ maxDepth: 1 })), { nil: undefined })
    ).map((parts) => {
      const extra = parts.pop() as Record<string, unknown> | undefined
      const object: Record<string, unknown> = { ...extra }
      for (const part of parts as Array<readonly [string, unknown] | undefined>) if (part !== undefined) object[part[0]] = part[1]
      return object
    })
    return named({
      label: `Struct({ ${fields.map(([key, kind, shape]) => `${JSON.stringify(key)}: ${kind}(${shape.label})`).join(", ")} })`,
      schema,
      exactness: worst(...fields.map(([, , shape]) => shape.exactness)),
      sample
    })
  })
  const array = fc.tuple(inner, fc.option(small, { nil: undefined }), fc.option(small, { nil: undefined })).map(
    ([shape, min, extra]): Shape => {
      const checks = [
        ...(min === undefined ? [] : [Schema.isMinLength(min)]),
        ...(extra === undefined ? [] : [Schema.isMaxLength((min ?? 0) + extra)])
      ]
      const base = Schema.Array(shape.schema)
      return named({
        label: `Array(${shape.label})${min === undefined ? "" : `.min(${min})`}${extra === undefined ? "" : `.max(${(min ?? 0) + extra})`}`,
        schema: checks.length === 0 ? base : base.check(...(checks as [never, ...Array<never>])),
        exactness: shape.exactness,
        sample: fc.array(shape.sample, { maxLength: 5 })
      })
    }
  )
  const record = inner.map((shape): Shape => named({
    label: `Record(String, ${shape.label})`,
    schema: Schema.Record(Schema.String, shape.schema),
    exactness: shape.exactness,
    sample: fc.dictionary(fc.constantFrom(...keyPool), shape.sample, { maxKeys: 3 })
  }))
  const nullOr = inner.map((shape): Shape => named({
    label: `NullOr(${shape.label})`,
    schema: Schema.NullOr(shape.schema),
    exactness: shape.exactness,
    sample: fc.oneof(shape.sample, fc.constant(null))
  }))
  return fc.oneof({ depthSize: "small" }, leafShape, struct, array, record, nullOr)
}

const astral = /[\u{10000}-\u{10FFFF}]/u
const hasAstral = (value: unknown): boolean => astral.test(JSON.stringify(value) ?? "")

const inputsFor = (shape: Shape) =>
  fc.array(fc.oneof({ weight: 3, arbitrary: shape.sample }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) }), {
    minLength: 15,
    maxLength: 15
  })

const basic = BasicJsonSchema.make()

layer(JsonSchemaValidator.layer(), { timeout: 60_000 })("Effect Schema → JSON Schema 2020-12", (test) => {
  test.effect("the advertised schema accepts exactly what the decoder accepts", () =>
    Effect.gen(function*() {
      const validator = yield* SchemaValidator
      const compiledOf = new WeakMap<Shape, { readonly full: CompiledSchema; readonly basic: CompiledSchema | undefined }>()
      const compile = async (shape: Shape) => {
        let entry = compiledOf.get(shape)
        if (entry === undefined) {
          const document = jsonSchemaOf(shape.schema)
          const full = await Effect.runPromise(validator.compile(document).pipe(
            Effect.catch((error) => Effect.die(new Error(`${shape.label}: ${error.message}`)))
          ))
          const subset = Effect.runSync(Effect.option(basic.compile(document)))
          entry = { full, basic: Option.getOrUndefined(subset) }
          compiledOf.set(shape, entry)
        }
        return entry
      }
      let checked = 0
      let exactlyChecked = 0
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(shapeOf(3).chain((shape) => fc.tuple(fc.constant(shape), inputsFor(shape))), async ([shape, inputs]) => {
            const { full, basic: subset } = await compile(shape)
            const decode = Schema.decodeUnknownExit(Schema.toCodecJson(shape.schema) as unknown as Schema.Codec<unknown, unknown>)
            for (const input of inputs) {
              const accepted = Exit.isSuccess(decode(input))
              const verdict = full.validate(input)
              const context = `${shape.label}\n  schema ${JSON.stringify(jsonSchemaOf(shape.schema))}\n  input ${JSON.stringify(input)}`
              expect(verdict._tag, `budget on ${context}`).not.toBe("BudgetExceeded")
              const advertised = verdict._tag === "Valid"
              // Soundness, for every shape: the advertised schema never rejects what the tool accepts.
              expect(advertised || !accepted, `false rejection: ${context}`).toBe(true)
              const exact = shape.exactness === "exact" || (shape.exactness === "bmp" && !hasAstral(input))
              if (exact) {
                exactlyChecked++
                expect(accepted || !advertised, `advertised schema accepts what the decoder rejects: ${context}`).toBe(true)
              }
              // Where the derived schema falls in the basic subset, both backends agree.
              if (subset !== undefined) expect(subset.validate(input)._tag, `basic backend disagrees: ${context}`).toBe(verdict._tag)
              checked++
            }
          }),
          { numRuns: 250 }
        )
      )
      expect(exactlyChecked).toBeGreaterThan(checked / 2)
    }))
})

describe("jsonSchemaOf", () => {
  const decodes = (schema: Schema.Top, input: unknown) =>
    Exit.isSuccess(Schema.decodeUnknownExit(Schema.toCodecJson(schema) as unknown as Schema.Codec<unknown, unknown>)(input))

  const valid = (schema: Schema.Top, input: unknown) =>
    Effect.runSync(basic.compile(jsonSchemaOf(schema))).validate(input)._tag === "Valid"

  it("derives Draft 2020-12 without a $schema key unless asked", () => {
    const schema = Schema.Struct({ a: Schema.Finite, b: Schema.optionalKey(Schema.String) })
    expect(jsonSchemaOf(schema)).toEqual({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "string" } },
      required: ["a"],
      additionalProperties: true
    })
    expect(jsonSchemaOf(schema, { $schema: true })["$schema"]).toBe("https://json-schema.org/draft/2020-12/schema")
  })

  it("inlines a root that only refers to a definition, so the root carries type object", () => {
    const Named = Schema.Struct({ x: Schema.String }).annotate({ identifier: "Named" })
    expect(jsonSchemaOf(Named)).toEqual({
      type: "object",
      properties: { x: { type: "string" } },
      required: ["x"],
      additionalProperties: true
    })
  })

  it("keeps the definition of a recursive schema", () => {
    interface Tree {
      readonly children: ReadonlyArray<Tree>
    }
    const Tree: Schema.Codec<Tree> = Schema.Struct({
      children: Schema.Array(Schema.suspend((): Schema.Codec<Tree> => Tree))
    }).annotate({ identifier: "Tree" })
    const document = jsonSchemaOf(Tree)
    expect(document["type"]).toBe("object")
    expect(Object.keys(document["$defs"] as object)).toEqual(["Tree"])
  })

  // The documented approximations, pinned: looser than the decoder, never stricter.
  it("isMinLength(n) is advertised as ceil(n / 2) code points", () => {
    const schema = Schema.String.check(Schema.isMinLength(2))
    expect(jsonSchemaOf(schema)).toEqual({ type: "string", minLength: 1 })
    expect([valid(schema, "a"), decodes(schema, "a")]).toEqual([true, false])
    expect([valid(schema, "\u{1F600}"), decodes(schema, "\u{1F600}")]).toEqual([true, true])
  })

  it("isMaxLength(n) counts UTF-16 code units in Effect, code points in JSON Schema", () => {
    const schema = Schema.String.check(Schema.isMaxLength(1))
    expect([valid(schema, "\u{1F600}"), decodes(schema, "\u{1F600}")]).toEqual([true, false])
  })
})
