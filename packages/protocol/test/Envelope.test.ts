import { describe, expect, it } from "@effect/vitest"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import * as Envelope from "../src/jsonrpc/Envelope.ts"

const decodeRequest = (text: string): Envelope.Request => {
  const message = Envelope.decode(text)
  if (message._tag !== "Request") throw new Error(`expected a request, got ${message._tag}`)
  return message
}

describe("Envelope.detach", () => {
  it("keeps every member: method, ids of each kind, nested params, a __proto__ member as an own property", () => {
    const text = JSON.stringify({
      jsonrpc: "2.0",
      id: "a-string-id-longer-than-thirteen",
      method: "subscriptions/listen",
      params: {
        notifications: { toolsListChanged: true, resourceSubscriptions: ["file:///a/long/uri/one", "file:///b"] },
        _meta: { "io.modelcontextprotocol/clientInfo": { name: "a client with a long name", version: "1.0.0" } },
        list: [1, -0.5, null, false, "", [["deep string value here"]]],
        empty: {}
      }
    }).replace('"empty":{}', '"empty":{},"__proto__":{"polluted":"not the prototype"}')
    const request = decodeRequest(text)
    const detached = Envelope.detach(request)
    expect(detached).toEqual(request)
    expect(detached.params).not.toBe(request.params)
    expect(Object.getPrototypeOf(detached.params)).toBe(Object.prototype)
    expect(Object.hasOwn(detached.params, "__proto__")).toBe(true)
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined()

    for (const id of ["7", "9223372036854775807"]) {
      const numbered = decodeRequest(`{"jsonrpc":"2.0","id":${id},"method":"ping","params":{}}`)
      expect(Envelope.detach(numbered).id).toBe(numbered.id)
    }
    expect(typeof decodeRequest(`{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}`).id).toBe("bigint")
  })

  it("holds none of the frame: 20 requests of 1 MB frames, detached, hold under 2 MB", () => {
    v8.setFlagsFromString("--expose-gc")
    const gc = vm.runInNewContext("gc") as () => void
    // Each frame lives only in this function's call (not in a register of the test's frame).
    const keep = (index: number) =>
      Envelope.detach(decodeRequest(
        `{"jsonrpc":"2.0","id":"request-number-${index}-of-many","method":"subscriptions/listen-${index}",` +
          `"params":{"notifications":{"resourceSubscriptions":["file:///resource/${index}"]}}${" ".repeat(1_000_000)}}`
      ))
    gc()
    const before = process.memoryUsage().heapUsed
    const kept = Array.from({ length: 20 }, (_, index) => keep(index))
    gc()
    const held = process.memoryUsage().heapUsed - before
    expect(kept[3]?.method).toBe("subscriptions/listen-3")
    // Each string of a decoded request is cut from its frame: kept as is, the 20 requests held 20 MB.
    expect(held).toBeLessThan(2_000_000)
  })
})
