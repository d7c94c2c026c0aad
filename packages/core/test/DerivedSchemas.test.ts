/**
 * A tool's advertised JSON Schemas: a struct of primitive fields is derived when `tools/list`
 * first reads it (internal/PlainStruct), any other schema when the catalog is built, where it is
 * checked. Either way the `tools/list` entry is the same, key for key and in the same order.
 */
import { Effect, Schema } from "effect"
import { describe, expect, it } from "vitest"
import * as BasicJsonSchema from "@snodo/core/BasicJsonSchema"
import * as Catalog from "@snodo/core/Catalog"
import * as Tool from "@snodo/core/Tool"
import { jsonSchemaOf } from "../src/catalog/internal/JsonSchemaOf.ts"
import { isPlainStruct } from "../src/catalog/internal/PlainStruct.ts"
import { annotationOptions } from "@snodo/protocol/methods/HeaderParams"

const build = (tool: Tool.Any) => Catalog.make([tool]).pipe(Effect.provide(BasicJsonSchema.layer), Effect.result, Effect.runSync)

const entryOf = (tool: Tool.Any): Readonly<Record<string, unknown>> => {
  const built = build(tool)
  if (built._tag !== "Success") throw new Error(`refused: ${built.failure.message}`)
  return built.success.lists.tools.items[0]!
}

const Plain = Schema.Struct({ text: Schema.String, count: Schema.optionalKey(Schema.Number), on: Schema.Boolean, kind: Schema.Literal("a") })

describe("advertised schemas", () => {
  it("knows which structs are plain", () => {
    expect(isPlainStruct(Plain)).toBe(true)
    expect(isPlainStruct(Schema.Struct({}))).toBe(false)
    expect(isPlainStruct(Schema.Struct({ text: Schema.String.annotate({ description: "d" }) }))).toBe(false)
    expect(isPlainStruct(Schema.Struct({ text: Schema.String.check(Schema.isMinLength(1)) }))).toBe(false)
    expect(isPlainStruct(Schema.Struct({ text: Schema.optional(Schema.String) }))).toBe(false)
    expect(isPlainStruct(Schema.Struct({ nested: Schema.Struct({ a: Schema.String }) }))).toBe(false)
    expect(isPlainStruct(Schema.Struct({ "x-mcp-header": Schema.String }))).toBe(false)
    expect(isPlainStruct(Schema.Struct({ text: Schema.String }).annotate({ identifier: "T" }))).toBe(false)
    expect(isPlainStruct(Schema.String)).toBe(false)
  })

  it("a plain struct's entry is the one derived at build, key for key, read or serialized", () => {
    const tool = Tool.make("plain", { title: "T", description: "D", input: Plain, output: Plain, annotations: { readOnlyHint: true } }, (input) => Effect.succeed(input))
    const entry = entryOf(tool)
    const derived = jsonSchemaOf(Plain, annotationOptions)
    const expected = { name: "plain", title: "T", description: "D", inputSchema: derived, outputSchema: derived, annotations: { readOnlyHint: true } }
    expect(JSON.stringify(entryOf(tool))).toBe(JSON.stringify(expected))
    expect(Object.keys(entry)).toEqual(Object.keys(expected))
    expect(entry["inputSchema"]).toEqual(derived)
    expect({ ...entry }).toEqual(expected)
    // Read once, it stays the same value.
    expect(entry["outputSchema"]).toBe(entry["outputSchema"])
  })

  it("other schemas are still refused when the catalog is built", () => {
    const notObject = Tool.make("bad", { input: Plain, output: Schema.String }, () => Effect.succeed("x"))
    const built = build(notObject as Tool.Any)
    expect(built._tag).toBe("Failure")
    const badHeader = Tool.make("header", {
      input: Schema.Struct({ region: Schema.Struct({ a: Schema.String }).annotate({ "x-mcp-header": "Region" }) })
    }, () => Effect.succeed({}))
    expect(build(badHeader as Tool.Any)._tag).toBe("Failure")
  })

  it("a plain struct's checks build its codec at first need, and answer as an eagerly built one does", () => {
    const Annotated = Plain.annotate({ description: "not plain" })
    expect(isPlainStruct(Annotated)).toBe(false)
    const checksOf = (schema: typeof Plain) => {
      const built = build(Tool.make("t", { input: schema, output: schema }, (input) => Effect.succeed(input)))
      if (built._tag !== "Success") throw new Error("refused")
      const checks = built.success.tools.get("t")!.checks
      if (Effect.isEffect(checks)) throw new Error("deferred")
      return checks
    }
    const lazy = checksOf(Plain)
    const eager = checksOf(Annotated)
    for (const value of [{ text: 5, on: true, kind: "a" }, { text: "x", on: true, kind: "a" }, { text: "x", on: "no", kind: "b", count: Number.NaN }, null]) {
      expect(lazy.decodeInput(value)).toEqual(eager.decodeInput(value))
      expect(lazy.encodeOutput?.(value)).toEqual(eager.encodeOutput?.(value))
      expect(lazy.checkStructured?.(value)).toEqual(eager.checkStructured?.(value))
    }
  })
})
