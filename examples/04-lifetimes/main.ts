/**
 * Request lifetimes in handlers: progress, cancellation and listen streams.
 *
 *   npx node examples/04-lifetimes/main.ts            # over stdio
 *   npx node examples/04-lifetimes/main.ts --http     # over Streamable HTTP on 127.0.0.1:3004/mcp
 *
 * - `index` reports progress while it works and stops cleanly when cancelled (its finalizer runs).
 * - `set_setting` changes `config://settings` and tells every listen stream subscribed to that URI.
 * - `add_tool_alias` pretends the tool list changed and tells streams listening for `toolsListChanged`.
 *
 * Try it over stdio: open a stream with
 *   {"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["config://settings"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
 * then call `set_setting`; end the stream with {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L"}}.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { Content, McpServer, Progress, Resource, SubscriptionHub, Tool } from "@snodo/core"
import * as StdioTransport from "@snodo/core/StdioTransport"
import * as NodeServe from "@snodo/http/NodeServe"
import { Effect, Layer, Ref, Schema } from "effect"

/** Long work: progress per file; interruption (cancel, disconnect, deadline) runs the finalizer. */
const index = Tool.make("index", {
  description: "Indexes `files` files, reporting progress for each",
  input: Schema.Struct({ files: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 })) }),
  output: Schema.Struct({ indexed: Schema.Int })
}, ({ files }) =>
  Effect.gen(function*() {
    for (let file = 1; file <= files; file++) {
      yield* Effect.sleep("20 millis") // the work; an interruption lands here
      // A refused report (a slow client, the update limit) must not fail the work.
      yield* Progress.report(file, { total: files, message: `file ${file} of ${files}` }).pipe(Effect.ignore)
    }
    return { indexed: files }
  }).pipe(
    Effect.onInterrupt(() => Effect.logInfo("index cancelled: partial index discarded"))
  ))

/** Settings behind a resource; every change is published to the streams subscribed to its URI. */
const makeSettings = Effect.gen(function*() {
  const settings = yield* Ref.make<Record<string, string>>({ theme: "dark" })
  const resource = Resource.make({ uri: "config://settings", name: "settings", mimeType: "application/json" }, () =>
    Ref.get(settings).pipe(Effect.map((value) => Content.textContents("config://settings", JSON.stringify(value), "application/json"))))
  const set = Tool.make("set_setting", {
    description: "Sets one setting",
    input: Schema.Struct({ key: Schema.String, value: Schema.String })
  }, ({ key, value }) =>
    Ref.update(settings, (current) => ({ ...current, [key]: value })).pipe(
      Effect.andThen(SubscriptionHub.publish(SubscriptionHub.resourceUpdated("config://settings"))),
      Effect.as(`${key} = ${value}`)
    ))
  return { resource, set }
})

const addToolAlias = Tool.make("add_tool_alias", {
  description: "Announces a change of the tool list to listening clients",
  input: Schema.Struct({})
}, () => SubscriptionHub.publish(SubscriptionHub.toolsListChanged).pipe(Effect.as("announced")))

const ServerLayer = Layer.unwrap(Effect.map(makeSettings, ({ resource, set }) =>
  McpServer.make({
    name: "lifetimes",
    version: "1.0.0",
    // Per listen stream: 32 queued changes, and the stream is closed if a client falls further behind.
    subscriptions: { queue: 32, overflow: "close" }
  }).add(index, set, addToolAlias, resource).layer
)).pipe(
  // The hub is what turns on `subscriptions/listen` and `listChanged`; handlers publish through it.
  Layer.provide(SubscriptionHub.layerMemory())
)

if (process.argv.includes("--http")) {
  NodeServe.serve({ port: 3004, maxSubscriptions: 1000 }).pipe(Effect.provide(ServerLayer), NodeRuntime.runMain)
} else {
  StdioTransport.run({ maxSubscriptions: 8 }).pipe(
    Effect.provide(ServerLayer),
    Effect.provide(NodeStdio.layer),
    StdioTransport.runMain(NodeRuntime.runMain)
  )
}
