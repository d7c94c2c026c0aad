/**
 * A trip-booking server whose handlers ask the user as they go (MRTR), written top to bottom.
 *
 * - `book_trip`: three rounds. It asks where to, then (knowing the city) how many nights with a
 *   confirmation, then books. The price quote is computed once and kept in `Input.state`.
 * - `greet`: two rounds, one question.
 * - the `trips://current` resource and the `trip_summary` prompt ask for input too.
 */
import { Content, Input, McpServer, Prompt, Resource, Tool } from "@snodo/core"
import { Effect, Option, Schema } from "effect"

// Forms are checked when the module loads: a keyword outside the spec's subset stops the program.
const CityForm = Input.form({
  message: "Where do you want to go?",
  requestedSchema: {
    type: "object",
    properties: {
      city: { type: "string", title: "City", oneOf: [{ const: "osl", title: "Oslo" }, { const: "lis", title: "Lisbon" }] }
    },
    required: ["city"]
  }
})

const NameForm = Input.form({
  message: "What is your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string", minLength: 1 } }, required: ["name"] }
})

const prices: Readonly<Record<string, number>> = { osl: 180, lis: 120 }

/** The quote survives rounds, sealed in the request state, instead of being recomputed. */
const Quote = Input.state("quote", Schema.Struct({ city: Schema.String, perNight: Schema.Number }))

const quoteFor = (city: string) =>
  Effect.gen(function*() {
    const stored = yield* Quote.get
    if (Option.isSome(stored) && stored.value.city === city) return stored.value
    yield* Effect.logInfo(`pricing ${city}`)
    const quote = { city, perNight: prices[city] ?? 150 }
    yield* Quote.set(quote)
    return quote
  })

export const bookTrip = Tool.make("book_trip", {
  description: "Books a trip, asking the user for the city, the nights and a confirmation",
  input: Schema.Struct({ traveller: Schema.String })
}, ({ traveller }) =>
  Effect.gen(function*() {
    const where = yield* Input.elicit("city", CityForm)
    if (where.action !== "accept") return "No trip booked."
    const quote = yield* quoteFor(where.content.city)
    const stay = yield* Input.elicit("stay", {
      message: `${quote.perNight} EUR per night. How long, and shall I book?`,
      requestedSchema: {
        type: "object",
        properties: {
          nights: { type: "integer", minimum: 1, maximum: 30, default: 3 },
          confirm: { type: "boolean", title: "Book it" }
        },
        required: ["nights", "confirm"]
      }
    })
    if (stay.action !== "accept" || !stay.content.confirm) return "No trip booked."
    return `Booked ${stay.content.nights} night(s) in ${where.content.city} for ${traveller}: ${stay.content.nights * quote.perNight} EUR.`
  }))

export const greet = Tool.make("greet", {
  description: "Greets the user by name, asking for it",
  input: Schema.Struct({})
}, () =>
  Effect.gen(function*() {
    const answer = yield* Input.elicit("user_name", NameForm)
    return answer.action === "accept" ? `Hello, ${answer.content.name}!` : "Hello, stranger!"
  }))

export const currentTrip = Resource.make({ uri: "trips://current", name: "current-trip", mimeType: "text/plain" }, () =>
  Effect.gen(function*() {
    const answer = yield* Input.elicit("who", NameForm)
    const name = answer.action === "accept" ? answer.content.name : "nobody"
    return Content.textContents("trips://current", `No trip on file for ${name}.`, "text/plain")
  }))

export const tripSummary = Prompt.make("trip_summary", { description: "Summarises a trip for the traveller" }, () =>
  Effect.gen(function*() {
    const where = yield* Input.elicit("city", CityForm)
    return [Prompt.user(`Write a short travel summary for ${where.action === "accept" ? where.content.city : "anywhere"}.`)]
  }))

export const Server = McpServer.make({ name: "trips", version: "1.0.0" }).add(bookTrip, greet, currentTrip, tripSummary)
