/**
 * Tasks against the everything server (in memory, its memory task store): a tool the server makes
 * a task of yields a handle (status stream, await, cancel); input while running goes through
 * `tasks/update` with the same handlers; `callTool` waits a task out.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Stream } from "effect"
import { InputHandlers, McpClient } from "@snodo/client"
import { InMemoryTransport } from "@snodo/testing"
import { serverLayerFor } from "../../../examples/everything/server.ts"

const handlers = InputHandlers.layer({
  elicit: (request) =>
    Effect.succeed({ action: "accept", content: "confirm" in (request.mode === "url" ? {} : request.requestedSchema.properties) ? { confirm: true, name: "Ada" } : { name: "Ada" } })
})

const ClientLayer = McpClient.layer().pipe(
  Layer.provide(InMemoryTransport.layer),
  Layer.provide(serverLayerFor(["2026-07-28"])),
  Layer.provide(handlers)
)

const textOf = (result: { readonly content?: ReadonlyArray<unknown> }): string =>
  (result.content?.[0] as { readonly text?: string } | undefined)?.text ?? ""

describe("tasks", () => {
  it.live("a task handle: the status stream ends completed, await gives the CallToolResult", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const started = yield* client.startTool("slow_compute", { seconds: 0.3, label: "pi" })
      expect(started._tag).toBe("Task")
      if (started._tag !== "Task") return
      const statuses = yield* Stream.runCollect(Stream.map(started.task.status, (state) => state.status))
      expect(statuses.at(-1)).toBe("completed")
      expect(statuses).not.toContain("failed")
      const result = yield* started.task.await
      expect(result.resultType).toBe("complete")
      expect(textOf(result)).toBe("Computed pi after 0.3s")
    }).pipe(Effect.provide(ClientLayer)), 30_000)

  it.live("callTool waits a task out; input while running is answered through tasks/update", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      expect(textOf(yield* client.callTool("confirm_delete", { filename: "notes.txt" }))).toBe("Deleted notes.txt")
      expect(textOf(yield* client.callTool("multi_input"))).toBe("Got Ada and Ada")
      const failed = yield* client.callTool("failing_job")
      expect(failed.isError).toBe(true)
    }).pipe(Effect.provide(ClientLayer)), 30_000)

  it.live("a task that fails with a JSON-RPC error fails await with it; cancel ends a task cancelled", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const failure = yield* Effect.exit(client.callTool("protocol_error_job"))
      expect(Exit.isFailure(failure) && JSON.stringify(failure.cause)).toContain("backend is unavailable")
      const started = yield* client.startTool("slow_compute", { seconds: 60 })
      if (started._tag !== "Task") return expect.unreachable()
      yield* started.task.cancel
      const cancelled = yield* Effect.exit(started.task.await)
      expect(Exit.isFailure(cancelled) && JSON.stringify(cancelled.cause)).toContain("TaskCancelled")
    }).pipe(Effect.provide(ClientLayer)), 30_000)

  it.live("without the extension declared, the server runs the optional task tool synchronously", () =>
    Effect.gen(function*() {
      const client = yield* McpClient
      const started = yield* client.startTool("slow_compute", { seconds: 0 })
      expect(started._tag).toBe("Complete")
    }).pipe(Effect.provide(McpClient.layer({ tasks: false }).pipe(Layer.provide(InMemoryTransport.layer), Layer.provide(serverLayerFor(["2026-07-28"]))))))
})
