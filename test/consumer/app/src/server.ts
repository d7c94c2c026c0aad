/**
 * The consumer app's server: one component of each kind, written as an application outside the
 * snodo repository writes it (package imports only, `.js` relative imports, strict settings).
 */
import { Content, McpServer, Prompt, Resource, Tool } from "@snodo/core"
import { JsonSchemaValidator } from "@snodo/json-schema"
import { Effect, Layer, Schema } from "effect"

export const add = Tool.make("add", {
  description: "Add two numbers",
  input: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
  output: Schema.Struct({ sum: Schema.Finite })
}, ({ a, b }) => Effect.succeed({ sum: a + b }))

/** A raw JSON Schema input, validated by `@snodo/json-schema` (a `$ref` and `minLength`). */
export const shout = Tool.make("shout", {
  description: "Upper-cases a word",
  inputSchema: {
    type: "object",
    $defs: { word: { type: "string", minLength: 1 } },
    properties: { word: { $ref: "#/$defs/word" } },
    required: ["word"],
    additionalProperties: false
  }
}, (args) => Effect.succeed(String(args["word"]).toUpperCase()))

export const readme = Resource.make({
  uri: "app://readme",
  name: "readme",
  description: "What this app is",
  mimeType: "text/plain"
}, () => Effect.succeed(Content.textContents("app://readme", "An app built from the snodo tarballs.", "text/plain")))

export const greet = Prompt.make("greet", {
  description: "Greets someone",
  arguments: { name: { description: "Who to greet", required: true } }
}, ({ name }) => Effect.succeed([Prompt.user(`Hello, ${name}!`)]))

export const Server = McpServer.make({ name: "consumer-app", version: "1.0.0" }).add(add, shout, readme, greet)

export const ServerLayer = Server.layer.pipe(Layer.provide(JsonSchemaValidator.layer()))
