/**
 * A store that cannot answer for a while (a database restarting, a failover) is not a fence: a
 * running task whose heartbeat and read fail keeps running and completes once, instead of being
 * abandoned and run again from the top after its lease runs out.
 */
import { describe, expect, it } from "@effect/vitest"
import { McpServer, SubscriptionHub, Tool } from "@snodo/core"
import * as Tasks from "@snodo/tasks"
import { TaskStore, TaskStoreError } from "@snodo/tasks/TaskStore"
import { McpTestClient } from "@snodo/testing"
import { Effect, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"

const withTasks = { capabilities: { extensions: { [Tasks.name]: {} } } }

let runs = 0
const slow = Tool.make("slow", { input: Schema.Struct({}) }, () =>
  Effect.sync(() => void runs++).pipe(Effect.andThen(Effect.sleep("60 seconds")), Effect.as("done")))

let down = false
const unavailable = Effect.fail(new TaskStoreError({ message: "the database is restarting" }))

/** The memory store, whose heartbeats and reads fail while `down`. */
const FlakyStore = Layer.effect(
  TaskStore,
  Effect.map(Effect.service(TaskStore), (store) =>
    TaskStore.of({
      ...store,
      heartbeat: (taskId, generation, leaseMs) => down ? unavailable : store.heartbeat(taskId, generation, leaseMs),
      get: (taskId) => down ? unavailable : store.get(taskId)
    }))
).pipe(Layer.provide(Tasks.TaskStore.layerMemory()))

const Server = McpServer.make({ name: "outage-test", version: "1" })
  .add(slow)
  .extend(Tasks.extension({ tools: { slow: Tasks.required() } }))
  .layer.pipe(Layer.provideMerge(FlakyStore), Layer.provideMerge(SubscriptionHub.layerMemory()))

const settle = Effect.yieldNow.pipe(Effect.repeat({ times: 20 }))

describe("runner: a store outage during a run", () => {
  it.effect("the run goes on through failed heartbeats and completes once", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const created = yield* client.callTool("slow", {}, withTasks)
      const taskId = String(created["taskId"])
      yield* settle
      expect(runs).toBe(1)
      // Down across two heartbeats (every 10 s): neither the beat nor the read answers.
      down = true
      yield* TestClock.adjust("25 seconds")
      yield* settle
      down = false
      // Past the lease (30 s) and the run's end (60 s): the same run finishes.
      yield* TestClock.adjust("40 seconds")
      yield* settle
      const task = yield* client.request("tasks/get", { taskId }, withTasks)
      expect(task).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "done" }] } })
      expect(runs).toBe(1)
    }).pipe(Effect.provide(McpTestClient.layer.pipe(Layer.provideMerge(Server)))))
})
