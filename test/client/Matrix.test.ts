/**
 * The interop matrix: every request the client sends, as the method table (`Methods.requests`)
 * lists it, run by `@snodo/client` against the everything server on every transport (in memory,
 * stdio, Streamable HTTP) and in every era the method exists in (2026-07-28, 2025-11-25), each
 * asserting its result. The rows are keyed by the table's names: a method added to the table
 * without a row here fails the first test.
 *
 * The server's own requests (`elicitation/create`, `sampling/createMessage`, `roots/list`) are the
 * rows of a tool that asks for all three: input rounds on 2026-07-28, JSON-RPC requests to the
 * client on 2025-11-25.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, Stream } from "effect"
import { FetchHttpClient, HttpServer } from "effect/http"
import { type Client, InputHandlers, McpClient, StdioClientTransport, StreamableHttpClientTransport } from "@snodo/client"
import * as NodeServe from "@snodo/http/NodeServe"
import type * as Method from "@snodo/protocol/methods/Method"
import * as Methods from "@snodo/protocol/methods/Methods"
import { InMemoryTransport } from "@snodo/testing"
import { serverLayerFor } from "../../examples/everything/server.ts"
import { sourceCondition } from "../support/Sources.ts"
import { textOf } from "./support/EverythingCalls.ts"

type Era = Method.Era

/** Answers what the everything server asks: a name, a confirmation, a sample, the roots. */
const handlers = InputHandlers.layer({
  elicit: (request) =>
    Effect.succeed(
      "requestedSchema" in request && JSON.stringify(request.requestedSchema).includes("confirm")
        ? { action: "accept", content: { name: "Ada", confirm: true } }
        : { action: "accept", content: { name: "Ada" } }
    ),
  sample: () => Effect.succeed({ role: "assistant", content: { type: "text", text: "Bonjour" }, model: "scripted" }),
  roots: Effect.succeed([{ uri: "file:///workspace", name: "workspace" }])
})

/** The three input requests, through the everything server's tool that asks for all of them. */
const askAll = (client: Client) =>
  Effect.map(client.callTool("test_input_required_result_multiple_inputs"), (result) =>
    expect(textOf(result)).toBe("Name: Ada; Greeting: Bonjour; Roots: 1"))

/** A row: what the client does to send the method, and what it must get back. */
type Row = (client: Client, era: Era) => Effect.Effect<void, unknown>

const rows: Readonly<Record<string, Row>> = {
  [Methods.ServerDiscover.name]: (client) =>
    Effect.map(client.discover, (result) => expect(result.supportedVersions).toContain("2026-07-28")),
  [Methods.Initialize.name]: (client) =>
    Effect.sync(() => {
      expect(client.server.era).toBe("legacy")
      expect(client.server.protocolVersion).toBe("2025-11-25")
      expect(client.server.serverInfo?.name).toBeTypeOf("string")
    }),
  [Methods.Ping.name]: (client) => client.ping,
  [Methods.ToolsList.name]: (client) =>
    Effect.map(client.listTools, (tools) => expect(tools.map((tool) => tool.name)).toContain("test_simple_text")),
  [Methods.ToolsCall.name]: (client) =>
    Effect.map(client.callTool("test_simple_text"), (result) => expect(textOf(result)).toBe("This is a simple text response for testing.")),
  [Methods.ResourcesList.name]: (client) =>
    Effect.map(client.listResources, (resources) => expect(resources.map((resource) => resource.uri)).toContain("test://static-text")),
  [Methods.ResourcesTemplatesList.name]: (client) =>
    Effect.map(client.listResourceTemplates, (templates) =>
      expect(templates.map((template) => template.uriTemplate)).toContain("test://template/{id}/data")),
  [Methods.ResourcesRead.name]: (client) =>
    Effect.map(client.readResource("test://static-text"), (result) =>
      expect(result.contents[0]).toMatchObject({ uri: "test://static-text", text: "This is the content of the static text resource." })),
  [Methods.ResourcesSubscribe.name]: (client) =>
    Effect.map(client.request(Methods.ResourcesSubscribe.name, { uri: "test://static-text" }), (result) =>
      expect(result.resultType).toBe("complete")),
  [Methods.ResourcesUnsubscribe.name]: (client) =>
    Effect.map(client.request(Methods.ResourcesUnsubscribe.name, { uri: "test://static-text" }), (result) =>
      expect(result.resultType).toBe("complete")),
  [Methods.PromptsList.name]: (client) =>
    Effect.map(client.listPrompts, (prompts) => expect(prompts.map((prompt) => prompt.name)).toContain("test_simple_prompt")),
  [Methods.PromptsGet.name]: (client) =>
    Effect.map(client.getPrompt("test_prompt_with_arguments", { arg1: "a", arg2: "b" }), (result) =>
      expect(result.messages[0]?.content).toMatchObject({ type: "text", text: "Prompt with arguments: arg1='a', arg2='b'" })),
  [Methods.CompletionComplete.name]: (client) =>
    Effect.map(client.complete({ type: "ref/prompt", name: "test_prompt_with_arguments" }, { name: "arg1", value: "test" }), (result) =>
      expect(result.completion.values).toContain("testValue1")),
  [Methods.LoggingSetLevel.name]: (client) =>
    Effect.map(client.request(Methods.LoggingSetLevel.name, { level: "warning" }), (result) => expect(result.resultType).toBe("complete")),
  [Methods.SubscriptionsListen.name]: (client) =>
    Effect.gen(function*() {
      const changes = yield* client.listen({ toolsListChanged: true })
      const first = yield* Effect.forkChild(Stream.runHead(changes))
      yield* client.callTool("test_trigger_tool_change")
      const change = yield* Fiber.join(first)
      expect(Option.map(change, (value) => value._tag)).toEqual(Option.some("ToolsListChanged"))
    }).pipe(Effect.scoped),
  [Methods.ElicitationCreate.name]: askAll,
  [Methods.SamplingCreateMessage.name]: askAll,
  [Methods.RootsList.name]: askAll,
  [Methods.TasksGet.name]: (client) =>
    Effect.gen(function*() {
      const started = yield* client.startTool("failing_job")
      if (started._tag !== "Task") return yield* Effect.die(new Error("failing_job answered without a task"))
      const state = yield* started.task.get
      expect(state.taskId).toBe(started.task.taskId)
      const result = yield* started.task.await
      expect(result.isError).toBe(true)
    }),
  [Methods.TasksUpdate.name]: (client) =>
    Effect.map(client.callTool("confirm_delete", { filename: "notes.txt" }), (result) => expect(textOf(result)).toBe("Deleted notes.txt")),
  [Methods.TasksCancel.name]: (client) =>
    Effect.gen(function*() {
      const started = yield* client.startTool("slow_compute", { seconds: 60, label: "matrix" })
      if (started._tag !== "Task") return yield* Effect.die(new Error("slow_compute answered without a task"))
      yield* started.task.cancel
      const state = yield* started.task.get.pipe(
        Effect.repeat({ until: (current) => current.status === "cancelled", times: 100 }),
        Effect.timeout("10 seconds")
      )
      expect(state.status).toBe("cancelled")
    }),
  [Methods.SkillsList.name]: (client) =>
    Effect.map(client.request(Methods.SkillsList.name), (result) => {
      const skills = result["skills"] as ReadonlyArray<{ readonly uri: string }>
      expect(skills.map((skill) => skill.uri)).toContain("skill://pdf-processing/SKILL.md")
    }),
  [Methods.SkillsGet.name]: (client) =>
    Effect.map(client.request(Methods.SkillsGet.name, { uri: "skill://pdf-processing/SKILL.md" }), (result) =>
      expect(result["skill"]).toMatchObject({ uri: "skill://pdf-processing/SKILL.md", frontmatter: { name: "pdf-processing" } })),
  [Methods.ResourcesDirectoryRead.name]: (client) =>
    Effect.map(client.request(Methods.ResourcesDirectoryRead.name, { uri: "skill://pdf-processing" }), (result) => {
      const entries = result["resources"] as ReadonlyArray<{ readonly uri: string }>
      expect(entries.map((entry) => entry.uri)).toContain("skill://pdf-processing/SKILL.md")
    })
}

/** The requests a client sends (or answers, for the server's own), each in the eras it exists in. */
const clientOperations = Methods.requests

/** The dialects the server enables for an era (2026-07-28: both, and the client picks the newer). */
const dialectsOf = (era: Era): ReadonlyArray<Era> => era === "2026-07-28" ? ["2026-07-28", "2025-11-25"] : ["2025-11-25"]

const everything = new URL("../../examples/everything/main.mjs", import.meta.url).pathname

const transports: ReadonlyArray<readonly [string, (era: Era) => Layer.Layer<McpClient, unknown>]> = [
  ["in memory", (era) =>
    McpClient.layer().pipe(Layer.provide(InMemoryTransport.layer), Layer.provide(serverLayerFor(dialectsOf(era))), Layer.provide(handlers))],
  ["stdio", (era) =>
    McpClient.layer().pipe(
      Layer.provide(StdioClientTransport.layerNode({
        command: process.execPath,
        args: [sourceCondition, everything, "--stdio", "--dialects", dialectsOf(era).join(",")]
      })),
      Layer.provide(handlers)
    )],
  ["Streamable HTTP", (era) =>
    Layer.unwrap(Effect.gen(function*() {
      const server = yield* HttpServer.HttpServer
      if (server.address._tag === "UnixPathAddress") return yield* Effect.die("expected TCP")
      return McpClient.layer().pipe(
        Layer.provide(StreamableHttpClientTransport.layer({ url: `http://127.0.0.1:${server.address.port}/mcp` })),
        Layer.provide(FetchHttpClient.layer),
        Layer.provide(handlers)
      )
    })).pipe(Layer.provide(NodeServe.layer({ port: 0, sessions: era === "2025-11-25" }).pipe(Layer.provide(serverLayerFor(dialectsOf(era))))))]
]

describe("the interop matrix", () => {
  it("has a row for every request of the method table", () => {
    const missing = clientOperations.map((method) => method.name).filter((name) => rows[name] === undefined)
    expect(missing).toEqual([])
    expect(Object.keys(rows).filter((name) => Methods.findRequest(name) === undefined)).toEqual([])
  })
})

for (const [transport, layerFor] of transports) {
  for (const era of ["2026-07-28", "2025-11-25"] as const) {
    layer(layerFor(era), { timeout: "60 seconds", excludeTestServices: true })(`${transport}, ${era}`, (cell) => {
      for (const method of clientOperations) {
        if (!method.eras.includes(era)) continue
        cell.effect(method.name, () =>
          Effect.gen(function*() {
            const client = yield* McpClient
            yield* rows[method.name]!(client, era)
          }), 30_000)
      }
    })
  }
}
