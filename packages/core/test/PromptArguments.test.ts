/**
 * Schema-typed prompt arguments: decoded from the wire strings, described in `prompts/list`,
 * refused (-32602) naming the argument, and refused by the catalog when a field does not decode
 * from a string. Type-level checks are verified by `npm run typecheck`.
 */
import { describe, expect, expectTypeOf, it } from "@effect/vitest"
import { Completion, McpServer, Prompt } from "@snodo/core"
import { McpTestClient } from "@snodo/testing"
import { Effect, Layer, Schema } from "effect"

describe("Schema-typed prompt arguments", () => {
  const forecast = Prompt.make("forecast", {
    description: "Asks for a forecast",
    arguments: Schema.Struct({
      city: Schema.String.annotate({ title: "City", description: "The city" }),
      days: Schema.optional(Schema.NumberFromString.check(Schema.isInt())).annotate({ description: "How many days" }),
      unit: Schema.optionalKey(Schema.Literals(["celsius", "fahrenheit"]))
    }),
    complete: { unit: Completion.fromList(["celsius", "fahrenheit"]) }
  }, ({ city, days, unit }) => {
    expectTypeOf(days).toEqualTypeOf<number | undefined>()
    expectTypeOf(unit).toEqualTypeOf<"celsius" | "fahrenheit" | undefined>()
    return Effect.succeed([Prompt.user(`${city}: ${days === undefined ? "3" : String(days + 1)} days in ${unit ?? "celsius"}`)])
  })

  // Completion providers may only name the schema's fields.
  Prompt.make("stray", {
    arguments: Schema.Struct({ city: Schema.String }),
    // @ts-expect-error "town" is not an argument
    complete: { town: Completion.fromList([]) }
  }, () => Effect.succeed([Prompt.user("x")]))

  const provide = Effect.provide(McpTestClient.layer.pipe(Layer.provide(McpServer.make({ name: "p", version: "1" }).add(forecast).layer)))

  it.effect("prompts/list describes each field", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const [listed] = yield* client.list("prompts")
      expect(listed?.arguments).toEqual([
        { name: "city", title: "City", description: "The city", required: true },
        { name: "days", description: "How many days", required: false },
        { name: "unit", required: false }
      ])
    }).pipe(provide))

  it.effect("the handler receives decoded arguments", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const got = yield* client.getPrompt("forecast", { city: "Paris", days: "4", unit: "fahrenheit" })
      expect(got["messages"]).toEqual([{ role: "user", content: { type: "text", text: "Paris: 5 days in fahrenheit" } }])
      const defaults = yield* client.getPrompt("forecast", { city: "Oslo" })
      expect(defaults["messages"]).toEqual([{ role: "user", content: { type: "text", text: "Oslo: 3 days in celsius" } }])
      const completed = yield* client.complete({ type: "ref/prompt", name: "forecast" }, { name: "unit", value: "f" })
      expect(completed["completion"]).toEqual({ values: ["fahrenheit"], total: 1, hasMore: false })
    }).pipe(provide))

  it.effect("missing or invalid arguments are -32602 naming the argument, never the value", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const missing = yield* Effect.flip(client.getPrompt("forecast", { days: "2" }))
      expect(missing.code).toBe(-32602)
      expect(missing.message).toBe("Missing required argument: city")
      const invalid = yield* Effect.flip(client.getPrompt("forecast", { city: "Paris", days: "2.5" }))
      expect(invalid.code).toBe(-32602)
      expect(invalid.message).toBe(`Invalid argument "days": Expected an integer`)
      const literal = yield* Effect.flip(client.getPrompt("forecast", { city: "Paris", unit: "SECRET-kelvin" }))
      expect(literal.message).toMatch(/^Invalid argument "unit": /)
      expect(literal.message).not.toContain("SECRET")
    }).pipe(provide))

  it.effect("the catalog refuses a field that does not decode from a string", () =>
    Effect.gen(function*() {
      const numeric = Prompt.make("numeric", {
        // @ts-expect-error the encoded side of Schema.Number is a number, not a string
        arguments: Schema.Struct({ city: Schema.String, days: Schema.Number })
      }, () => Effect.succeed([Prompt.user("x")]))
      const refused = yield* Effect.flip(Layer.build(McpServer.make({ name: "x", version: "1" }).add(numeric).layer))
      expect(refused.message).toBe(`Prompt "numeric": argument "days" must decode from a string (its encoded side is Number)`)
      expect(Prompt.argumentsProblems(Schema.Struct({ a: Schema.optional(Schema.Literals(["x", "y"])), b: Schema.NumberFromString }))).toEqual([])
      expect(Prompt.argumentsProblems(Schema.Record(Schema.String, Schema.String))).toEqual(["arguments must be a Schema.Struct of named fields"])
    }).pipe(Effect.scoped))
})
