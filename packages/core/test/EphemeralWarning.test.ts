/**
 * A server without a configured Keyring warns once, when an MRTR round first seals state with its
 * ephemeral key; a server whose handlers never ask for input never sees the warning.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, Schema } from "effect"
import { Input, McpServer, Tool } from "@snodo/core"
import { McpTestClient } from "@snodo/testing"

const NameForm = Input.form({
  message: "Name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
})

const plain = Tool.make("plain", { input: Schema.Struct({}) }, () => Effect.succeed("done"))
const asks = Tool.make("asks", { input: Schema.Struct({}) }, () => Effect.map(Input.elicit("name", NameForm), (answer) => answer.action))

const Server = McpServer.make({ name: "warning", version: "1.0.0" }).add(plain, asks)

const warningsOf = (run: (client: McpTestClient["Service"]) => Effect.Effect<void, unknown>) =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const capture = Logger.layer([Logger.make((options) => {
      if (options.logLevel === "Warn") warnings.push(String(options.message))
    })])
    yield* Effect.gen(function*() {
      yield* run(yield* McpTestClient)
    }).pipe(Effect.provide(McpTestClient.layer.pipe(Layer.provide(Server.layer))), Effect.provide(capture))
    return warnings
  })

const capabilities = { elicitation: {} }

describe("the ephemeral keyring warning", () => {
  it.effect("is not logged while no round seals state", () =>
    Effect.gen(function*() {
      const warnings = yield* warningsOf((client) => Effect.asVoid(Effect.all([client.callTool("plain", {}), client.callTool("plain", {})])))
      expect(warnings).toEqual([])
    }))

  it.effect("is logged once, at the first round that seals state", () =>
    Effect.gen(function*() {
      const warnings = yield* warningsOf((client) =>
        Effect.gen(function*() {
          yield* client.callTool("plain", {})
          for (let i = 0; i < 3; i++) expect((yield* client.callTool("asks", {}, { capabilities })).resultType).toBe("input_required")
        })
      )
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain("ephemeral key")
    }))
})
