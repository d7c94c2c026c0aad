/**
 * Tasks on the memory store, in process: how many tasks per second are created and run to
 * completion, beside plain `tools/call`s of the same tool through the same pipeline.
 *
 *   npx node bench/tasks.ts [tasks]   # prints one JSON line
 *
 * A task here goes through everything a real one does but the transport: the `tools/call` is
 * decoded, admitted and routed, the task is stored and leased, the runner's worker runs the tool's
 * handler (with the task's request services and input session), the result is stored and published
 * as `notifications/tasks`. Creation runs 32 at a time (the runner's default number of running tasks).
 * Completion is observed on the hub, as a listen stream would see it.
 */
import { McpServer, SubscriptionHub, Tool } from "@snodo/core"
import * as Envelope from "@snodo/protocol/jsonrpc/Envelope"
import { anonymous } from "@snodo/core/Principal"
import { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import * as Tasks from "@snodo/tasks"
import { Deferred, Effect, Layer, Schema } from "effect"

const count = Number(process.argv[2] ?? 5_000)
const plainCalls = count * 4

const work = (name: string) => Tool.make(name, { input: Schema.Struct({ n: Schema.Int }) }, ({ n }) => Effect.succeed({ n }))

const hub = SubscriptionHub.makeMemory()
const Runtime = McpServer.make({ name: "bench-tasks", version: "1" })
  .add(work("as_task"), work("plain"))
  .extend(Tasks.extension({ tools: { as_task: Tasks.required() }, maxActivePerPrincipal: count, maxStored: count * 2, maxStoredPerPrincipal: count * 2 }))
  .layer.pipe(Layer.provide(Tasks.TaskStore.layerMemory()), Layer.provide(Layer.succeed(SubscriptionHub.SubscriptionHub, hub)))

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { extensions: { [Tasks.name]: {} } }
}
const callOf = (id: number, name: string): Envelope.Request => {
  const decoded = Envelope.decode(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: { n: id }, _meta: meta } }))
  if (decoded._tag !== "Request") throw new Error(decoded._tag)
  return decoded
}

/** The topics of every task (a task may complete before its creation call has returned). */
class EveryTask extends Set<string> {
  override has(topic: string): boolean {
    return topic.startsWith(Tasks.topicOf(""))
  }
}

const program = Effect.gen(function*() {
  const runtime = yield* ServerRuntime
  const context = { transport: "memory" as const, sink: undefined }
  // completions, as a listen stream following every task would see them
  const topics = new EveryTask()
  let completed = 0
  const all = yield* Deferred.make<void>()
  yield* hub.subscribe({
    filter: { toolsListChanged: false, promptsListChanged: false, resourcesListChanged: false, resourceSubscriptions: new Set(), topics },
    principal: anonymous,
    deliver: (change) => {
      if (change._tag === "Topic" && change.params["status"] === "completed" && ++completed === count) Deferred.doneUnsafe(all, Effect.void)
    }
  })
  // warm-up of both paths
  for (let i = 0; i < 2_000; i++) yield* runtime.handle(callOf(i, "plain"), context)

  const plainStarted = performance.now()
  for (let i = 0; i < plainCalls; i++) {
    const outcome = yield* runtime.handle(callOf(i, "plain"), context)
    if (outcome._tag !== "Result") return yield* Effect.die(new Error(outcome.frame))
  }
  const plainSeconds = (performance.now() - plainStarted) / 1000

  const tasksStarted = performance.now()
  yield* Effect.forEach(Array.from({ length: count }, (_, i) => i), (i) =>
    Effect.flatMap(runtime.handle(callOf(i, "as_task"), context), (outcome) => {
      return outcome._tag === "Result" ? Effect.void : Effect.die(new Error(outcome.frame))
    }), { concurrency: 32, discard: true })
  const createdSeconds = (performance.now() - tasksStarted) / 1000
  yield* Deferred.await(all).pipe(Effect.timeout("120 seconds"))
  const tasksSeconds = (performance.now() - tasksStarted) / 1000
  process.stdout.write(`${JSON.stringify({
    tasks: count,
    tasksPerS: count / tasksSeconds,
    createdPerS: count / createdSeconds,
    plainPerS: plainCalls / plainSeconds
  })}\n`)
})

Effect.runPromise(Effect.scoped(program.pipe(Effect.provide(Runtime)))).then(() => process.exit(0), (error) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
