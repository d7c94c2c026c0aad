/**
 * Request lifetimes over stdio with the official client 2.4.0 (pinned to 2026-07-28) against the
 * everything server as a child process: progress order on the wire, cancellation through an
 * AbortSignal, and a listen stream opened and closed by the client.
 *
 * Progress is asserted on the wire, not through `onprogress`: the client loses callbacks for
 * messages that arrive in the same chunk (typescript-sdk#2580), and delays would only hide that.
 */
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { record, type WireRecorder } from "../support/WireRecorder.ts"
import { sourceCondition } from "../support/Sources.ts"

let client: Client
let wire: WireRecorder

beforeAll(async () => {
  client = new Client({ name: "snodo-lifetimes", version: "0.1.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
  const transport = new StdioClientTransport({ command: process.execPath, args: [sourceCondition, "examples/everything/main.mjs", "--stdio"], stderr: "pipe" })
  wire = record(transport)
  await client.connect(transport)
})

afterAll(async () => {
  await client?.close()
})

type Message = Record<string, unknown> & { readonly params?: Record<string, unknown> & { readonly _meta?: Record<string, unknown> } }
const messages = () => wire.messages.map(({ message }) => message as Message)

const sleepStats = async () =>
  (await client.callTool({ name: "sleep_stats", arguments: {} })).structuredContent as { started: number; completed: number; interrupted: number }

describe("the official client over stdio", () => {
  it("sees every progress notification on the wire before the result", async () => {
    const from = wire.messages.length
    const result = await client.callTool({ name: "sleep", arguments: { ms: 350 } }, { onprogress: () => undefined })
    expect(result.structuredContent).toEqual({ slept: 350 })
    const seen = messages().slice(from)
    const progress = seen.filter((message) => message["method"] === "notifications/progress")
    expect(progress.map((message) => message.params?.["progress"])).toEqual([100, 200, 300, 350])
    const token = progress[0]?.params?.["progressToken"]
    expect(progress.every((message) => message.params?.["progressToken"] === token)).toBe(true)
    const answer = seen.findIndex((message) => "result" in message)
    expect(seen.findLastIndex((message) => message["method"] === "notifications/progress")).toBeLessThan(answer)
  })

  it("an AbortSignal sends notifications/cancelled: the handler is interrupted and no response arrives", async () => {
    const before = await sleepStats()
    const from = wire.messages.length
    const abort = new AbortController()
    const call = client.callTool({ name: "sleep", arguments: { ms: 60_000 } }, { signal: abort.signal })
    await new Promise((resolve) => setTimeout(resolve, 300))
    abort.abort(new Error("user stop"))
    await expect(call).rejects.toThrow()
    const after = await sleepStats()
    expect(after).toEqual({ started: before.started + 1, completed: before.completed, interrupted: before.interrupted + 1 })
    const answers = messages().slice(from).filter((message) => "result" in message || "error" in message)
    expect(answers.every((message) => (message["result"] as { structuredContent?: Record<string, unknown> }).structuredContent?.["slept"] === undefined)).toBe(true)
  })

  it("listen: acknowledged with the honoured filter, tagged changes, closed by the client", async () => {
    const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true })
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, promptsListChanged: true })
    const from = wire.messages.length
    await client.callTool({ name: "test_trigger_tool_change", arguments: {} })
    await client.callTool({ name: "test_trigger_prompt_change", arguments: {} })
    const changes = () =>
      messages().slice(from).filter((message) => typeof message["method"] === "string" && (message["method"] as string).endsWith("/list_changed"))
    for (let i = 0; i < 50 && changes().length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(changes().map((message) => message["method"])).toEqual(["notifications/tools/list_changed", "notifications/prompts/list_changed"])
    const id = changes()[0]?.params?._meta?.["io.modelcontextprotocol/subscriptionId"]
    expect(typeof id).toBe("string")
    expect(changes().every((message) => message.params?._meta?.["io.modelcontextprotocol/subscriptionId"] === id)).toBe(true)

    await subscription.close()
    const closedAt = wire.messages.length
    await client.callTool({ name: "test_trigger_tool_change", arguments: {} })
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(messages().slice(closedAt).filter((message) => message.params?._meta?.["io.modelcontextprotocol/subscriptionId"] === id)).toEqual([])
    expect(messages().some((message) => message["id"] === id)).toBe(false)
  })

  it("every message the server wrote validates against the official schema", () => {
    expect(wire.violations()).toEqual([])
  })
})
