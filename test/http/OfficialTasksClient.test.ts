/**
 * Interop with the official Tasks client, `@modelcontextprotocol/ext-tasks` 0.2.2 on
 * `@modelcontextprotocol/client` 2.4.0 (pinned to 2026-07-28), against the everything server over
 * a real HTTP listener. ext-tasks validates every task shape it reads with its own schemas, polls,
 * answers `input_required` through its input handler and cancels: what it accepts is what a host
 * built on it accepts.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import {
  createApplicationInputHandler,
  createTaskSessionFromClient,
  DispatchError,
  resultFromTaskOutcome,
  TaskFailedError
} from "@modelcontextprotocol/ext-tasks/client"
import type { JsonRpcResponse, RawClientDispatch } from "@modelcontextprotocol/ext-tasks/client"
import * as NodeServe from "@snodo/http/NodeServe"
import { Effect, Layer, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ServerLayer } from "../../examples/everything/server.ts"

const tasks = "io.modelcontextprotocol/tasks"
const clientInfo = { name: "snodo-ext-tasks-e2e", version: "1.0.0" }
const clientCapabilities = { elicitation: {}, extensions: { [tasks]: {} } }

let runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>
let url: string

/** Which param each task-eligible method mirrors in `Mcp-Name`. */
const nameParams: Readonly<Record<string, string>> = { "tools/call": "name", "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId" }

let nextId = 0
/** The host's raw dispatch: the envelope, the id and the routing headers are ours to add. */
const rawDispatch: RawClientDispatch = async (request, options) => {
  const { method, params } = request as { readonly method: string; readonly params: Record<string, unknown> }
  const headers = new Headers({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method
  })
  const nameParam = nameParams[method]
  const name = nameParam === undefined ? undefined : params[nameParam]
  if (typeof name === "string") headers.set("mcp-name", name)
  // Headers merges case-insensitively: a context `Mcp-Name` replaces ours instead of doubling it.
  for (const [key, value] of Object.entries(options?.context?.headers ?? {})) headers.set(key, value)
  let response: Response
  try {
    response = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: ++nextId, method, params }),
      ...(options?.signal === undefined ? {} : { signal: options.signal })
    })
  } catch (cause) {
    throw new DispatchError("transport failed", true, { cause })
  }
  const text = await response.text()
  const message = (response.headers.get("content-type") ?? "").startsWith("text/event-stream")
    ? text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>)
      .find((frame) => "result" in frame || "error" in frame)!
    : JSON.parse(text) as Record<string, unknown>
  return ("error" in message ? { kind: "error", error: message["error"] } : { kind: "result", result: message["result"] }) as JsonRpcResponse
}

const session = async (answers: Record<string, string | boolean> = {}) => {
  const client = new Client(clientInfo, { capabilities: clientCapabilities, versionNegotiation: { mode: { pin: "2026-07-28" } } })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  const asked: Array<Readonly<Record<string, unknown>>> = []
  const tasksSession = createTaskSessionFromClient(client, {
    endpointId: "snodo-e2e",
    rawDispatch,
    v2RequestFraming: { protocolVersion: "2026-07-28", clientInfo, clientCapabilities },
    onInputRequest: createApplicationInputHandler({
      elicitation: (request) => {
        asked.push(request.params)
        return { action: "accept", content: answers }
      },
      sampling: () => Promise.reject(new Error("no sampling in these tests")),
      roots: () => ({ roots: [] })
    })
  })
  return { client, session: tasksSession, asked }
}

const textOf = (result: unknown): string => {
  const content = (result as { content?: ReadonlyArray<{ text?: string }> }).content ?? []
  return content.map((block) => block.text ?? "").join("")
}

beforeAll(async () => {
  runtime = ManagedRuntime.make(NodeServe.layer({ port: 0 }).pipe(Layer.provide(ServerLayer)))
  const server = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  if (server.address._tag === "UnixPathAddress") throw new Error("expected TCP")
  url = `http://127.0.0.1:${server.address.port}/mcp`
})

afterAll(() => runtime.dispose())

describe("the official Tasks client (ext-tasks 0.2.2)", () => {
  it("runs an optional tool as a task and settles it completed", async () => {
    const { client, session: tasksSession } = await session()
    const execution = await tasksSession.callTool("slow_compute", { seconds: 1, label: "ext" })
    expect(execution.kind).toBe("task")
    const { outcome } = await execution.settle()
    expect(outcome.status).toBe("completed")
    expect(textOf(resultFromTaskOutcome(outcome))).toBe("Computed ext after 1s")
    await tasksSession.close()
    await client.close()
  })

  it("answers a parked task's elicitation through its input handler", async () => {
    const { asked, client, session: tasksSession } = await session({ confirm: true })
    const execution = await tasksSession.callTool("confirm_delete", { filename: "old.txt" })
    const { outcome } = await execution.settle()
    expect(outcome.status).toBe("completed")
    expect(textOf(resultFromTaskOutcome(outcome))).toBe("Deleted old.txt")
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({ message: "Really delete the file?" })
    await tasksSession.close()
    await client.close()
  })

  it("answers two inputs asked at once", async () => {
    const { asked, client, session: tasksSession } = await session({ name: "Grace", confirm: true })
    const { outcome } = await (await tasksSession.callTool("multi_input", {})).settle()
    expect(textOf(resultFromTaskOutcome(outcome))).toBe("Got Grace and Grace")
    expect(asked).toHaveLength(2)
    await tasksSession.close()
    await client.close()
  })

  it("follows MRTR rounds before the task, then the task", async () => {
    const { client, session: tasksSession } = await session({ name: "Alice" })
    const { outcome } = await (await tasksSession.callTool("test_tool_with_task", {})).settle()
    expect(textOf(resultFromTaskOutcome(outcome))).toContain("Alice")
    await tasksSession.close()
    await client.close()
  })

  it("reports a failed task with its JSON-RPC error, and a tool error as completed", async () => {
    const { client, session: tasksSession } = await session()
    const failed = await (await tasksSession.callTool("protocol_error_job", {})).settle()
    expect(failed.outcome.status).toBe("failed")
    expect(() => resultFromTaskOutcome(failed.outcome)).toThrow(TaskFailedError)
    if (failed.outcome.status === "failed") expect(failed.outcome.error.code).toBe(-32603)
    const toolError = await (await tasksSession.callTool("failing_job", {})).settle()
    expect(toolError.outcome.status).toBe("completed")
    expect((resultFromTaskOutcome(toolError.outcome) as { isError?: boolean }).isError).toBe(true)
    await tasksSession.close()
    await client.close()
  })

  it("cancels a running task: the server's task ends cancelled", async () => {
    const { client, session: tasksSession } = await session()
    const execution = await tasksSession.callTool("slow_compute", { seconds: 60, label: "cancel-me" })
    if (execution.kind !== "task") throw new Error("expected a task")
    const taskId = execution.handle.taskId
    await execution.cancel()
    const { outcome } = await execution.settle()
    expect(outcome.status).toBe("cancelled")
    const state = await rawDispatch({ method: "tasks/get", params: { taskId, _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": clientCapabilities
    } } })
    expect(state).toMatchObject({ kind: "result", result: { status: "cancelled" } })
    await tasksSession.close()
    await client.close()
  })
})
