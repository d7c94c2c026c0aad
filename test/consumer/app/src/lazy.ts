/**
 * The parts of `@snodo/core` a server loads at their first use (each from a file of its own in
 * the package's `dist/`), run from the installed tarballs: the default JSON Schema backend (no
 * validator provided, a raw JSON Schema tool), what observes requests (an event hub), a listen
 * stream's machinery (a subscription hub) and the 2025-11-25 era's input requests (that era
 * enabled). A file missing from the tarball fails the Layer's build or the call. Prints one JSON
 * line on stdout.
 */
import { McpEvents, McpServer, SubscriptionHub, Tool } from "@snodo/core"
import { McpTestClient } from "@snodo/testing"
import { Effect, Layer, PubSub } from "effect"
import { add } from "./server.js"

/** A raw JSON Schema input within what the basic backend checks (no `$ref`: that needs `@snodo/json-schema`). */
const shout = Tool.make("shout", {
  description: "Upper-cases a word",
  inputSchema: { type: "object", properties: { word: { type: "string", minLength: 1 } }, required: ["word"] }
}, (args) => Effect.succeed(String(args["word"]).toUpperCase()))

const Lazy = McpServer.make({ name: "lazy", version: "1.0.0", dialects: ["2026-07-28", "2025-11-25"] }).add(add, shout)

const program = Effect.gen(function*() {
  const events = yield* McpEvents.McpEvents
  const seen = yield* events.subscribe
  const client = yield* McpTestClient
  const discovered = yield* client.discover()
  const refused = yield* client.callTool("shout", { word: "" })
  const shouted = yield* client.callTool("shout", { word: "hi" })
  const published = yield* PubSub.takeAll(seen)
  return {
    versions: discovered.supportedVersions,
    listChanged: discovered.capabilities.tools?.listChanged === true,
    refused: refused.isError === true,
    shouted: shouted.content,
    stops: published.filter((event) => event._tag === "RequestStop").length
  }
})

program.pipe(
  Effect.scoped,
  Effect.provide(McpTestClient.layer.pipe(
    Layer.provideMerge(Lazy.layer),
    Layer.provideMerge(Layer.mergeAll(McpEvents.layer(), SubscriptionHub.layerMemory()))
  )),
  Effect.runPromise
).then((result) => process.stdout.write(`${JSON.stringify(result)}\n`), (error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exitCode = 1
})
