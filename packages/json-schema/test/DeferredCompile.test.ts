/**
 * With this backend a server starts without compiling its raw JSON Schemas: the catalog runs the
 * validator's precheck (plain JSON within the size and depth bounds, a supported `$schema`) and each
 * schema compiles at the first call that needs it. `eagerCompile` compiles them all at start.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { McpServer, Tool } from "@snodo/core"
import { JsonSchemaValidator } from "@snodo/json-schema"
import { McpTestClient } from "@snodo/testing"

const contact = Tool.make("contact", {
  description: "Needs a name or an email",
  inputSchema: {
    type: "object",
    properties: { name: { type: "string" }, email: { type: "string" } },
    anyOf: [{ required: ["name"] }, { required: ["email"] }],
    unevaluatedProperties: false
  }
}, (args) => Effect.succeed(`Recorded ${JSON.stringify(args)}`))

/** Plain JSON within the bounds, so only hyperjump's meta-validation refuses it. */
const misspelled = Tool.make("misspelled", {
  description: "Its schema names a type that does not exist",
  inputSchema: { type: "object", properties: { a: { type: "strnig" } } }
}, () => Effect.succeed("unreachable"))

const draft07 = Tool.make("draft07", {
  description: "Declares another dialect",
  inputSchema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object" }
}, () => Effect.succeed("unreachable"))

const serverWith = <R>(...tools: ReadonlyArray<Tool.Tool<R>>) => McpServer.make({ name: "deferred", version: "1.0.0" }).add(...tools)

const build = (server: McpServer.McpServer<never>, options?: JsonSchemaValidator.Options) =>
  Effect.exit(Effect.scoped(Layer.build(server.layer.pipe(Layer.provide(JsonSchemaValidator.layer(options))))))

const failureOf = (exit: Exit.Exit<unknown, unknown>): string => Exit.isFailure(exit) ? String(exit.cause) : "built"

describe("JsonSchemaValidator with the catalog", () => {
  it.effect("validates at the first call, with the same issues as a schema compiled at start", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const refused = yield* client.callTool("contact", { phone: "1" })
      expect(refused.isError).toBe(true)
      expect(refused.content).toEqual([{ type: "text", text: expect.stringMatching(/^Invalid arguments: /) }])
      const accepted = yield* client.callTool("contact", { name: "Ada" })
      expect(accepted.content).toEqual([{ type: "text", text: "Recorded {\"name\":\"Ada\"}" }])
    }).pipe(Effect.provide(McpTestClient.layer.pipe(Layer.provide(serverWith(contact).layer), Layer.provide(JsonSchemaValidator.layer())))))

  it.effect("a schema hyperjump refuses starts, and its calls answer -32603", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const error = yield* Effect.flip(client.callTool("misspelled", { a: "x" }))
      expect(error.code).toBe(-32603)
      expect((yield* client.callTool("contact", { email: "a@b" })).isError).toBeUndefined()
    }).pipe(Effect.provide(McpTestClient.layer.pipe(Layer.provide(serverWith(misspelled, contact).layer), Layer.provide(JsonSchemaValidator.layer())))))

  it.effect("eagerCompile refuses that schema when the server starts", () =>
    Effect.gen(function*() {
      expect(failureOf(yield* build(serverWith(misspelled), { eagerCompile: true }))).toContain("Tool \"misspelled\": input schema does not compile")
      expect(failureOf(yield* build(serverWith(contact), { eagerCompile: true }))).toBe("built")
    }))

  it.effect("the precheck refuses at start an unsupported $schema and a schema over the bounds", () =>
    Effect.gen(function*() {
      expect(failureOf(yield* build(serverWith(draft07)))).toContain(
        "Tool \"draft07\": input schema does not compile: the dialect \"http://json-schema.org/draft-07/schema#\" is not supported"
      )
      expect(failureOf(yield* build(serverWith(contact), { maxSchemaNodes: 5 }))).toContain(
        "Tool \"contact\": input schema does not compile: the schema exceeds 5 JSON values (maxSchemaNodes)"
      )
      expect(failureOf(yield* build(serverWith(contact)))).toBe("built")
    }))

  it.effect("a $schema naming a catalog document passes the precheck (the compile decides)", () =>
    Effect.gen(function*() {
      const validator = yield* JsonSchemaValidator.make({ catalog: { "https://example.com/money.json": { type: "object" } } })
      expect(validator.precheck?.({ $schema: "https://example.com/money.json#" })).toBeUndefined()
      expect(validator.precheck?.({ $schema: "https://example.com/other.json" })).toContain("is not supported")
      expect((yield* JsonSchemaValidator.make({ eagerCompile: true })).precheck).toBeUndefined()
    }))
})
