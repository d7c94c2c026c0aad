/** Policies named by tool definitions (`Tasks.policies`): the record the extension takes, and a task through it. */
import { describe, expect, it } from "@effect/vitest"
import { McpServer, SubscriptionHub, Tool } from "@snodo/core"
import * as Tasks from "@snodo/tasks"
import { McpTestClient } from "@snodo/testing"
import { Effect, Layer, Schema } from "effect"

const report = Tool.make("report", { input: Schema.Struct({}) }, () => Effect.succeed("done"))
const ping = Tool.make("ping", { input: Schema.Struct({}) }, () => Effect.succeed("pong"))

describe("Tasks.policies", () => {
  it("names each tool by its definition", () => {
    const policies = Tasks.policies([report, Tasks.required()], [ping, Tasks.optional()])
    expect(Object.keys(policies).toSorted()).toEqual(["ping", "report"])
    expect(policies["report"]).toMatchObject({ _tag: "Required" })
  })

  it.effect("a server built with them makes tasks of the tools named", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const created = yield* client.callTool("report", {}, { capabilities: { extensions: { [Tasks.name]: {} } } })
      expect(created.resultType).toBe("task")
    }).pipe(Effect.provide(McpTestClient.layer.pipe(Layer.provide(
      McpServer.make({ name: "policies", version: "1" })
        .add(report, ping)
        .extend(Tasks.extension({ tools: Tasks.policies([report, Tasks.required()]) }))
        .layer.pipe(Layer.provide(Tasks.TaskStore.layerMemory()), Layer.provide(SubscriptionHub.layerMemory()))
    )))))
})
