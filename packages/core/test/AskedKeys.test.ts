/**
 * A key names one question for the request's whole life: asked again with the same request it is
 * a re-read, with another request a defect (here through an MRTR round, and alone).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { Input, McpServer, Tool } from "@snodo/core"
import { AskedKeys } from "@snodo/core/extension"
import { McpTestClient } from "@snodo/testing"

const form = (message: string) => Input.form({ message, requestedSchema: { type: "object", properties: {} } })

const twice = Tool.make("twice", { input: Schema.Struct({}) }, () =>
  Effect.andThen(Input.all([Input.elicit("k", form("First?")), Input.elicit("k", form("Second?"))]), Effect.succeed("never")))
const Server = McpServer.make({ name: "asked", version: "1.0.0" }).add(twice)

describe("AskedKeys", () => {
  it("accepts a key asked again with the same request, refuses it with another", () => {
    const asked = AskedKeys.make()
    expect(asked.note(Input.elicit("k", form("Same?")))).toBeUndefined()
    expect(asked.note(Input.elicit("k", form("Same?")))).toBeUndefined()
    expect(asked.note(Input.elicit("other", form("Else?")))).toBeUndefined()
    expect(asked.note(Input.elicit("k", form("Changed?")))?.message).toBe('Input key "k" was asked with two different requests')
  })

  it.effect("a round whose handler asks one key two ways answers the generic -32603", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const error = yield* Effect.flip(client.callTool("twice", {}, { capabilities: { elicitation: {} } }))
      expect(error.code).toBe(-32603)
    }).pipe(
      Effect.provide(McpTestClient.layer.pipe(Layer.provide(Server.layer)))
    ))
})
