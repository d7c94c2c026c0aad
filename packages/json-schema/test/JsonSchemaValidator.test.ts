import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import {
  type CompiledSchema,
  type JsonSchemaDocument,
  SchemaCompileError,
  SchemaValidator,
  type ValidationResult
} from "@snodo/core/SchemaValidator"
import * as BasicJsonSchema from "@snodo/core/BasicJsonSchema"
import { registerSchema } from "@hyperjump/json-schema/draft-2020-12"
import { JsonSchemaValidator } from "../src/index.ts"
import { jsonSchema202012Input } from "../../../examples/everything/fixtures.ts"

/** The refusal message of a compile, or a defect if the schema compiled. */
const refusalOf = (compiling: Effect.Effect<CompiledSchema, SchemaCompileError>): Effect.Effect<string> =>
  compiling.pipe(
    Effect.flatMap(() => Effect.die(new Error("expected a refusal"))),
    Effect.catch((error: SchemaCompileError) => Effect.succeed(error.message))
  )

const shape = (result: ValidationResult) =>
  result._tag === "Invalid" ? result.issues.map(({ instancePath, keyword }) => ({ instancePath, keyword })) : result._tag

const deepFreeze = <A>(value: A): A => {
  if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item)
    Object.freeze(value)
  }
  return value
}

/** `{ $defs: { d0: { anyOf: [ref d1 × breadth] }, …, d<depth>: { type: "integer" } }, $ref: d0 }` */
const exponential = (depth: number, breadth: number): JsonSchemaDocument => {
  const $defs: Record<string, unknown> = { [`d${depth}`]: { type: "integer" } }
  for (let level = 0; level < depth; level++) {
    $defs[`d${level}`] = { anyOf: Array.from({ length: breadth }, () => ({ $ref: `#/$defs/d${level + 1}` })) }
  }
  return { $defs, $ref: "#/$defs/d0" }
}

const withValidator = <A, E>(
  options: JsonSchemaValidator.Options,
  f: (validator: SchemaValidator["Service"]) => Effect.Effect<A, E>
) => Effect.flatMap(JsonSchemaValidator.make(options), f)

/** `$ref` r0 → r1 → … → r<length>, a string schema. */
const chain = (length: number): JsonSchemaDocument => {
  const $defs: Record<string, unknown> = { [`r${length}`]: { type: "string" } }
  for (let i = 0; i < length; i++) $defs[`r${i}`] = { $ref: `#/$defs/r${i + 1}` }
  return { $defs, $ref: "#/$defs/r0" }
}

const catalog = {
  "https://example.com/money.json": {
    type: "object",
    required: ["amount", "currency"],
    properties: { amount: { type: "integer" }, currency: { enum: ["EUR", "USD"] } }
  }
}

layer(JsonSchemaValidator.layer({ catalog }))("JsonSchemaValidator", (test) => {
  test.effect("provides the core's SchemaValidator", () =>
    Effect.gen(function*() {
      const validator = yield* SchemaValidator
      expect(validator.name).toBe("json-schema-2020-12")
      const compiled = yield* validator.compile({ type: "object", properties: { a: { type: "string" } } })
      expect(compiled.validate({ a: "x" })).toEqual({ _tag: "Valid" })
      expect(shape(compiled.validate({ a: 1 }))).toEqual([{ instancePath: "/a", keyword: "type" }])
    }))

  test.effect("resolves $ref into the registered catalog, from memory", () =>
    Effect.gen(function*() {
      const validator = yield* SchemaValidator
      const compiled = yield* validator.compile({
        type: "object",
        properties: { price: { $ref: "https://example.com/money.json" } }
      })
      expect(compiled.validate({ price: { amount: 3, currency: "EUR" } })._tag).toBe("Valid")
      expect(shape(compiled.validate({ price: { amount: 3.5, currency: "GBP" } }))).toEqual([
        { instancePath: "/price/amount", keyword: "type" },
        { instancePath: "/price/currency", keyword: "enum" }
      ])
    }))

  test.effect("never fetches: http, https and file references fail at compile", () =>
    Effect.gen(function*() {
      const validator = yield* SchemaValidator
      let requests = 0
      const server = createServer((_request, response) => {
        requests++
        response.setHeader("content-type", "application/schema+json")
        response.end(JSON.stringify({ type: "string" }))
      })
      yield* Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve)))
      const { port } = server.address() as AddressInfo
      try {
        for (const ref of [`http://127.0.0.1:${port}/s.json`, "https://json-schema.org/x.json", "file:///etc/hostname"]) {
          const message = yield* refusalOf(validator.compile({ type: "object", properties: { a: { $ref: ref } } }))
          expect(message).toContain(JSON.stringify(ref))
          expect(message).toMatch(/never fetches/)
        }
        const relative = yield* refusalOf(validator.compile({ $ref: "other.json" }))
        expect(relative).toMatch(/cannot be resolved/)
      } finally {
        server.close()
      }
      expect(requests).toBe(0)
    }))

  test.effect("the built-in 2020-12 meta-schema is a local reference", () =>
    Effect.gen(function*() {
      const validator = yield* SchemaValidator
      const compiled = yield* validator.compile({ $ref: "https://json-schema.org/draft/2020-12/schema" })
      expect(compiled.validate({ type: "string" })._tag).toBe("Valid")
      expect(compiled.validate({ type: 12 })._tag).toBe("Invalid")
    }))

  test.effect("refuses invalid schemas and unsupported dialects", () =>
    Effect.gen(function*() {
      const validator = yield* SchemaValidator
      expect(yield* refusalOf(validator.compile({ type: "text" }))).toMatch(/not valid Draft 2020-12 at #\/type/)
      expect(yield* refusalOf(validator.compile({ minLength: -1 }))).toMatch(/#\/minLength/)
      expect(yield* refusalOf(validator.compile({ $schema: "http://json-schema.org/draft-07/schema#", type: "object" })))
        .toMatch(/dialect .*draft-07.* is not supported/)
      expect(yield* refusalOf(validator.compile({ pattern: "(" }))).toBeTruthy()
    }))

  test.effect("advertises the schema object untouched, and never mutates or coerces the instance", () =>
    Effect.gen(function*() {
      const validator = yield* SchemaValidator
      const schema = deepFreeze({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        $id: "https://example.com/tool-input",
        type: "object",
        $defs: { n: { type: "integer", default: 7 } },
        properties: {
          n: { $ref: "#/$defs/n" },
          region: { type: "string", default: "eu", "x-mcp-header": "Region" }
        },
        unevaluatedProperties: false,
        "x-vendor": { kept: true }
      })
      const before = JSON.stringify(schema)
      const compiled = yield* validator.compile(schema)
      expect(compiled.schema).toBe(schema)
      expect(JSON.stringify(compiled.schema)).toBe(before)
      const instance = deepFreeze({ n: "7" })
      expect(shape(compiled.validate(instance))).toEqual([{ instancePath: "/n", keyword: "type" }])
      const empty = {}
      expect(compiled.validate(empty)._tag).toBe("Valid")
      expect(empty).toEqual({}) // no default inserted
      expect(shape(compiled.validate({ extra: 1 }))).toEqual([{ instancePath: "/extra", keyword: "unevaluatedProperties" }])
    }))

  test.effect("the conformance fixture json_schema_2020_12_tool compiles, validates and is preserved", () =>
    Effect.gen(function*() {
      const validator = yield* SchemaValidator
      // inputSchema of the conformance scenario json-schema-2020-12, as the everything server serves it.
      const schema = deepFreeze(structuredClone(jsonSchema202012Input))
      const compiled = yield* validator.compile(schema)
      expect(compiled.schema).toBe(schema)
      expect(compiled.validate({ name: "Ada", contactMethod: "phone", phone: "1", address: { city: "London" } })._tag).toBe("Valid")
      expect(compiled.validate({ email: "a@b" })._tag).toBe("Valid")
      expect(shape(compiled.validate({ contactMethod: "phone", email: "a@b" }))).toEqual([{ instancePath: "", keyword: "required" }])
      expect(shape(compiled.validate({ email: "a@b", address: { city: 1 }, extra: true }))).toEqual([
        { instancePath: "/address/city", keyword: "type" },
        { instancePath: "/extra", keyword: "additionalProperties" }
      ])
      // The core's basic subset cannot check it, and says so.
      expect(yield* refusalOf(BasicJsonSchema.make().compile(schema))).toMatch(/@snodo\/json-schema/)
    }))

  test.effect("format is an annotation, as Draft 2020-12 specifies by default", () =>
    Effect.gen(function*() {
      const validator = yield* SchemaValidator
      const compiled = yield* validator.compile({ type: "string", format: "email" })
      expect(compiled.validate("not an email")._tag).toBe("Valid")
    }))

  test.effect("issues name the instance path and keyword, never the value", () =>
    Effect.gen(function*() {
      const validator = yield* SchemaValidator
      const secret = "s3cr3t-token-value"
      const compiled = yield* validator.compile({
        type: "object",
        required: ["id", "token"],
        properties: {
          token: { type: "string", minLength: 64, pattern: "^[a-f0-9]+$" },
          mode: { const: "fast" },
          tags: { type: "array", items: { type: "string" }, uniqueItems: true },
          "a/b~c": { oneOf: [{ type: "integer" }, { type: "number" }] }
        },
        additionalProperties: false
      })
      const result = compiled.validate({ token: secret, mode: secret, tags: [secret, secret, 5], "a/b~c": 3, [secret]: 1 })
      expect(result._tag).toBe("Invalid")
      if (result._tag !== "Invalid") return
      expect(shape(result)).toEqual([
        { instancePath: "", keyword: "required" },
        { instancePath: "/token", keyword: "minLength" },
        { instancePath: "/token", keyword: "pattern" },
        { instancePath: "/mode", keyword: "const" },
        { instancePath: "/tags/2", keyword: "type" },
        { instancePath: "/tags", keyword: "uniqueItems" },
        { instancePath: "/a~1b~0c", keyword: "oneOf" },
        { instancePath: `/${secret}`, keyword: "additionalProperties" }
      ])
      expect(result.issues[0]!.message).toBe("must have the required property \"id\"")
      expect(result.issues[1]!.message).toBe("must have at least 64 characters")
      for (const issue of result.issues) expect(issue.message).not.toContain(secret)
    }))

  test.effect("instance members named like Object.prototype members are ordinary names", () =>
    Effect.gen(function*() {
      const validator = yield* SchemaValidator
      const compiled = yield* validator.compile({ type: "object", properties: { a: { type: "string" } } })
      const instance = JSON.parse(`{ "valueOf": false, "constructor": 1, "toString": [], "__proto__": 2, "hasOwnProperty": null }`)
      expect(compiled.validate(instance)._tag).toBe("Valid")
      const closed = yield* validator.compile({ properties: { a: true }, additionalProperties: false })
      expect(shape(closed.validate(JSON.parse(`{ "constructor": 1 }`)))).toEqual([
        { instancePath: "/constructor", keyword: "additionalProperties" }
      ])
    }))

  test.effect("a non-JSON instance is invalid, not a crash", () =>
    Effect.gen(function*() {
      const validator = yield* SchemaValidator
      const compiled = yield* validator.compile({ type: "object" })
      expect(shape(compiled.validate({ at: new Date(0) }))).toEqual([{ instancePath: "", keyword: "type" }])
    }))
})

describe("JsonSchemaValidator bounds", () => {
  it.effect("schema size and depth", () =>
    withValidator({ maxSchemaNodes: 50, maxSchemaDepth: 10 }, (validator) =>
      Effect.gen(function*() {
        const wide = { properties: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, { type: "string" }])) }
        expect(yield* refusalOf(validator.compile(wide))).toMatch(/maxSchemaNodes/)
        let deep: JsonSchemaDocument = true
        for (let i = 0; i < 12; i++) deep = { not: deep }
        expect(yield* refusalOf(validator.compile(deep))).toMatch(/maxSchemaDepth/)
        const cyclic: Record<string, unknown> = { type: "object" }
        cyclic["properties"] = { self: cyclic }
        expect(yield* refusalOf(validator.compile(cyclic))).toMatch(/maxSchemaDepth/)
      })))

  it.effect("$ref depth", () =>
    withValidator({ maxRefDepth: 8 }, (validator) =>
      Effect.gen(function*() {
        expect((yield* validator.compile(chain(7))).validate("x")._tag).toBe("Valid")
        expect(yield* refusalOf(validator.compile(chain(9)))).toMatch(/maxRefDepth/)
      })))

  it.effect("a $ref cycle that never moves into the instance is refused; recursion through the instance is fine", () =>
    withValidator({}, (validator) =>
      Effect.gen(function*() {
        expect(yield* refusalOf(validator.compile({ $defs: { a: { allOf: [{ $ref: "#" }] } }, $ref: "#/$defs/a" })))
          .toMatch(/refers back to itself/)
        const tree = yield* validator.compile({
          $defs: { node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } } } },
          $ref: "#/$defs/node"
        })
        expect(tree.validate({ children: [{ children: [{}] }] })._tag).toBe("Valid")
        expect(shape(tree.validate({ children: [{ children: [1] }] }))).toEqual([{ instancePath: "/children/0/children/0", keyword: "type" }])
      })))

  it.effect("composition breadth and nesting", () =>
    withValidator({ maxCompositionBreadth: 4, maxCompositionDepth: 3 }, (validator) =>
      Effect.gen(function*() {
        expect(yield* refusalOf(validator.compile({ anyOf: [true, true, true, true, true] }))).toMatch(/maxCompositionBreadth/)
        expect((yield* validator.compile({ allOf: [{ anyOf: [{ not: false }] }] })).validate(1)._tag).toBe("Valid")
        expect(yield* refusalOf(validator.compile({ allOf: [{ anyOf: [{ not: { not: true } }] }] }))).toMatch(/maxCompositionDepth/)
        // Nesting counts through references too.
        expect(yield* refusalOf(validator.compile({ $defs: { x: { not: { not: true } } }, allOf: [{ anyOf: [{ $ref: "#/$defs/x" }] }] })))
          .toMatch(/maxCompositionDepth/)
      })))

  it.effect("the per-call budget stops exponential validation", () =>
    withValidator({ maxValidationSteps: 10_000 }, (validator) =>
      Effect.gen(function*() {
        const compiled = yield* validator.compile(exponential(10, 3))
        const start = performance.now()
        const result = compiled.validate("not an integer")
        expect(result._tag).toBe("BudgetExceeded")
        if (result._tag === "BudgetExceeded") expect(result.message).toMatch(/maxValidationSteps/)
        expect(performance.now() - start).toBeLessThan(1_000)
        const small = yield* validator.compile(exponential(3, 3))
        expect(small.validate(1)._tag).toBe("Valid")
      })))

  it.effect("a deeply nested instance exceeds the budget rather than crashing", () =>
    withValidator({}, (validator) =>
      Effect.gen(function*() {
        const compiled = yield* validator.compile({ $defs: { t: { items: { $ref: "#/$defs/t" } } }, $ref: "#/$defs/t" })
        let deep: unknown = []
        for (let i = 0; i < 200_000; i++) deep = [deep]
        expect(compiled.validate(deep)._tag).toBe("BudgetExceeded")
      })))

  it.effect("compile time is bounded", () =>
    withValidator({ maxCompileMillis: 0 }, (validator) =>
      Effect.gen(function*() {
        expect(yield* refusalOf(validator.compile({ type: "string" }))).toMatch(/maxCompileMillis/)
      })))

  it.effect("a catalog array needs absolute $ids; a bad catalog document fails the Layer", () =>
    Effect.gen(function*() {
      const missingId = yield* Effect.exit(JsonSchemaValidator.make({ catalog: [{ type: "string" }] }))
      expect(Exit.isFailure(missingId)).toBe(true)
      const invalid = yield* Effect.exit(JsonSchemaValidator.make({ catalog: { "https://example.com/bad.json": { type: 1 } } }))
      expect(Exit.isFailure(invalid)).toBe(true)
      const validator = yield* JsonSchemaValidator.make({ catalog: [{ $id: "https://example.com/s.json", type: "string" }] })
      const fine = (yield* validator.compile({ $ref: "https://example.com/s.json" })).validate(1)._tag
      expect(fine).toBe("Invalid")
    }))
})

describe("JsonSchemaValidator isolation (hyperjump runs in the caller's thread)", () => {
  const money = (currencies: ReadonlyArray<string>) => ({
    "https://example.com/money.json": { type: "object", properties: { currency: { enum: currencies } } }
  })

  it.effect("two validators with different catalogs under the same URI each see their own", () =>
    Effect.gen(function*() {
      const euro = yield* JsonSchemaValidator.make({ catalog: money(["EUR"]) })
      const dollar = yield* JsonSchemaValidator.make({ catalog: money(["USD"]) })
      const schema = { $ref: "https://example.com/money.json" }
      const [inEuro, inDollar] = yield* Effect.all([euro.compile(schema), dollar.compile(schema)], { concurrency: "unbounded" })
      expect(inEuro.validate({ currency: "EUR" })._tag).toBe("Valid")
      expect(inEuro.validate({ currency: "USD" })._tag).toBe("Invalid")
      expect(inDollar.validate({ currency: "USD" })._tag).toBe("Valid")
      expect(inDollar.validate({ currency: "EUR" })._tag).toBe("Invalid")
      // A validator without that catalog document cannot reach the others'.
      const bare = yield* JsonSchemaValidator.make()
      expect(yield* refusalOf(bare.compile(schema))).toMatch(/cannot be resolved/)
    }))

  it.effect("schemas with the same $id compile independently, concurrently too", () =>
    Effect.gen(function*() {
      const validator = yield* JsonSchemaValidator.make()
      const schemas = Array.from({ length: 20 }, (_, i) => ({ $id: "https://example.com/same.json", const: i }))
      const compiled = yield* Effect.forEach(schemas, (schema) => validator.compile(schema), { concurrency: "unbounded" })
      compiled.forEach((each, i) => {
        expect(each.validate(i)._tag).toBe("Valid")
        expect(each.validate(i + 1)._tag).toBe("Invalid")
      })
    }))

  it.effect("schemas registered with hyperjump by someone else stay invisible", () =>
    Effect.gen(function*() {
      registerSchema({ type: "string" }, "https://example.com/registered-elsewhere.json", "https://json-schema.org/draft/2020-12/schema")
      const validator = yield* JsonSchemaValidator.make()
      expect(yield* refusalOf(validator.compile({ $ref: "https://example.com/registered-elsewhere.json" })))
        .toMatch(/cannot be resolved.*never fetches/)
    }))

  it.effect("a dialect URI has one definition per process", () =>
    Effect.gen(function*() {
      const meta = (vocabulary: Record<string, boolean>) => ({
        "https://example.com/meta.json": {
          $schema: "https://json-schema.org/draft/2020-12/schema",
          $vocabulary: vocabulary,
          $dynamicAnchor: "meta",
          allOf: [{ $ref: "https://json-schema.org/draft/2020-12/meta/core" }]
        }
      })
      const core = { "https://json-schema.org/draft/2020-12/vocab/core": true }
      const first = yield* JsonSchemaValidator.make({ catalog: meta(core) })
      expect((yield* first.compile({ $schema: "https://example.com/meta.json", minimum: 3 })).validate(1)._tag).toBe("Valid")
      // The same definition again is fine; a different one would change the first validator's keywords.
      yield* JsonSchemaValidator.make({ catalog: meta(core) })
      const other = yield* Effect.flip(JsonSchemaValidator.make({
        catalog: meta({ ...core, "https://json-schema.org/draft/2020-12/vocab/validation": true })
      }))
      expect(other.message).toMatch(/dialect "https:\/\/example.com\/meta.json".*already defines differently/)
      expect(yield* refusalOf(first.compile({
        $id: "https://example.com/meta.json",
        $vocabulary: { "https://json-schema.org/draft/2020-12/vocab/validation": true }
      }))).toMatch(/already defines differently/)
      const builtIn = yield* Effect.flip(JsonSchemaValidator.make({
        catalog: { "https://json-schema.org/draft/2020-12/schema": { type: "object" } }
      }))
      expect(builtIn.message).toMatch(/built-in 2020-12 meta-schemas/)
      // Still a dialect of the first validator only.
      expect(yield* refusalOf((yield* JsonSchemaValidator.make()).compile({ $schema: "https://example.com/meta.json" })))
        .toMatch(/is not supported/)
    }))
})
