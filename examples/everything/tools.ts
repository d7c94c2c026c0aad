/**
 * The everything server's tools: the conformance fixtures and three of our own (`echo`, `add`
 * with its declared failure, `sleep` with `sleep_stats`).
 */
import * as Content from "@snodo/core/Content"
import * as McpError from "@snodo/core/McpError"
import * as McpLog from "@snodo/core/McpLog"
import * as McpRequest from "@snodo/core/McpRequest"
import * as Progress from "@snodo/core/Progress"
import * as Tool from "@snodo/core/Tool"
import * as ToolResult from "@snodo/core/ToolResult"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import { audioBase64, imageBase64 } from "./fixtures.ts"

const NoInput = Schema.Struct({})

export const simpleText = Tool.make("test_simple_text", {
  description: "Tests simple text content response",
  input: NoInput
}, () => Effect.succeed(ToolResult.content([Content.text("This is a simple text response for testing.")])))

export const imageContent = Tool.make("test_image_content", {
  description: "Tests image content response",
  input: NoInput
}, () => Effect.succeed(ToolResult.content([Content.image(imageBase64, "image/png")])))

export const audioContent = Tool.make("test_audio_content", {
  description: "Tests audio content response",
  input: NoInput
}, () => Effect.succeed(ToolResult.content([Content.audio(audioBase64, "audio/wav")])))

export const embeddedResource = Tool.make("test_embedded_resource", {
  description: "Tests embedded resource content response",
  input: NoInput
}, () =>
  Effect.succeed(ToolResult.content([
    Content.resource(Content.textContents("test://embedded-resource", "This is an embedded resource content.", "text/plain"))
  ])))

export const multipleContentTypes = Tool.make("test_multiple_content_types", {
  description: "Tests response with multiple content types (text, image, resource)",
  input: NoInput
}, () =>
  Effect.succeed(ToolResult.content([
    Content.text("Multiple content types test:"),
    Content.image(imageBase64, "image/png"),
    Content.resource(Content.textContents("test://mixed-content-resource", JSON.stringify({ test: "data", value: 123 }), "application/json"))
  ])))

export const errorHandling = Tool.make("test_error_handling", {
  description: "Tests error response handling",
  input: NoInput
}, () => Effect.succeed(ToolResult.error("This tool intentionally returns an error for testing")))

export const toolWithProgress = Tool.make("test_tool_with_progress", {
  description: "Tests tool that reports progress notifications",
  input: NoInput
}, () =>
  Effect.gen(function*() {
    for (const step of [0, 50, 100]) {
      yield* Progress.report(step, { total: 100, message: `Completed step ${step} of 100` })
      if (step < 100) yield* Effect.sleep("50 millis")
    }
    const request = yield* McpRequest.current
    return ToolResult.content([Content.text(String(request.meta.progressToken ?? 0))])
  }))

export const streamingElicitation = Tool.make("test_streaming_elicitation", {
  description: "Diagnostic tool validating response progress streams",
  input: NoInput
}, () =>
  Effect.gen(function*() {
    yield* Progress.report(50, { total: 100 }).pipe(Effect.ignore)
    return ToolResult.content([Content.text("Streaming complete")])
  }))

export const loggingTool = Tool.make("test_logging_tool", {
  description: "Diagnostic logging validator tool",
  input: NoInput
}, () =>
  Effect.gen(function*() {
    yield* McpLog.log("info", "Diagnostic trace logging activated", "everything")
    return ToolResult.content([Content.text("Logging evaluated")])
  }))

export const toolWithLogging = Tool.make("test_tool_with_logging", {
  description: "Tests tool that emits log messages during execution",
  input: NoInput
}, () =>
  Effect.gen(function*() {
    for (const message of ["Tool execution started", "Tool processing data", "Tool execution completed"]) {
      yield* McpLog.log("info", message, "everything")
    }
    return ToolResult.content([Content.text("Tool with logging executed successfully")])
  }))

export const missingCapability = Tool.make("test_missing_capability", {
  description: "Test tool requiring sampling",
  input: NoInput
}, () =>
  Effect.gen(function*() {
    const request = yield* McpRequest.current
    if (request.meta.clientCapabilities["sampling"] === undefined) {
      return yield* new McpError.MissingRequiredClientCapability({
        message: "This tool needs the client's sampling capability",
        data: { requiredCapabilities: { sampling: {} } }
      })
    }
    return ToolResult.content([Content.text("Success")])
  }))

export const echo = Tool.make("echo", {
  description: "Echoes its text back as structured content",
  input: Schema.Struct({ text: Schema.String }),
  output: Schema.Struct({ text: Schema.String }),
  annotations: { readOnlyHint: true, idempotentHint: true }
}, ({ text }) => Effect.succeed({ text }))

/** Two finite numbers whose sum is not (1e308 + 1e308): a declared failure the model can read. */
export class SumOverflow extends Schema.TaggedError<SumOverflow>()("SumOverflow", { a: Schema.Finite, b: Schema.Finite }) {}

export const add = Tool.make("add", {
  description: "Adds two numbers",
  input: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
  output: Schema.Struct({ sum: Schema.Finite }),
  failure: SumOverflow, // → isError with { _tag: "SumOverflow", a, b } as structuredContent
  annotations: { readOnlyHint: true, idempotentHint: true }
}, ({ a, b }) => Number.isFinite(a + b) ? Effect.succeed({ sum: a + b }) : Effect.fail(new SumOverflow({ a, b })))

/** What `sleep` did: how many calls started, completed, and were interrupted (cancelled). */
export interface SleepStats {
  readonly started: number
  readonly completed: number
  readonly interrupted: number
}

/** `sleep` and `sleep_stats`, sharing one counter per server. */
export const makeSleepTools = Effect.gen(function*() {
  const stats = yield* Ref.make<SleepStats>({ started: 0, completed: 0, interrupted: 0 })
  const bump = (key: keyof SleepStats) => Ref.update(stats, (current) => ({ ...current, [key]: current[key] + 1 }))
  const sleep = Tool.make("sleep", {
    description: "Sleeps for ms milliseconds, reporting progress every 100 ms when asked",
    input: Schema.Struct({ ms: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 600_000 })) }),
    output: Schema.Struct({ slept: Schema.Int })
  }, ({ ms }) =>
    Effect.gen(function*() {
      yield* bump("started")
      let elapsed = 0
      while (elapsed < ms) {
        const step = Math.min(100, ms - elapsed)
        yield* Effect.sleep(step)
        elapsed += step
        yield* Progress.report(elapsed, { total: ms }).pipe(Effect.ignore)
      }
      yield* bump("completed")
      return { slept: ms }
    }).pipe(Effect.onInterrupt(() => bump("interrupted"))))
  const sleepStats = Tool.make("sleep_stats", {
    description: "How many sleep calls started, completed and were interrupted",
    input: NoInput,
    output: Schema.Struct({ started: Schema.Int, completed: Schema.Int, interrupted: Schema.Int })
  }, () => Ref.get(stats))
  return { sleep, sleepStats } as const
})
