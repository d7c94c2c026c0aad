import { describe, expect, it } from "@effect/vitest"
import * as Methods from "@snodo/protocol/methods/Methods"

describe("the method table's listen keys", () => {
  it("names, for every core change a listen filter asks for, the capability flag that promises it", () => {
    const declared = [...Methods.byListenKey.values()]
      .filter((method) => method.extension === undefined)
      .map((method) => [method.listenKey, method.declaredBy])
    expect(declared).toEqual([
      ["toolsListChanged", ["tools", "listChanged"]],
      ["promptsListChanged", ["prompts", "listChanged"]],
      ["resourcesListChanged", ["resources", "listChanged"]],
      ["resourceSubscriptions", ["resources", "subscribe"]]
    ])
  })

  it("reads a server's capabilities by that flag", () => {
    const capabilities = { tools: { listChanged: true }, prompts: {}, resources: { subscribe: true, listChanged: "yes" } }
    expect(Methods.declaresListenKey(capabilities, "toolsListChanged")).toBe(true)
    expect(Methods.declaresListenKey(capabilities, "promptsListChanged")).toBe(false)
    expect(Methods.declaresListenKey(capabilities, "resourcesListChanged")).toBe(false)
    expect(Methods.declaresListenKey(capabilities, "resourceSubscriptions")).toBe(true)
    // Tasks' changes are promised by the extension, not by a capability flag.
    expect(Methods.declaresListenKey({ tasks: { listChanged: true } }, "taskIds")).toBe(false)
    expect(Methods.declaresListenKey(capabilities, "nothing")).toBe(false)
  })
})
