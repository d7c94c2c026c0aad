import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as BasicJsonSchema from "../src/catalog/BasicJsonSchema.ts"
import {
  type CompiledSchema,
  type JsonSchemaDocument,
  SchemaCompileError,
  SchemaValidator,
  type ValidationResult
} from "../src/catalog/SchemaValidator.ts"

/** The basic backend compiles synchronously, so its compile Effect runs with `runSync`. */
const compile = (schema: JsonSchemaDocument, options?: BasicJsonSchema.Options): CompiledSchema =>
  Effect.runSync(BasicJsonSchema.make(options).compile(schema).pipe(
    Effect.catch((error) => Effect.die(new Error(`unexpected refusal: ${error.message}`)))
  ))

const refusal = (schema: JsonSchemaDocument, options?: BasicJsonSchema.Options): string =>
  Effect.runSync(BasicJsonSchema.make(options).compile(schema).pipe(
    Effect.flatMap(() => Effect.die(new Error("expected a refusal"))),
    Effect.catch((error: SchemaCompileError) => Effect.succeed(error.message))
  ))

const valid = (schema: JsonSchemaDocument, instance: unknown): boolean => compile(schema).validate(instance)._tag === "Valid"

const issues = (result: ValidationResult) => result._tag === "Invalid" ? result.issues.map(({ instancePath, keyword }) => ({ instancePath, keyword })) : []

describe("BasicJsonSchema", () => {
  it.effect("is the SchemaValidator provided by layer", () =>
    Effect.gen(function*() {
      const service = yield* SchemaValidator
      expect(service.name).toBe("basic")
      const compiled = yield* service.compile({ type: "object", required: ["a"] })
      expect(compiled.validate({ a: 1 })).toEqual({ _tag: "Valid" })
      const refused = yield* Effect.flip(service.compile({ anyOf: [true] }))
      expect(refused).toBeInstanceOf(SchemaCompileError)
    }).pipe(Effect.provide(BasicJsonSchema.layer)))

  it("keeps the advertised schema object untouched", () => {
    const schema = Object.freeze({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      "x-mcp-header": "Region",
      properties: Object.freeze({ a: Object.freeze({ type: "string" }) })
    })
    const compiled = compile(schema)
    expect(compiled.schema).toBe(schema)
  })

  it("boolean schemas", () => {
    expect(valid(true, { anything: [1] })).toBe(true)
    expect(issues(compile(false).validate(1))).toEqual([{ instancePath: "", keyword: "false" }])
    expect(issues(compile({ items: false }).validate([1]))).toEqual([{ instancePath: "/0", keyword: "items" }])
  })

  it("type, including arrays of types and integer", () => {
    expect(valid({ type: "integer" }, 3)).toBe(true)
    expect(valid({ type: "integer" }, 3.0)).toBe(true)
    expect(valid({ type: "integer" }, 3.5)).toBe(false)
    expect(valid({ type: "number" }, 3.5)).toBe(true)
    expect(valid({ type: "object" }, [])).toBe(false)
    expect(valid({ type: "object" }, null)).toBe(false)
    expect(valid({ type: "array" }, [])).toBe(true)
    expect(valid({ type: ["string", "null"] }, null)).toBe(true)
    expect(valid({ type: ["string", "null"] }, 1)).toBe(false)
    expect(valid({ type: "boolean" }, 0)).toBe(false)
  })

  it("required, properties and additionalProperties", () => {
    const schema = {
      type: "object",
      required: ["name"],
      properties: { name: { type: "string" }, "a/b~c": { type: "integer" } },
      additionalProperties: false
    }
    expect(valid(schema, { name: "x" })).toBe(true)
    expect(issues(compile(schema).validate({ "a/b~c": 1.5, extra: true }))).toEqual([
      { instancePath: "", keyword: "required" },
      { instancePath: "/a~1b~0c", keyword: "type" },
      { instancePath: "/extra", keyword: "additionalProperties" }
    ])
    const typed = { type: "object", additionalProperties: { type: "number" } }
    expect(valid(typed, { a: 1, b: 2 })).toBe(true)
    expect(issues(compile(typed).validate({ a: "1" }))).toEqual([{ instancePath: "/a", keyword: "type" }])
    // Inherited names are not own properties.
    expect(valid({ required: ["toString"] }, {})).toBe(false)
  })

  it("items and array bounds", () => {
    const schema = { type: "array", items: { type: "string" }, minItems: 1, maxItems: 2 }
    expect(valid(schema, ["a"])).toBe(true)
    expect(issues(compile(schema).validate([]))).toEqual([{ instancePath: "", keyword: "minItems" }])
    expect(issues(compile(schema).validate(["a", 1, "c"]))).toEqual([
      { instancePath: "", keyword: "maxItems" },
      { instancePath: "/1", keyword: "type" }
    ])
  })

  it("enum and const use JSON equality", () => {
    expect(valid({ enum: [1, "a", { x: [1, 2] }] }, { x: [1, 2] })).toBe(true)
    expect(valid({ enum: [1, "a"] }, 1.0)).toBe(true)
    expect(valid({ enum: [1, "a"] }, "1")).toBe(false)
    expect(valid({ const: { a: 1, b: 2 } }, { b: 2, a: 1 })).toBe(true)
    expect(valid({ const: { a: 1 } }, { a: 1, b: 2 })).toBe(false)
    expect(valid({ const: null }, null)).toBe(true)
    expect(valid({ const: false }, 0)).toBe(false)
  })

  it("string lengths count code points", () => {
    const schema = { type: "string", minLength: 2, maxLength: 3 }
    expect(valid(schema, "ab")).toBe(true)
    expect(valid(schema, "a")).toBe(false)
    expect(valid(schema, "\u{1F600}")).toBe(false) // one code point, two UTF-16 units
    expect(valid(schema, "\u{1F600}\u{1F600}\u{1F600}")).toBe(true) // three code points, six units
    expect(valid(schema, "abcd")).toBe(false)
    expect(valid({ maxLength: 1 }, "\uD800")).toBe(true) // a lone surrogate is one code point
  })

  it("numeric bounds", () => {
    expect(valid({ minimum: 1, maximum: 2 }, 1)).toBe(true)
    expect(valid({ minimum: 1, maximum: 2 }, 2)).toBe(true)
    expect(valid({ exclusiveMinimum: 1 }, 1)).toBe(false)
    expect(valid({ exclusiveMaximum: 2 }, 1.99)).toBe(true)
    expect(issues(compile({ minimum: 0, exclusiveMaximum: 0 }).validate(0))).toEqual([
      { instancePath: "", keyword: "exclusiveMaximum" }
    ])
    expect(valid({ minimum: 5 }, "not a number")).toBe(true)
  })

  it("pattern is compiled once with the u flag", () => {
    expect(valid({ pattern: "^\\p{Lu}" }, "Été")).toBe(true)
    expect(valid({ pattern: "^\\p{Lu}" }, "été")).toBe(false)
    expect(valid({ pattern: "b" }, "abc")).toBe(true) // not anchored
    expect(refusal({ pattern: "(" })).toMatch(/pattern/)
    expect(refusal({ pattern: "\\a" })).toMatch(/pattern/) // identity escapes are errors under u
  })

  it("uniqueItems uses deep equality", () => {
    expect(valid({ uniqueItems: true }, [1, "1", [1], { a: 1 }])).toBe(true)
    expect(valid({ uniqueItems: true }, [{ a: 1, b: 2 }, { b: 2, a: 1 }])).toBe(false)
    expect(valid({ uniqueItems: true }, [1, 1.0])).toBe(false)
    expect(valid({ uniqueItems: false }, [1, 1])).toBe(true)
    const result = compile({ uniqueItems: true }).validate(["x", "y", "x"])
    expect(issues(result)).toEqual([{ instancePath: "", keyword: "uniqueItems" }])
  })

  it("uniqueItems stays linear on large arrays", () => {
    const big = Array.from({ length: 200_000 }, (_, index) => index)
    const start = performance.now()
    expect(valid({ uniqueItems: true }, big)).toBe(true)
    expect(performance.now() - start).toBeLessThan(2_000)
  })

  it("ignores annotations and vendor keys", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: "https://example.com/tool",
      $comment: "c",
      title: "T",
      description: "D",
      default: {},
      examples: [{}],
      format: "email",
      deprecated: false,
      readOnly: false,
      writeOnly: false,
      "x-mcp-header": "Region",
      "x-vendor": { anything: true },
      type: "string"
    }
    expect(valid(schema, "not an email")).toBe(true)
  })

  it("refuses every assertion keyword it cannot check, naming the full backend", () => {
    const unsupported: ReadonlyArray<Record<string, unknown>> = [
      { $ref: "#/$defs/a" },
      { allOf: [true] },
      { anyOf: [true] },
      { oneOf: [true] },
      { not: false },
      JSON.parse(`{ "if": true, "then": true, "else": true }`),
      { unevaluatedProperties: false },
      { unevaluatedItems: false },
      { dependentRequired: {} },
      { dependentSchemas: {} },
      { patternProperties: {} },
      { prefixItems: [] },
      { contains: true },
      { propertyNames: true },
      { multipleOf: 2 },
      { minProperties: 1 },
      { $dynamicRef: "#a" },
      { properties: { deep: { items: { anyOf: [true] } } } }
    ]
    for (const schema of unsupported) {
      const message = refusal(schema)
      expect(message).toMatch(/basic JSON Schema backend does not support/)
      expect(message).toMatch(/@snodo\/json-schema/)
    }
    expect(refusal({ properties: { deep: { items: { anyOf: [true] } } } })).toMatch(
      /"anyOf".*#\/properties\/deep\/items\/anyOf/
    )
  })

  it("refuses malformed keyword values", () => {
    expect(refusal({ type: "text" })).toMatch(/type/)
    expect(refusal({ type: [] })).toMatch(/type/)
    expect(refusal({ type: ["string", "string"] })).toMatch(/type/)
    expect(refusal({ required: "a" })).toMatch(/required/)
    expect(refusal({ minLength: -1 })).toMatch(/minLength/)
    expect(refusal({ maxItems: 1.5 })).toMatch(/maxItems/)
    expect(refusal({ minimum: "1" })).toMatch(/minimum/)
    expect(refusal({ exclusiveMaximum: true })).toMatch(/exclusiveMaximum/) // draft-04 form
    expect(refusal({ items: [{ type: "string" }] })).toMatch(/prefixItems/)
    expect(refusal({ properties: { a: 1 } })).toMatch(/object or a boolean/)
    expect(refusal({ uniqueItems: "yes" })).toMatch(/uniqueItems/)
  })

  it("bounds the schema size and depth", () => {
    const wide = { type: "object", properties: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`p${i}`, { type: "string" }])) }
    expect(refusal(wide, { maxSchemaNodes: 20 })).toMatch(/maxSchemaNodes/)
    let deep: Record<string, unknown> = { type: "string" }
    for (let i = 0; i < 100; i++) deep = { items: deep }
    expect(refusal(deep)).toMatch(/maxSchemaDepth/)
    expect(refusal({ default: { a: { b: { c: 1 } } } }, { maxSchemaDepth: 2 })).toMatch(/maxSchemaDepth/)
  })

  it("caps the number of issues", () => {
    const compiled = compile({ items: { type: "string" } }, { maxIssues: 3 })
    const result = compiled.validate(Array.from({ length: 100 }, (_, index) => index))
    expect(result._tag === "Invalid" && result.issues.length).toBe(3)
  })

  it("issues name the path and keyword, never the value", () => {
    const secret = "hunter2-very-secret"
    const schema = {
      type: "object",
      properties: {
        password: { type: "string", minLength: 40, pattern: "^[0-9]+$" },
        pin: { enum: [1, 2] },
        n: { maximum: 1 }
      }
    }
    const result = compile(schema).validate({ password: secret, pin: secret, n: 123456789 })
    expect(result._tag).toBe("Invalid")
    if (result._tag !== "Invalid") return
    expect(issues(result)).toEqual([
      { instancePath: "/password", keyword: "minLength" },
      { instancePath: "/password", keyword: "pattern" },
      { instancePath: "/pin", keyword: "enum" },
      { instancePath: "/n", keyword: "maximum" }
    ])
    const text = JSON.stringify(result)
    expect(text).not.toContain(secret)
    expect(text).not.toContain("123456789")
  })

  it("does not mutate or coerce the instance", () => {
    const instance = Object.freeze({ a: "1", list: Object.freeze([1, 2]) })
    const schema = { type: "object", properties: { a: { type: "integer", default: 5 }, b: { default: 1 } } }
    expect(valid(schema, instance)).toBe(false)
    expect(instance).toEqual({ a: "1", list: [1, 2] })
  })
})
