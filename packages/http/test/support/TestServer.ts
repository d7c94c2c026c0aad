/**
 * A small server exercising what the transport must carry: plain results, progress (SSE), log
 * messages, a slow tool whose finalizer is observable, `x-mcp-header` parameters, errors.
 */
import { Effect, Layer, ManagedRuntime, Schema } from "effect"
import { HttpServer } from "effect/http"
import { McpLog } from "@snodo/core/McpLog"
import * as McpServer from "@snodo/core/McpServer"
import * as Progress from "@snodo/core/Progress"
import * as Tool from "@snodo/core/Tool"
import { ApplicationError } from "@snodo/core/McpError"
import type { ServerRuntime } from "@snodo/core/transport/ServerRuntime"
import * as NodeServe from "@snodo/http/NodeServe"

/** Observations of the slow tool. */
export const stats = { started: 0, finalized: 0, interrupted: 0, completed: 0 }

export const echo = Tool.make("echo", {
  description: "Echo text",
  input: Schema.Struct({ text: Schema.String })
}, ({ text }) => Effect.succeed(text))

const progress = Tool.make("progress", {
  input: Schema.Struct({ steps: Schema.Int, delayMs: Schema.optional(Schema.Int) })
}, ({ steps, delayMs }) =>
  Effect.gen(function*() {
    for (let step = 1; step <= steps; step++) {
      yield* Effect.ignore(Progress.report(step, { total: steps, message: `step ${step}` }))
      if (delayMs !== undefined) yield* Effect.sleep(delayMs)
    }
    return `done after ${steps}`
  }))

export const slow = Tool.make("slow", {
  input: Schema.Struct({ ms: Schema.Int, progress: Schema.optional(Schema.Boolean) })
}, ({ ms, progress: withProgress }) =>
  Effect.gen(function*() {
    stats.started++
    if (withProgress === true) yield* Effect.ignore(Progress.report(1, { message: "started" }))
    yield* Effect.sleep(ms)
    stats.completed++
    return "slept"
  }).pipe(
    Effect.onInterrupt(() => Effect.sync(() => stats.interrupted++)),
    Effect.ensuring(Effect.sync(() => stats.finalized++))
  ))

const log = Tool.make("log", { input: Schema.Struct({}) }, () =>
  McpLog.log("info", { hello: "world" }, "test").pipe(Effect.as("logged")))

const region = Tool.make("region", {
  inputSchema: {
    type: "object",
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      shard: { type: "integer", "x-mcp-header": "Shard" },
      dry: { type: "boolean", "x-mcp-header": "Dry" },
      nested: { type: "object", properties: { zone: { type: "string", "x-mcp-header": "Zone" } } },
      query: { type: "string" }
    },
    required: ["region"]
  }
}, (args) => Effect.succeed({ ...args }))

const quota = Tool.make("quota", { input: Schema.Struct({}) }, () =>
  Effect.fail(ApplicationError.of(-32001, "Quota exceeded")), )

const boom = Tool.make("boom", { input: Schema.Struct({}) }, () => Effect.die(new Error("secret detail")))

export const Server = McpServer.make({ name: "http-test", version: "1.0.0", logging: true })
  .add(echo, progress, slow, log, region, quota, boom)

/** A running server on a free port, and its base URL; `server` is another runtime to serve. */
export const start = async (
  options?: NodeServe.ServeOptions,
  definition: Layer.Layer<ServerRuntime, unknown> = Server.layer
) => {
  const runtime = ManagedRuntime.make(NodeServe.layer({ port: 0, ...options }).pipe(Layer.provide(definition)))
  const server = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  const address = server.address
  if (address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  return {
    runtime,
    port: address.port,
    url: `http://127.0.0.1:${address.port}/mcp`,
    close: () => runtime.dispose()
  }
}
