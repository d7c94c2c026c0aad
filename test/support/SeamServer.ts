/**
 * A server that proves the seams of the route table from outside the core: a test-only dialect
 * (`2099-01-01`: 2026-07-28 plus one method) and a test-only extension (`com.example/notes`: one
 * method of its own, one key of the listen filter, and an `Mcp-Name` header rule), composed by
 * the application exactly as a user would, with nothing changed in `@snodo/core`.
 *
 * `SeamServerMain.ts` serves it over stdio; tests serve `seamServer().layer` over HTTP.
 */
import * as Method from "@snodo/protocol/methods/Method"
import { McpServer, SubscriptionHub, Tool } from "@snodo/core"
import { Dialect, Dialect2026_07_28, DialectRegistry } from "@snodo/core/dialect"
import { Extension } from "@snodo/core/extension"
import { admitMeta } from "@snodo/core/dialect/RequestMeta"
import * as Route from "@snodo/core/extension/Route"
import { Effect, Layer, Schema } from "effect"

/** The test dialect's own method: the version that served it and the caller. */
export const WhoamiMethod = Method.request({
  name: "example/whoami",
  params: Schema.Struct({ _meta: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)) }),
  result: Schema.Struct({ version: Schema.String, principal: Schema.String })
})

export const Whoami = Route.make({
  method: WhoamiMethod,
  run: (call) => Effect.succeed(Route.result({ version: call.dialect.version, principal: call.principal.id }))
})

export const Dialect2099: Dialect.Dialect = {
  ...Dialect2026_07_28,
  version: "2099-01-01",
  admit: admitMeta("2099-01-01"),
  routes: [...Dialect2026_07_28.routes, Whoami]
}

export const notesExtension = "com.example/notes"
export const notesTopic = "com.example/notes"

/** `notes/add`, described once: its `Mcp-Name` over HTTP is the note's title. */
export const NotesAdd = Method.request({
  name: "notes/add",
  extension: notesExtension,
  params: Schema.Struct({ title: Schema.String, text: Schema.String.check(Schema.isMaxLength(280)) }),
  result: Schema.Struct({}),
  nameParam: "title"
})

/**
 * `notes/add` publishes a note to the listen streams of the same principal that asked for
 * `notifications.notes`; over HTTP its `Mcp-Name` is the note's title.
 */
export const Notes = Extension.make({
  name: notesExtension,
  settings: { maxLength: 280 },
  make: (environment) =>
    Effect.succeed({
      routes: [
        Route.make({
          method: NotesAdd,
          run: (call) =>
            Effect.gen(function*() {
              const hub = environment.hub
              if (hub !== undefined) {
                yield* hub.publish(SubscriptionHub.topic({
                  topic: notesTopic,
                  method: "notifications/notes",
                  params: { title: call.params.title, text: call.params.text },
                  principal: call.principal.id
                }))
              }
              return Route.result({ stored: call.params.title })
            })
        })
      ],
      removed: ["notes/list"],
      listen: [{
        key: "notes",
        honour: (requested) =>
          requested === true
            ? Effect.succeed({ topics: [notesTopic], acknowledged: true })
            : Effect.succeed({ topics: [], acknowledged: false })
      }]
    })
})

const echo = Tool.make("echo", { input: Schema.Struct({ text: Schema.String }) }, ({ text }) => Effect.succeed(text))

export const seamServer = () => {
  const hub = SubscriptionHub.makeMemory()
  const server = McpServer.make({ name: "seams", version: "1.0.0" }).add(echo).extend(Notes)
  const layer = server.layer.pipe(
    Layer.provide(DialectRegistry.layer([Dialect2026_07_28, Dialect2099])),
    Layer.provide(Layer.succeed(SubscriptionHub.SubscriptionHub, hub))
  )
  return { hub, layer }
}
