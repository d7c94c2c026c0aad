import { describe, expect, it } from "@effect/vitest"
import { definitionNames, officialExamples, validateDefinition, validateServerMessage } from "../support/OfficialSchema.ts"

const examples = officialExamples

const responseMethods: Readonly<Record<string, string>> = {
  CallToolResultResponse: "tools/call",
  ListToolsResultResponse: "tools/list",
  ListResourcesResultResponse: "resources/list",
  ReadResourceResultResponse: "resources/read",
  ListResourceTemplatesResultResponse: "resources/templates/list",
  ListPromptsResultResponse: "prompts/list",
  GetPromptResultResponse: "prompts/get",
  CompleteResultResponse: "completion/complete",
  DiscoverResultResponse: "server/discover",
  SubscriptionsListenResultResponse: "subscriptions/listen"
}

const errorObjects = ["ParseError", "InvalidRequestError", "MethodNotFoundError", "InvalidParamsError", "InternalError"]

/**
 * Examples that pass their own (permissive) definition but not the concrete one. The official
 * `ReadResourceResultResponse` example omits `ttlMs` and `cacheScope`, which `ReadResourceResult`
 * requires (and docs/server/utilities/caching.mdx makes a MUST); it only passes the response
 * definition through the `InputRequiredResult` branch of its `anyOf`, which needs nothing but a
 * `resultType` string.
 */
const knownConcreteFailures: Readonly<Record<string, ReadonlyArray<string>>> = {
  "ReadResourceResultResponse/read-resource-result-response.json": [
    "ReadResourceResult: must have required property 'cacheScope'",
    "ReadResourceResult: must have required property 'ttlMs'"
  ]
}

const envelope = (result: unknown) => ({ jsonrpc: "2.0", id: 1, result })

describe("official schema.json", () => {
  it("has examples, each named after a definition", () => {
    expect(examples.length).toBeGreaterThan(100)
    const unknown = [...new Set(examples.map((e) => e.typeName))].filter((name) => !definitionNames.includes(name))
    expect(unknown).toEqual([])
  })

  describe("every example validates against its own definition", () => {
    for (const { typeName, file, value } of examples) {
      it(`${typeName}/${file}`, () => {
        expect(validateDefinition(typeName, value)).toEqual([])
      })
    }
  })

  describe("validateServerMessage accepts every server-written example", () => {
    for (const { typeName, file, value } of examples) {
      const method = responseMethods[typeName]
      if (method !== undefined) {
        it(`${typeName}/${file} as the answer to ${method}`, () => {
          const expected = knownConcreteFailures[`${typeName}/${file}`] ?? []
          expect(validateServerMessage(value, { requestMethod: method })).toEqual(expected)
        })
      } else if (typeName.endsWith("Notification") || typeName.endsWith("Error")) {
        const message = errorObjects.includes(typeName) ? { jsonrpc: "2.0", id: 1, error: value } : value
        it(`${typeName}/${file}`, () => {
          expect(validateServerMessage(message, {})).toEqual([])
        })
      }
    }
    it("InputRequiredResult examples as answers to tools/call, prompts/get, resources/read", () => {
      for (const { value } of examples.filter((e) => e.typeName === "InputRequiredResult")) {
        for (const requestMethod of ["tools/call", "prompts/get", "resources/read"]) {
          expect(validateServerMessage(envelope(value), { requestMethod })).toEqual([])
        }
      }
    })
  })

  describe("negative cases", () => {
    const text = [{ type: "text", text: "hi" }]

    it("CallToolResultResponse requires resultType", () => {
      const message = { jsonrpc: "2.0", id: 1, result: { content: text } }
      expect(validateDefinition("CallToolResultResponse", message)).not.toEqual([])
      expect(validateServerMessage(message, { requestMethod: "tools/call" })).not.toEqual([])
    })

    it("a complete tools/call result is checked as CallToolResult, not through the input_required branch", () => {
      const message = envelope({ resultType: "complete" })
      // The official envelope's anyOf lets this through as an InputRequiredResult.
      expect(validateDefinition("CallToolResultResponse", message)).toEqual([])
      expect(validateServerMessage(message, { requestMethod: "tools/call" })).not.toEqual([])
    })

    it("input_required is refused where the method does not allow it, and needs a payload", () => {
      const result = { resultType: "input_required", requestState: "s" }
      expect(validateServerMessage(envelope(result), { requestMethod: "tools/list" })).not.toEqual([])
      expect(validateServerMessage(envelope({ resultType: "input_required" }), { requestMethod: "tools/call" }))
        .not.toEqual([])
    })

    it("list results need ttlMs and cacheScope", () => {
      const message = envelope({ resultType: "complete", tools: [] })
      expect(validateServerMessage(message, { requestMethod: "tools/list" })).not.toEqual([])
      const complete = envelope({ resultType: "complete", tools: [], ttlMs: 0, cacheScope: "public" })
      expect(validateServerMessage(complete, { requestMethod: "tools/list" })).toEqual([])
    })

    it("error responses are checked by code", () => {
      const unsupported = { jsonrpc: "2.0", id: 1, error: { code: -32022, message: "Unsupported protocol version" } }
      expect(validateServerMessage(unsupported, {})).not.toEqual([])
      const invalid = { jsonrpc: "2.0", id: 1, error: { code: -32602 } }
      expect(validateServerMessage(invalid, {})).not.toEqual([])
      const other = { jsonrpc: "2.0", id: 1, error: { code: -32000, message: "implementation-defined" } }
      expect(validateServerMessage(other, {})).toEqual([])
    })

    it("notifications are checked by method; unknown methods and requests are errors", () => {
      const progress = { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t" } }
      expect(validateServerMessage(progress, {})).not.toEqual([])
      expect(validateServerMessage({ jsonrpc: "2.0", method: "notifications/unknown" }, {})).not.toEqual([])
      expect(validateServerMessage({ jsonrpc: "2.0", id: 1, method: "roots/list" }, {})).not.toEqual([])
    })

    it("unplaceable messages are errors, never silent passes", () => {
      expect(validateServerMessage(envelope({ resultType: "complete" }), {})).not.toEqual([])
      expect(validateServerMessage(envelope({ resultType: "complete" }), { requestMethod: "nope" })).not.toEqual([])
      expect(validateServerMessage([], {})).not.toEqual([])
      expect(validateServerMessage({ jsonrpc: "2.0", id: 1, result: {}, error: {} }, {})).not.toEqual([])
      expect(validateDefinition("NoSuchDefinition", {})).not.toEqual([])
    })

    it("formats are checked (byte, uri)", () => {
      expect(validateDefinition("ImageContent", { type: "image", data: "not base64!", mimeType: "image/png" }))
        .not.toEqual([])
      expect(validateDefinition("Resource", { uri: "not a uri", name: "x" })).not.toEqual([])
    })
  })

  // schema.ts and schema.json disagree here; snodo's Effect Schemas follow schema.ts.
  describe("known differences between schema.json and schema.ts", () => {
    it("JSONValue omits null and non-integer numbers (schema.ts: number | null allowed)", () => {
      expect(validateDefinition("JSONValue", null)).not.toEqual([])
      expect(validateDefinition("JSONValue", 1.5)).not.toEqual([])
      expect(validateDefinition("JSONObject", { a: 1 })).toEqual([])
    })

    it("ElicitResult content omits non-integer numbers (schema.ts: number)", () => {
      expect(validateDefinition("ElicitResult", { action: "accept", content: { n: 1.5 } })).not.toEqual([])
    })
  })
})
