/**
 * Tool `failure` schemas and `onFailure`: declared failures become `isError` results carrying the
 * encoded error, `onFailure` is typed by the schema (or by its annotation), undeclared failures
 * keep the defaults. Type-level checks (`expectTypeOf`, `@ts-expect-error`) are verified by
 * `npm run typecheck`.
 */
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { McpError, McpServer, Tool, ToolResult } from "@snodo/core"
import { McpTestClient } from "@snodo/testing"
import { Effect, Layer, Schema, SchemaGetter } from "effect"

class CityNotFound extends Schema.TaggedError<CityNotFound>()("CityNotFound", { city: Schema.String }) {}
class Upstream extends Schema.TaggedError<Upstream>()("Upstream", { detail: Schema.String }) {}

const City = Schema.Struct({ city: Schema.String })

const lookup = (city: string) =>
  Effect.gen(function*() {
    if (city === "Atlantis") return yield* new CityNotFound({ city })
    if (city === "down") return yield* new Upstream({ detail: "secret upstream detail" })
    if (city === "quota") return yield* McpError.ApplicationError.of(-32001, "Quota exceeded")
    return { forecast: `Sunny in ${city}` }
  })

const declared = Tool.make("declared", { input: City, failure: CityNotFound }, ({ city }) => lookup(city))

const mapped = Tool.make("mapped", {
  input: City,
  failure: CityNotFound,
  onFailure: (e) => {
    expectTypeOf(e).toEqualTypeOf<CityNotFound>()
    return e.city === "Atlantis" ? ToolResult.error(`No weather for ${e.city}`) : new McpError.InvalidParams({ message: "never" })
  }
}, ({ city }) => lookup(city))

const toProtocol = Tool.make("to_protocol", {
  input: City,
  failure: CityNotFound,
  onFailure: (e) => new McpError.InvalidParams({ message: `Unknown city: ${e.city}` })
}, ({ city }) => lookup(city))

const stringFailure = Tool.make("string_failure", { input: Schema.Struct({}), failure: Schema.String }, () => Effect.fail("try again later"))

const rawFailure = Tool.make("raw_failure", {
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  failure: Schema.Union([CityNotFound, Upstream])
}, (args) => {
  expectTypeOf(args).toEqualTypeOf<Readonly<Record<string, unknown>>>()
  return lookup(String(args["city"]))
})

const Unencodable = Schema.String.pipe(Schema.decodeTo(Schema.String, {
  decode: SchemaGetter.passthrough(),
  encode: SchemaGetter.forbidden(() => "not for the wire")
}))
const unencodable = Tool.make("unencodable", { input: Schema.Struct({}), failure: Unencodable }, () => Effect.fail("secret reason"))

// Without a `failure` schema `onFailure` renders every typed failure; unannotated, it gets `unknown`.
const everything = Tool.make("everything", {
  input: City,
  onFailure: (e) => {
    expectTypeOf(e).toEqualTypeOf<unknown>()
    return ToolResult.error(e instanceof CityNotFound ? `unknown city ${e.city}` : "something else")
  }
}, ({ city }) => lookup(city))

const annotated = Tool.make("annotated", {
  input: City,
  onFailure: (e: CityNotFound | Upstream) => ToolResult.error(e._tag)
}, ({ city }) => Effect.flatMap(lookup(city), (value) => Effect.succeed(value)).pipe(Effect.catchTag("ApplicationError", () => Effect.succeed({ forecast: "?" }))))

// The handler fails with Upstream too, which the annotated `onFailure` does not accept.
// @ts-expect-error "onFailure does not accept these failures of the handler": Upstream
Tool.make("uncovered", { input: City, onFailure: (e: CityNotFound) => ToolResult.error(e.city) }, () => Effect.fail(new Upstream({ detail: "x" })))

// The output schema is still enforced with a failure schema.
const Forecast = Schema.Struct({ forecast: Schema.String })
// @ts-expect-error a number is not the declared output
Tool.make("typed_output", { input: City, output: Forecast, failure: CityNotFound }, () => Effect.succeed({ forecast: 1 }))
Tool.make("typed_output", { input: City, output: Forecast, failure: CityNotFound }, () => Effect.succeed({ forecast: "1" }))
// Effect Schemas and raw JSON Schemas do not mix.
// @ts-expect-error an Effect Schema output with a raw input schema
Tool.make("mixed", { inputSchema: { type: "object" }, output: Forecast }, () => Effect.succeed({ forecast: "1" }))

describe("tool failure schemas", () => {
  const Server = McpServer.make({ name: "typed", version: "1" })
    .add(declared, mapped, toProtocol, stringFailure, rawFailure, unencodable, everything, annotated)
  const provide = Effect.provide(McpTestClient.layer.pipe(Layer.provide(Server.layer)))

  it.effect("a declared failure is an isError result carrying the encoded error", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const result = yield* client.callTool("declared", { city: "Atlantis" })
      expect(result.isError).toBe(true)
      expect(result.structuredContent).toEqual({ _tag: "CityNotFound", city: "Atlantis" })
      expect(result.content).toEqual([{ type: "text", text: JSON.stringify({ _tag: "CityNotFound", city: "Atlantis" }) }])
      expect((yield* client.callTool("declared", { city: "Paris" })).structuredContent).toEqual({ forecast: "Sunny in Paris" })
    }).pipe(provide))

  it.effect("undeclared failures keep the defaults: protocol errors as such, others name only the tag", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const upstream = yield* client.callTool("declared", { city: "down" })
      expect(upstream.isError).toBe(true)
      expect(upstream.structuredContent).toBeUndefined()
      expect(JSON.stringify(upstream.content)).toContain("Upstream")
      expect(JSON.stringify(upstream.content)).not.toContain("secret upstream detail")
      const quota = yield* Effect.flip(client.callTool("declared", { city: "quota" }))
      expect(quota.code).toBe(-32001)
    }).pipe(provide))

  it.effect("onFailure renders declared failures as a result or a JSON-RPC error", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const rendered = yield* client.callTool("mapped", { city: "Atlantis" })
      expect(rendered.content).toEqual([{ type: "text", text: "No weather for Atlantis" }])
      expect(rendered.structuredContent).toBeUndefined()
      // Upstream is not declared: onFailure is not asked.
      expect(JSON.stringify((yield* client.callTool("mapped", { city: "down" })).content)).toContain("failed: Upstream")
      const protocol = yield* Effect.flip(client.callTool("to_protocol", { city: "Atlantis" }))
      expect(protocol.code).toBe(-32602)
      expect(protocol.message).toBe("Unknown city: Atlantis")
    }).pipe(provide))

  it.effect("a failure that encodes to a string is a text block; unions and raw input schemas work", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const text = yield* client.callTool("string_failure")
      expect(text).toMatchObject({ isError: true, content: [{ type: "text", text: "try again later" }] })
      expect(text.structuredContent).toBeUndefined()
      const raw = yield* client.callTool("raw_failure", { city: "down" })
      expect(raw.structuredContent).toEqual({ _tag: "Upstream", detail: "secret upstream detail" })
    }).pipe(provide))

  it.effect("a failure its own schema does not encode is -32603, without the details", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const error = yield* Effect.flip(client.callTool("unencodable"))
      expect(error.code).toBe(-32603)
      expect(JSON.stringify(client.written().at(-1))).not.toMatch(/secret reason|not for the wire/)
    }).pipe(provide))

  it.effect("without a failure schema onFailure renders every typed failure", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      expect((yield* client.callTool("everything", { city: "Atlantis" })).content).toEqual([{ type: "text", text: "unknown city Atlantis" }])
      expect((yield* client.callTool("everything", { city: "quota" })).content).toEqual([{ type: "text", text: "something else" }])
      expect((yield* client.callTool("annotated", { city: "down" })).content).toEqual([{ type: "text", text: "Upstream" }])
    }).pipe(provide))
})
