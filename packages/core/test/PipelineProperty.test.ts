import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import * as fc from "fast-check"
import { McpServer, Tool } from "@snodo/core"
import { McpTestClient } from "@snodo/testing"
import type { Client } from "@snodo/testing"

const echo = Tool.make("echo", { input: Schema.Struct({ text: Schema.String }) }, ({ text }) => Effect.succeed({ text }))
const Server = McpServer.make({ name: "property", version: "1.0.0" }).add(echo)

const withClient = <A>(f: (client: Client) => Promise<A>) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const client = yield* McpTestClient
      return yield* Effect.promise(() => f(client))
    }).pipe(Effect.provide(McpTestClient.layer.pipe(Layer.provide(Server.layer))))
  )

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {}
}

const valid = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "hi" }, _meta: meta } }

type Written = { jsonrpc?: unknown; id?: unknown; error?: { code?: unknown; message?: unknown }; result?: unknown }

const send = (client: Client, frame: string) =>
  Effect.runPromise(client.raw(frame)) as Promise<ReadonlyArray<Written>>

const wellFormed = (message: Written) => {
  expect(message.jsonrpc).toBe("2.0")
  expect(("result" in message) !== ("error" in message)).toBe(true)
  // Only an error whose request id could not be read goes without one; an id is never null.
  if ("result" in message) expect("id" in message).toBe(true)
  if ("id" in message) expect(message.id).not.toBeNull()
  if (message.error) {
    expect(typeof message.error.code).toBe("number")
    expect(typeof message.error.message).toBe("string")
  }
}

/**
 * Whether a number id's text is an integer in int64 range, as JSON-RPC ids may be (beyond
 * `Number.MAX_SAFE_INTEGER` the server keeps them exactly and echoes them). The frames checked
 * against this are `JSON.stringify`'s, so a number's text is `String(id)`: `1e+21` and `1.5` are
 * not integers as written.
 */
const isInt64Lexeme = (text: string): boolean =>
  /^-?(?:0|[1-9][0-9]*)$/.test(text) && BigInt(text) >= -(2n ** 63n) && BigInt(text) <= 2n ** 63n - 1n

/** A reference classification of a frame, written independently of the pipeline. */
const expectedCode = (frame: string): number | "result" | "none" => {
  let value: unknown
  try {
    value = JSON.parse(frame)
  } catch {
    return -32700
  }
  if (/"(\w*)"\s*:[^{}]*"\1"\s*:/.test(frame)) return "none" // possible duplicate keys: covered by StrictJson tests
  if (Array.isArray(value) || typeof value !== "object" || value === null) return -32600
  const message = value as Record<string, unknown>
  const hasId = "id" in message
  const id = message["id"]
  const idOk = typeof id === "string" ? Buffer.byteLength(id) <= 256 : typeof id === "number" && isInt64Lexeme(String(id))
  if (!("method" in message) && ("result" in message || "error" in message)) return "none"
  if (hasId && !idOk) return -32600
  if (message["jsonrpc"] !== "2.0") return hasId ? -32600 : "none"
  if (typeof message["method"] !== "string") return -32600
  const params = message["params"]
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) return hasId ? -32602 : "none"
  if (!hasId) return "none"
  return "result"
}

describe("codec and admission under arbitrary input", () => {
  it("arbitrary strings get one well-formed answer or none, never a crash", () =>
    withClient((client) =>
      fc.assert(
        fc.asyncProperty(fc.string({ unit: "binary", maxLength: 200 }), async (frame) => {
          const written = await send(client, frame)
          expect(written.length).toBeLessThanOrEqual(1)
          for (const message of written) wellFormed(message)
          const expected = expectedCode(frame)
          if (typeof expected === "number" && expected === -32700) expect(written[0]?.error?.code).toBe(-32700)
        }),
        { numRuns: 300 }
      )))

  it("mutated valid messages get exactly the expected code", () =>
    withClient((client) => {
      const field = fc.constantFrom("jsonrpc", "id", "method", "params")
      const replacement = fc.oneof(
        fc.constant(undefined),
        fc.jsonValue({ maxDepth: 2 }),
        fc.constantFrom(null, 1.5, "1.0", "x".repeat(300), [], {}, "2.0", 42, -1, "tools/list")
      )
      return fc.assert(
        fc.asyncProperty(field, replacement, async (key, value) => {
          const mutated: Record<string, unknown> = { ...valid }
          if (value === undefined) delete mutated[key]
          else mutated[key] = value
          const frame = JSON.stringify(mutated)
          const written = await send(client, frame)
          for (const message of written) wellFormed(message)
          const expected = expectedCode(frame)
          if (expected === "none") return
          if (expected === "result") {
            // Envelope is fine; admission, routing and the tool decide. Any answer is well-formed.
            expect(written.length).toBe(1)
            return
          }
          expect(written.length).toBe(1)
          expect(written[0]?.error?.code).toBe(expected)
          if (expected === -32600 && key === "id") expect(written[0]).not.toHaveProperty("id")
        }),
        {
          numRuns: 400,
          // Ids at the edges of what the server keeps: past the safe integers (kept as int64), past
          // int64 (refused), written with an exponent (refused).
          examples: [["id", 2 ** 53], ["id", -(2 ** 53) - 2], ["id", 2 ** 63], ["id", 1e21], ["id", 1.5]]
        }
      )
    }))

  it("mutated _meta gets a result or exactly -32602 / -32022", () =>
    withClient((client) =>
      fc.assert(
        fc.asyncProperty(
          fc.constantFrom(
            "io.modelcontextprotocol/protocolVersion",
            "io.modelcontextprotocol/clientCapabilities",
            "io.modelcontextprotocol/clientInfo",
            "io.modelcontextprotocol/logLevel",
            "progressToken"
          ),
          fc.jsonValue({ maxDepth: 2 }),
          async (key, value) => {
            const frame = JSON.stringify({ ...valid, params: { ...valid.params, _meta: { ...meta, [key]: value } } })
            const written = await send(client, frame)
            expect(written.length).toBe(1)
            wellFormed(written[0]!)
            const code = written[0]?.error?.code
            if (code !== undefined) expect([-32602, -32022]).toContain(code)
            if (code === -32022) expect(key).toBe("io.modelcontextprotocol/protocolVersion")
          }
        ),
        { numRuns: 300 }
      )))
})
