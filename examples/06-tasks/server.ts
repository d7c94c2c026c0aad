/**
 * A report generator whose long runs are tasks: the caller gets a task at once, polls (or listens),
 * and answers the one question the report asks along the way.
 */
import { Input, McpServer, SubscriptionHub, Tool } from "@snodo/core"
import * as Tasks from "@snodo/tasks"
import { Effect, Layer, Schema } from "effect"

const FormatForm = Input.form({
  message: "Which format should the report use?",
  requestedSchema: {
    type: "object",
    properties: { format: { type: "string", enum: ["pdf", "csv"] } },
    required: ["format"]
  }
})

/** Takes a while: `months` seconds. Asks for the format half way, while running as a task. */
export const report = Tool.make("report", {
  description: "Builds a sales report over the last `months` months (a task when the client supports tasks)",
  input: Schema.Struct({ months: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 24 })) }),
  output: Schema.Struct({ months: Schema.Int, format: Schema.String, rows: Schema.Int })
}, ({ months }) =>
  Effect.gen(function*() {
    yield* Effect.sleep(`${months / 2} seconds`)
    const answer = yield* Input.elicit("format", FormatForm)
    const format = answer.action === "accept" ? String(answer.content.format) : "pdf"
    yield* Effect.sleep(`${months / 2} seconds`)
    return { months, format, rows: months * 31 }
  }))

/** Quick: never a task. */
export const ping = Tool.make("ping", { description: "Answers at once", input: Schema.Struct({}) }, () => Effect.succeed("pong"))

export const Server = McpServer.make({ name: "reports", version: "1.0.0" })
  .add(report, ping)
  .extend(Tasks.extension({
    // a task for any call that takes more than a couple of seconds, when the client negotiated tasks
    tools: { report: Tasks.optional({ when: (args) => Number(args["months"]) >= 3 }) }
  }))

/** The runtime: tasks in memory (see docs/tasks.md to choose a durable store), listen streams on. */
export const Runtime = Server.layer.pipe(
  Layer.provide(Tasks.TaskStore.layerMemory()),
  Layer.provide(SubscriptionHub.layerMemory())
)
