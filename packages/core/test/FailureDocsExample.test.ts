/**
 * The "Failure schemas" example of docs/handlers.md, copied verbatim: it must compile as written
 * (`onFailure`'s parameter typed without annotation) and behave as its comments say.
 */
import { describe, expect, it } from "@effect/vitest"
import { McpServer, Tool, ToolResult } from "@snodo/core"
import { McpTestClient } from "@snodo/testing"
import { Effect, Layer, Schema } from "effect"

describe("the docs/handlers.md example", () => {
  // Copied from docs/handlers.md ("Failure schemas"): it must compile as written.
  class CityNotFound extends Schema.TaggedError<CityNotFound>()("CityNotFound", { city: Schema.String }) {}
  class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", {}) {}

  const lookup = Effect.fn(function*(city: string) {
    if (city === "Atlantis") return yield* new CityNotFound({ city })
    if (city === "Mordor") return yield* new Unavailable()
    return { forecast: `Sunny in ${city}` }
  })

  const weather = Tool.make("weather", {
    input: Schema.Struct({ city: Schema.String }),
    output: Schema.Struct({ forecast: Schema.String }),
    failure: CityNotFound
  }, ({ city }) => lookup(city))

  const politeWeather = Tool.make("polite_weather", {
    input: Schema.Struct({ city: Schema.String }),
    failure: CityNotFound,
    onFailure: (e) => ToolResult.error(`I do not know ${e.city}`) // e: CityNotFound
  }, ({ city }) => lookup(city))

  const provide = Effect.provide(McpTestClient.layer.pipe(Layer.provide(McpServer.make({ name: "docs", version: "1" }).add(weather, politeWeather).layer)))

  it.effect("behaves as the comments say", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const atlantis = yield* client.callTool("weather", { city: "Atlantis" })
      expect(atlantis).toMatchObject({ isError: true, structuredContent: { _tag: "CityNotFound", city: "Atlantis" } })
      const mordor = yield* client.callTool("weather", { city: "Mordor" })
      expect(mordor.content).toEqual([{ type: "text", text: `Tool "weather" failed: Unavailable` }])
      expect((yield* client.callTool("polite_weather", { city: "Atlantis" })).content).toEqual([{ type: "text", text: "I do not know Atlantis" }])
      expect((yield* client.callTool("weather", { city: "Paris" })).structuredContent).toEqual({ forecast: "Sunny in Paris" })
    }).pipe(provide))
})
