/**
 * The runner and the extension in process, on the test clock: exact retry delays, recovery of a
 * task whose worker died, cancellation by interruption, the maximum run time, time to live and
 * reaping, capacity and input limits, the policies and `Tasks.detach`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Input, McpServer, SubscriptionHub, Tool } from "@snodo/core"
import * as Tasks from "@snodo/tasks"
import { TaskStore } from "@snodo/tasks/TaskStore"
import { McpTestClient } from "@snodo/testing"
import { Effect, Layer, Queue, Schema } from "effect"
import { TestClock } from "effect/testing"

const tasks = { extensions: { [Tasks.name]: {} } }
const withTasks = { capabilities: tasks }

const attempts = new Map<string, number>()

const flaky = Tool.make("flaky", {
  description: "Dies on its first `failures` attempts, then answers",
  input: Schema.Struct({ key: Schema.String, failures: Schema.Int })
}, ({ failures, key }) =>
  Effect.suspend(() => {
    const attempt = (attempts.get(key) ?? 0) + 1
    attempts.set(key, attempt)
    return attempt <= failures ? Effect.die(new Error(`attempt ${attempt} dies`)) : Effect.succeed(`ok after ${attempt}`)
  }))

let interrupted = 0
const forever = Tool.make("forever", { input: Schema.Struct({}) }, () =>
  Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => void interrupted++)), Effect.as("never")))

const noting = Tool.make("noting", { input: Schema.Struct({}) }, () =>
  Tasks.status("warming up").pipe(Effect.andThen(Effect.never), Effect.as("never")))

const quick = Tool.make("quick", { input: Schema.Struct({ text: Schema.String }) }, ({ text }) =>
  Effect.sleep("10 millis").pipe(Effect.as(`quick ${text}`)))

const NameForm = Input.form({ message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } })

const greeter = Tool.make("greeter", { input: Schema.Struct({}) }, () =>
  Effect.gen(function*() {
    const answer = yield* Input.elicit("who", NameForm)
    const where = yield* Tasks.currentTaskId
    yield* Tasks.detach
    return `hello ${answer.action === "accept" ? answer.content.name : "?"} ${where === undefined ? "in the request" : "in a task"}`
  }))

const makeLayer = (options: Partial<Tasks.Options> = {}) =>
  McpServer.make({ name: "runner-test", version: "1" })
    .add(flaky, forever, noting, quick, greeter)
    .extend(Tasks.extension({
      tools: {
        flaky: Tasks.required(),
        forever: Tasks.required(),
        noting: Tasks.required(),
        quick: Tasks.optional({ when: (args) => args["text"] !== "sync" }),
        greeter: Tasks.optional({ detach: true })
      },
      ...options
    })).layer.pipe(
      Layer.provideMerge(Tasks.TaskStore.layerMemory()),
      Layer.provideMerge(SubscriptionHub.layerMemory())
    )

const provide = (options?: Partial<Tasks.Options>) =>
  Effect.provide(Layer.merge(McpTestClient.layer, Layer.empty).pipe(Layer.provideMerge(makeLayer(options))))

const create = (name: string, args: Record<string, unknown>) =>
  McpTestClient.use((client) => client.callTool(name, args, withTasks)).pipe(
    Effect.map((result) => {
      expect(result.resultType).toBe("task")
      return String(result["taskId"])
    })
  )

const get = (taskId: string) => McpTestClient.use((client) => client.request("tasks/get", { taskId }, withTasks))

/** Lets the runner's fibers run (the test clock does not move by itself). */
const settle = Effect.yieldNow.pipe(Effect.repeat({ times: 20 }))

const stored = (taskId: string) => TaskStore.use((store) => store.get(taskId))

describe("the Tasks runner", () => {
  it.effect("retries a run that died after exactly the configured delays, then completes", () =>
    Effect.gen(function*() {
      const taskId = yield* create("flaky", { key: "retry-1", failures: 2 })
      yield* settle
      const first = yield* stored(taskId)
      expect(first).toMatchObject({ status: "working", attempt: 1, leaseOwner: undefined })
      const firstDelay = first!.nextRunAt - first!.lastUpdatedAt
      expect(firstDelay).toBe(1_000)
      yield* TestClock.adjust("999 millis")
      yield* settle
      expect((yield* stored(taskId))?.attempt).toBe(1)
      yield* TestClock.adjust("2 seconds")
      yield* settle
      const second = yield* stored(taskId)
      expect(second).toMatchObject({ status: "working", attempt: 2 })
      expect(second!.nextRunAt - second!.lastUpdatedAt).toBe(5_000)
      yield* TestClock.adjust("6 seconds")
      yield* settle
      const done = yield* get(taskId)
      expect(done).toMatchObject({ status: "completed", result: { resultType: "complete", content: [{ type: "text", text: "ok after 3" }] } })
    }).pipe(provide()))

  it.effect("a run that dies after every retry fails the task with -32603", () =>
    Effect.gen(function*() {
      const taskId = yield* create("flaky", { key: "retry-2", failures: 10 })
      for (let step = 0; step < 5; step++) {
        yield* settle
        yield* TestClock.adjust("31 seconds")
      }
      yield* settle
      expect(yield* get(taskId)).toMatchObject({ status: "failed", error: { code: -32603, message: "Internal error" } })
      expect((yield* stored(taskId))?.attempt).toBe(4)
    }).pipe(provide()))

  it.effect("a task whose worker died is recovered once its lease runs out, with a new generation", () =>
    Effect.gen(function*() {
      const store = yield* TaskStore
      const principal = "anonymous"
      const orphan = yield* store.create({
        taskId: Tasks.Task.makeId(),
        work: {
          tool: "quick",
          arguments: { text: "recovered" },
          principal: { id: principal, claims: {} },
          protocolVersion: "2026-07-28",
          clientCapabilities: tasks,
          clientInfo: undefined
        },
        ttlMs: 3_600_000,
        pollIntervalMs: 250,
        answers: {}
      }, { maxStored: 100, maxActivePerPrincipal: 100 }, { owner: "a-dead-instance", leaseMs: 30_000 })
      yield* TestClock.adjust("29 seconds")
      yield* settle
      expect((yield* stored(orphan.taskId))?.status).toBe("working")
      yield* TestClock.adjust("2 seconds")
      yield* settle
      yield* TestClock.adjust("1 second")
      yield* settle
      const recovered = yield* stored(orphan.taskId)
      expect(recovered).toMatchObject({ status: "completed", generation: 2, attempt: 2 })
      expect(recovered?.result).toMatchObject({ content: [{ type: "text", text: "quick recovered" }] })
    }).pipe(provide()))

  it.effect("tasks/cancel interrupts the worker at once: its finalizer runs and the task is cancelled for good", () =>
    Effect.gen(function*() {
      const before = interrupted
      const taskId = yield* create("forever", {})
      yield* settle
      expect(yield* get(taskId)).toMatchObject({ status: "working" })
      const ack = yield* McpTestClient.use((client) => client.request("tasks/cancel", { taskId }, withTasks))
      expect(ack).toEqual({ resultType: "complete", _meta: expect.any(Object) })
      yield* settle
      expect(interrupted).toBe(before + 1)
      expect(yield* get(taskId)).toMatchObject({ status: "cancelled" })
      expect(yield* McpTestClient.use((client) => client.request("tasks/cancel", { taskId }, withTasks))).toMatchObject({ resultType: "complete" })
      expect(yield* get(taskId)).toMatchObject({ status: "cancelled" })
    }).pipe(provide()))

  it.effect("Tasks.status sets the statusMessage clients see", () =>
    Effect.gen(function*() {
      const taskId = yield* create("noting", {})
      yield* settle
      expect(yield* get(taskId)).toMatchObject({ status: "working", statusMessage: "warming up" })
      // outside a task (here: a synchronous call of a tool that is not named), it does nothing
      expect(yield* Tasks.status("ignored")).toBeUndefined()
    }).pipe(provide()))

  it.effect("a run longer than the maximum fails with -32603", () =>
    Effect.gen(function*() {
      const taskId = yield* create("forever", {})
      yield* settle
      yield* TestClock.adjust("2 seconds")
      yield* settle
      expect(yield* get(taskId)).toMatchObject({ status: "failed", error: { code: -32603, message: expect.stringContaining("maximum run time") } })
    }).pipe(provide({ runner: { maxRunMs: 1_500 } })))

  it.effect("after its time to live a task is -32602 for its owner, then reaped", () =>
    Effect.gen(function*() {
      const taskId = yield* create("quick", { text: "short-lived" })
      yield* settle
      yield* TestClock.adjust("100 millis")
      yield* settle
      expect(yield* get(taskId)).toMatchObject({ status: "completed", ttlMs: 5_000 })
      yield* TestClock.adjust("5 seconds")
      const expired = yield* Effect.flip(get(taskId))
      expect(expired).toMatchObject({ code: -32602, message: "Failed to retrieve task: Task has expired" })
      expect(yield* stored(taskId)).toBeDefined()
      yield* TestClock.adjust("61 seconds")
      yield* settle
      expect(yield* stored(taskId)).toBeUndefined()
      expect(yield* Effect.flip(get(taskId))).toMatchObject({ code: -32602, message: "Failed to retrieve task: Task not found" })
    }).pipe(provide({ ttlMs: 5_000 })))

  it.effect("capacity and input limits are refused with the limit in data", () =>
    Effect.gen(function*() {
      yield* create("forever", {})
      const busy = yield* Effect.flip(McpTestClient.use((client) => client.callTool("forever", {}, withTasks)))
      expect(busy).toMatchObject({ code: -32603, data: { retryable: true, limit: 1 } })
      const big = yield* Effect.flip(McpTestClient.use((client) => client.callTool("quick", { text: "x".repeat(2_048) }, withTasks)))
      expect(big).toMatchObject({ code: -32602, data: { limit: 1_024 } })
    }).pipe(provide({ maxActivePerPrincipal: 1, maxInputBytes: 1_024 })))

  // synchronous calls sleep for real here: live clock
  it.live("optional: no task without the extension or when `when` says no; required: -32021 without it", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      expect((yield* client.callTool("quick", { text: "plain" })).resultType).toBe("complete")
      expect((yield* client.callTool("quick", { text: "sync" }, withTasks)).resultType).toBe("complete")
      const refused = yield* Effect.flip(client.callTool("forever", {}))
      expect(refused).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [Tasks.name]: {} } } } })
      // a legacy `params.task` changes nothing
      const legacy = yield* client.request("tools/call", { name: "quick", arguments: { text: "plain" }, task: { ttl: 1 } })
      expect(legacy.resultType).toBe("complete")
    }).pipe(provide()))

  it.effect("detach: MRTR before the task, the answer carried into it; without the extension, all in the request", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const capabilities = { elicitation: {}, ...tasks }
      const rounds = yield* client.rounds("tools/call", { name: "greeter", arguments: {} }, () => ({
        who: { action: "accept", content: { name: "Ada" } }
      }), { capabilities })
      expect(rounds.interim).toHaveLength(1)
      expect(rounds.result.resultType).toBe("task")
      expect(rounds.result).not.toHaveProperty("requestState")
      const taskId = String(rounds.result["taskId"])
      yield* settle
      expect(yield* get(taskId)).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "hello Ada in a task" }] } })
      const sync = yield* client.rounds("tools/call", { name: "greeter", arguments: {} }, () => ({
        who: { action: "accept", content: { name: "Bo" } }
      }), { capabilities: { elicitation: {} } })
      expect(sync.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "hello Bo in the request" }] })
    }).pipe(provide()))

  it.effect("notifications/tasks on a listen stream: the principal's own tasks, as tasks/get shows them", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const taskId = yield* create("forever", {})
      yield* settle
      const stream = yield* Effect.forkChild(client.request("subscriptions/listen", { notifications: { taskIds: [taskId, "someone-elses"] } }, withTasks))
      yield* settle
      const ack = yield* Queue.take(client.notifications)
      expect(ack).toMatchObject({ method: "notifications/subscriptions/acknowledged", params: { notifications: { taskIds: [taskId] } } })
      yield* client.request("tasks/cancel", { taskId }, withTasks)
      yield* settle
      const change = yield* Queue.take(client.notifications)
      expect(change).toMatchObject({ method: "notifications/tasks", params: { taskId, status: "cancelled" } })
      void stream
      const refused = yield* Effect.flip(client.request("subscriptions/listen", { notifications: { taskIds: [taskId] } }))
      expect(refused).toMatchObject({ code: -32021 })
    }).pipe(provide()))
})
