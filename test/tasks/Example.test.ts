/** examples/06-tasks: a report that becomes a task, asks its question while running, and completes. */
import { describe, expect, it } from "@effect/vitest"
import * as Tasks from "@snodo/tasks"
import { McpTestClient } from "@snodo/testing"
import { Effect, Layer, Schedule } from "effect"
import { Runtime } from "../../examples/06-tasks/server.ts"

const capabilities = { elicitation: {}, extensions: { [Tasks.name]: {} } }

describe("examples/06-tasks", () => {
  it.live("a long report is a task that asks for its format, then completes", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      // a short report is not a task: MRTR asks the format in the request itself
      expect((yield* client.callTool("report", { months: 1 }, { capabilities })).resultType).toBe("input_required")
      const created = yield* client.callTool("report", { months: 3 }, { capabilities })
      expect(created.resultType).toBe("task")
      const taskId = String(created["taskId"])
      const get = client.request("tasks/get", { taskId }, { capabilities })
      const waiting = yield* get.pipe(Effect.repeat({ until: (task) => task["status"] === "input_required", schedule: Schedule.spaced("100 millis") }))
      expect(Object.keys(waiting["inputRequests"] as object)).toEqual(["format"])
      yield* client.request("tasks/update", { taskId, inputResponses: { format: { action: "accept", content: { format: "csv" } } } }, { capabilities })
      const done = yield* get.pipe(Effect.repeat({ until: (task) => task["status"] === "completed", schedule: Schedule.spaced("100 millis") }))
      expect(done["result"]).toMatchObject({ resultType: "complete", structuredContent: { months: 3, format: "csv", rows: 93 } })
    }).pipe(Effect.provide(McpTestClient.layer.pipe(Layer.provide(Runtime)))))
})
