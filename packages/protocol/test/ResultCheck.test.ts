import { describe, expect, it } from "@effect/vitest"
import * as Methods from "../src/methods/Methods.ts"
import * as ResultCheck from "../src/methods/ResultCheck.ts"

describe("ResultCheck", () => {
  const callTool = ResultCheck.make(Methods.ToolsCall)
  const listTools = ResultCheck.make(Methods.ToolsList)

  it("passes a complete result of the method's shape, and names the path of one that departs from it", () => {
    expect(callTool({ resultType: "complete", content: [{ type: "text", text: "hi" }] }, "2026-07-28")).toBeUndefined()
    expect(callTool({ resultType: "complete", content: "not a list" }, "2026-07-28")).toMatchObject({ path: "content" })
    expect(callTool({ resultType: "complete", content: [{ type: "text", text: 7 }] }, "2026-07-28")).toMatchObject({ path: "content[0].text" })
    expect(callTool("a string", "2026-07-28")).toEqual({ path: "", message: "the result is not an object" })
  })

  it("checks input_required and task results by their own shapes, only where the method allows them", () => {
    expect(callTool({ resultType: "input_required", requestState: "s" }, "2026-07-28")).toBeUndefined()
    expect(callTool({ resultType: "input_required" }, "2026-07-28")).toMatchObject({ message: expect.stringContaining("inputRequests or requestState") })
    const task = { resultType: "task", taskId: "t1", status: "working", createdAt: "x", lastUpdatedAt: "x", ttlMs: null }
    expect(callTool(task, "2026-07-28")).toBeUndefined()
    expect(callTool({ ...task, ttlMs: "soon" }, "2026-07-28")).toMatchObject({ path: "ttlMs" })
    expect(listTools(task, "2026-07-28")).toMatchObject({ path: "resultType" })
  })

  it("takes a result without resultType or cache hints as a complete one that may not be cached, in either era", () => {
    expect(listTools({ tools: [{ name: "a", inputSchema: { type: "object" } }] }, "2025-11-25")).toBeUndefined()
    expect(listTools({ resultType: "complete", tools: [] }, "2026-07-28")).toBeUndefined()
    expect(listTools({ tools: [{ name: "a" }] }, "2025-11-25")).toMatchObject({ path: "tools[0].inputSchema" })
    expect(listTools({ resultType: "complete", tools: [], ttlMs: -1, cacheScope: "public" }, "2026-07-28")).toMatchObject({ path: "ttlMs" })
  })

  it("checks the extensions' results: a failed task carries its error", () => {
    const get = ResultCheck.make(Methods.TasksGet)
    const base = { resultType: "complete", taskId: "t1", createdAt: "x", lastUpdatedAt: "x", ttlMs: 1000 }
    expect(get({ ...base, status: "failed", error: { code: -32603, message: "boom" } }, "2026-07-28")).toBeUndefined()
    expect(get({ ...base, status: "failed" }, "2026-07-28")).toMatchObject({ message: expect.stringContaining("carries its error") })
  })
})
