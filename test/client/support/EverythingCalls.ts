/**
 * What the client's transport tests ask of the everything server, whatever carries it: the
 * scripted input handlers, the typed `sleep` and `sleep_stats` tools, and the check that
 * interrupting a call cancels it on the server.
 */
import { expect } from "@effect/vitest"
import { Deferred, Effect, Fiber, Schedule, Schema } from "effect"
import { InputHandlers, McpClient } from "@snodo/client"
import { SleepStats } from "../../../examples/everything/server.ts"

/** Answers every input the everything server's fixtures ask for. */
export const handlers = InputHandlers.layer({
  elicit: () => Effect.succeed({ action: "accept", content: { name: "Ada" } }),
  sample: () => Effect.succeed({ role: "assistant", content: { type: "text", text: "Bonjour" }, model: "scripted" }),
  roots: Effect.succeed([{ uri: "file:///workspace", name: "workspace" }])
})

/** The first content block's text. */
export const textOf = (result: { readonly content?: ReadonlyArray<unknown> }): string =>
  (result.content?.[0] as { readonly text?: string } | undefined)?.text ?? ""

export const Sleep = McpClient.tool("sleep", { input: Schema.Struct({ ms: Schema.Int }), output: Schema.Struct({ slept: Schema.Int }) })
export const Stats = McpClient.tool("sleep_stats", { input: Schema.Struct({}), output: SleepStats })

/** Starts a long `sleep`, interrupts it once it reported progress, and expects the server to have interrupted it. */
export const interruptionCancels = Effect.gen(function*() {
  const client = yield* McpClient
  const started = yield* Deferred.make<void>()
  const call = yield* Effect.forkChild(client.call(Sleep, { ms: 60_000 }, { onProgress: () => Deferred.succeed(started, undefined) }))
  yield* Deferred.await(started)
  yield* Fiber.interrupt(call)
  const stats = yield* client.call(Stats, {}).pipe(
    Effect.repeat({ until: (current) => current.interrupted === 1, schedule: Schedule.spaced("20 millis") }),
    Effect.timeout("10 seconds")
  )
  expect(stats).toMatchObject({ started: 1, completed: 0, interrupted: 1 })
})
