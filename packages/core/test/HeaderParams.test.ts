/** `x-mcp-header` declarations: read once at catalog build, refused there when invalid. */
import { Effect, Schema } from "effect"
import { describe, expect, it } from "vitest"
import * as BasicJsonSchema from "@snodo/core/BasicJsonSchema"
import * as Catalog from "@snodo/core/Catalog"
import { declarations, valueAt } from "@snodo/protocol/methods/HeaderParams"
import * as Tool from "@snodo/core/Tool"

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: "object", properties, ...extra })

const reason = (schema: unknown): string | undefined => {
  const result = declarations(schema as never)
  return "_tag" in result ? result.reason : undefined
}

describe("declarations", () => {
  it("reads names, paths and types through nested properties", () => {
    expect(declarations(object({
      region: { type: "string", "x-mcp-header": "Region" },
      shard: { type: ["integer", "null"], "x-mcp-header": "Shard" },
      nested: object({ dry: { type: "boolean", "x-mcp-header": "Dry-Run" } }),
      plain: { type: "string" }
    }))).toEqual([
      { name: "Region", header: "mcp-param-region", path: ["region"], type: "string" },
      { name: "Shard", header: "mcp-param-shard", path: ["shard"], type: "integer" },
      { name: "Dry-Run", header: "mcp-param-dry-run", path: ["nested", "dry"], type: "boolean" }
    ])
    expect(declarations(object({}))).toEqual([])
  })

  it("refuses names that are not tokens, duplicates, non-primitive types and unreachable placements", () => {
    expect(reason(object({ a: { type: "string", "x-mcp-header": "" } }))).toMatch(/token/)
    expect(reason(object({ a: { type: "string", "x-mcp-header": "Bad Name" } }))).toMatch(/token/)
    expect(reason(object({ a: { type: "string", "x-mcp-header": "A\r\nX: y" } }))).toMatch(/token/)
    expect(reason(object({ a: { type: "string", "x-mcp-header": 7 } }))).toMatch(/token/)
    expect(reason(object({ a: { type: "string", "x-mcp-header": "Id" }, b: { type: "string", "x-mcp-header": "ID" } }))).toMatch(/duplicates/)
    expect(reason(object({ a: { type: "number", "x-mcp-header": "N" } }))).toMatch(/type/)
    expect(reason(object({ a: { type: "object", "x-mcp-header": "O" } }))).toMatch(/type/)
    expect(reason(object({ a: { "x-mcp-header": "Untyped" } }))).toMatch(/type/)
    expect(reason(object({ a: { type: ["string", "integer"], "x-mcp-header": "Two" } }))).toMatch(/type/)
    expect(reason(object({ a: { type: "array", items: { type: "string", "x-mcp-header": "Item" } } }))).toMatch(/reachable/)
    expect(reason(object({ a: { anyOf: [{ type: "string", "x-mcp-header": "Any" }] } }))).toMatch(/reachable/)
    expect(reason(object({}, { $defs: { d: { type: "string", "x-mcp-header": "Def" } } }))).toMatch(/reachable/)
    expect(reason(object({}, { if: object({ a: { type: "string", "x-mcp-header": "If" } }) }))).toMatch(/reachable/)
    expect(reason({ type: "object", "x-mcp-header": "Root" })).toMatch(/reachable/)
  })

  it("does not mistake data for schemas", () => {
    expect(declarations(object({ "x-mcp-header": { type: "string" } }, { default: { "x-mcp-header": "x" } }))).toEqual([])
  })
})

describe("valueAt", () => {
  it("reads the value at a path; null and absent are absent", () => {
    expect(valueAt({ a: { b: 1 } }, ["a", "b"])).toBe(1)
    expect(valueAt({ a: null }, ["a"])).toBeUndefined()
    expect(valueAt({ a: "x" }, ["a", "b"])).toBeUndefined()
    expect(valueAt({}, ["a"])).toBeUndefined()
  })
})

describe("the catalog", () => {
  const build = (tool: Tool.Any) => Catalog.make([tool]).pipe(Effect.provide(BasicJsonSchema.layer), Effect.result, Effect.runSync)

  it("refuses a tool with an invalid declaration, naming it", () => {
    const bad = Tool.make("bad", { inputSchema: object({ n: { type: "number", "x-mcp-header": "N" } }) }, () => Effect.succeed("x"))
    const result = build(bad)
    expect(result._tag).toBe("Failure")
    expect(result._tag === "Failure" ? result.failure.message : "").toMatch(/^Tool "bad": x-mcp-header "N"/)
  })

  it("exposes the declarations of raw and Effect Schema tools", () => {
    const raw = Tool.make("raw", { inputSchema: object({ r: { type: "string", "x-mcp-header": "R" } }) }, () => Effect.succeed("x"))
    const typed = Tool.make("typed", {
      input: Schema.Struct({ region: Schema.String.annotate({ "x-mcp-header": "Region" }) })
    }, () => Effect.succeed("x"))
    const rawCatalog = build(raw)
    const typedCatalog = build(typed)
    if (rawCatalog._tag === "Failure" || typedCatalog._tag === "Failure") throw new Error("catalog refused")
    expect(rawCatalog.success.tools.get("raw")!.headerParams.map((p) => p.name)).toEqual(["R"])
    const compiled = typedCatalog.success.tools.get("typed")!
    expect(compiled.headerParams).toEqual([{ name: "Region", header: "mcp-param-region", path: ["region"], type: "string" }])
    expect((compiled.wire["inputSchema"] as { properties: Record<string, unknown> }).properties["region"]).toEqual({ type: "string", "x-mcp-header": "Region" })
  })
})
