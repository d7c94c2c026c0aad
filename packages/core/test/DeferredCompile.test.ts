/**
 * A `SchemaValidator` with a `precheck` lets the catalog defer compiling: building the catalog
 * runs only the precheck (its refusal refuses the server), and a tool's raw JSON Schemas compile at
 * the first call that needs them, once; a refusal then answers that call and every later one with
 * -32603, the reason in the server log. Without a precheck every schema compiles at build.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Logger } from "effect"
import { McpServer, Tool } from "@snodo/core"
import * as BasicJsonSchema from "@snodo/core/BasicJsonSchema"
import { SchemaValidator } from "@snodo/core/SchemaValidator"
import { McpTestClient } from "@snodo/testing"

/** The basic backend, counting its compiles, with a precheck that refuses a `"refuse-me"` title. */
const counting = (options: { readonly precheck: boolean }) => {
  const compiled: Array<unknown> = []
  const basic = BasicJsonSchema.make()
  const precheck = (schema: unknown) =>
    typeof schema === "object" && schema !== null && (schema as Record<string, unknown>)["title"] === "refuse-me"
      ? "refused by the precheck"
      : undefined
  const layer = Layer.succeed(SchemaValidator, SchemaValidator.of({
    name: "counting",
    compile: (schema) => Effect.suspend(() => {
      compiled.push(schema)
      return basic.compile(schema)
    }),
    ...(options.precheck ? { precheck } : {})
  }))
  return { compiled, layer }
}

const input = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] }
const output = { type: "object", properties: { twice: { type: "integer" } }, required: ["twice"] }

const double = Tool.make("double", { description: "Doubles n", inputSchema: input, outputSchema: output }, (args) =>
  Effect.succeed({ twice: Number(args["n"]) * 2 }))

/** Passes the precheck, but the basic backend refuses `anyOf`. */
const broken = Tool.make("broken", { description: "Never compiles", inputSchema: { type: "object", anyOf: [{ required: ["a"] }] } }, () =>
  Effect.succeed("unreachable"))

const serverWith = <R>(...tools: ReadonlyArray<Tool.Tool<R>>) => McpServer.make({ name: "deferred", version: "1.0.0" }).add(...tools)

const errorsLogged = (messages: Array<string>) =>
  Logger.layer([Logger.make((options) => {
    if (options.logLevel === "Error") messages.push(String(options.message))
  })])

describe("deferred compiling", () => {
  it.effect("compiles nothing while the catalog is built, a tool's schemas once at its first call", () =>
    Effect.gen(function*() {
      const validator = counting({ precheck: true })
      yield* Effect.gen(function*() {
        const client = yield* McpTestClient
        expect(validator.compiled).toEqual([])
        const results = yield* Effect.all([client.callTool("double", { n: 2 }), client.callTool("double", { n: 3 })], { concurrency: 2 })
        expect(results.map((result) => result.structuredContent)).toEqual([{ twice: 4 }, { twice: 6 }])
        const invalid = yield* client.callTool("double", { n: "x" })
        expect(invalid.isError).toBe(true)
        expect(invalid.content).toEqual([{ type: "text", text: "Invalid arguments: /n: must be of type integer" }])
        expect(validator.compiled).toEqual([input, output])
      }).pipe(Effect.provide(McpTestClient.layer.pipe(Layer.provide(serverWith(double).layer), Layer.provide(validator.layer))))
    }))

  it.effect("a schema that fails to compile at its first call answers -32603 every time and logs why", () =>
    Effect.gen(function*() {
      const validator = counting({ precheck: true })
      const logged: Array<string> = []
      yield* Effect.gen(function*() {
        const client = yield* McpTestClient
        const first = yield* Effect.flip(client.callTool("broken", { a: 1 }))
        const second = yield* Effect.flip(client.callTool("broken", { a: 1 }))
        expect([first.code, second.code]).toEqual([-32603, -32603])
        expect((yield* client.callTool("double", { n: 1 })).structuredContent).toEqual({ twice: 2 })
      }).pipe(
        Effect.provide(McpTestClient.layer.pipe(Layer.provide(serverWith(broken, double).layer), Layer.provide(validator.layer))),
        Effect.provide(errorsLogged(logged))
      )
      expect(validator.compiled.filter((schema) => schema === broken.input.schema)).toHaveLength(1)
      expect(logged.filter((message) => message.startsWith("Tool \"broken\": input schema does not compile:"))).toHaveLength(2)
    }))

  it.effect("what the precheck refuses refuses the server when it starts, naming the tool", () =>
    Effect.gen(function*() {
      const validator = counting({ precheck: true })
      const refused = Tool.make("refused", { description: "Refused", inputSchema: { type: "object", title: "refuse-me" } }, () => Effect.succeed("no"))
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(serverWith(double, refused).layer.pipe(Layer.provide(validator.layer)))))
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("Tool \"refused\": input schema does not compile: refused by the precheck")
      expect(validator.compiled).toEqual([])
    }))

  it.effect("without a precheck, every schema compiles when the catalog is built", () =>
    Effect.gen(function*() {
      const validator = counting({ precheck: false })
      yield* Effect.scoped(Layer.build(serverWith(double).layer.pipe(Layer.provide(validator.layer))))
      expect(validator.compiled).toEqual([input, output])
      const exit = yield* Effect.exit(Effect.scoped(Layer.build(serverWith(broken).layer.pipe(Layer.provide(validator.layer)))))
      expect(Exit.isFailure(exit) && String(exit.cause)).toContain("Tool \"broken\": input schema does not compile")
    }))
})

