/**
 * A test-only server for request lifetimes: it publishes any change through its hub on request,
 * reports unpaced progress bursts, holds a call open until cancelled, and tells how many listen
 * streams and held calls exist. `listenServer(options)` is the runtime (for in-process HTTP
 * tests); `ListenServerMain.ts` serves it over stdio in a child process.
 */
import { Content, McpServer, Progress, Prompt, Resource, SubscriptionHub, Tool, ToolResult } from "@snodo/core"
import type { Overflow } from "@snodo/core/extension/Listen"
import { Effect, Layer, Schema } from "effect"

export interface ListenServerOptions {
  readonly queue?: number
  readonly overflow?: Overflow
}

export interface Counters {
  holdStarted: number
  holdInterrupted: number
}

const Kind = Schema.Literals(["tools", "prompts", "resources", "updated"])

export const listenServer = (options: ListenServerOptions = {}) => {
  const hub = SubscriptionHub.makeMemory()
  const counters: Counters = { holdStarted: 0, holdInterrupted: 0 }

  const publish = Tool.make("publish", {
    description: "Publishes changes through the hub, all before answering, without yielding in between",
    input: Schema.Struct({ kind: Kind, uris: Schema.optional(Schema.Array(Schema.String)), times: Schema.optional(Schema.Int) })
  }, ({ kind, times, uris }) =>
    Effect.gen(function*() {
      const changes = kind === "tools"
        ? [SubscriptionHub.toolsListChanged]
        : kind === "prompts"
        ? [SubscriptionHub.promptsListChanged]
        : kind === "resources"
        ? [SubscriptionHub.resourcesListChanged]
        : (uris ?? []).map(SubscriptionHub.resourceUpdated)
      for (let round = 0; round < (times ?? 1); round++) {
        for (const change of changes) yield* SubscriptionHub.publish(change)
      }
      return ToolResult.content([Content.text(`published ${changes.length * (times ?? 1)}`)])
    }))

  const burst = Tool.make("burst", {
    description: "Reports count progress updates back to back, then answers",
    input: Schema.Struct({ count: Schema.Int })
  }, ({ count }) =>
    Effect.gen(function*() {
      for (let step = 1; step <= count; step++) yield* Progress.report(step, { total: count })
      return ToolResult.content([Content.text(`reported ${count}`)])
    }))

  const hold = Tool.make("hold", {
    description: "Never answers; its finalizer counts (and logs) the interruption",
    input: Schema.Struct({})
  }, () =>
    Effect.sync(() => void counters.holdStarted++).pipe(
      Effect.andThen(Effect.never),
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          counters.holdInterrupted++
          process.stderr.write("hold interrupted\n")
        })
      ),
      Effect.as(ToolResult.content([]))
    ))

  const stats = Tool.make("stats", {
    description: "Open listen streams and held calls",
    input: Schema.Struct({}),
    output: Schema.Struct({ subscribers: Schema.Int, holdStarted: Schema.Int, holdInterrupted: Schema.Int })
  }, () => Effect.sync(() => ({ subscribers: hub.size(), ...counters })))

  const echo = Tool.make("echo", {
    description: "Echoes its text",
    input: Schema.Struct({ text: Schema.String })
  }, ({ text }) => Effect.succeed(ToolResult.content([Content.text(text)])))

  const config = Resource.make({ uri: "file:///config.json", name: "config" }, () =>
    Effect.succeed(Content.textContents("file:///config.json", "{}")))
  const hello = Prompt.make("hello", { description: "Says hello" }, () => Effect.succeed([]))

  const server = McpServer.make({
    name: "listen-server",
    version: "1.0.0",
    subscriptions: { ...(options.queue === undefined ? {} : { queue: options.queue }), ...(options.overflow === undefined ? {} : { overflow: options.overflow }) }
  }).add(publish, burst, hold, stats, echo, config, hello)

  const layer = server.layer.pipe(Layer.provide(Layer.succeed(SubscriptionHub.SubscriptionHub, hub)))
  return { hub, counters, layer }
}
