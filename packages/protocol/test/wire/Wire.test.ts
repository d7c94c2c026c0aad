import { describe, expect, it, vi } from "@effect/vitest"
import * as Capabilities from "@snodo/protocol/wire/Capabilities"
import * as Completion from "@snodo/protocol/wire/Completion"
import * as Content from "@snodo/protocol/wire/Content"
import * as Discover from "@snodo/protocol/wire/Discover"
import * as Json from "@snodo/protocol/wire/Json"
import * as Meta from "@snodo/protocol/wire/Meta"
import * as Elicitation from "@snodo/protocol/wire/Elicitation"
import * as Mrtr from "@snodo/protocol/wire/Mrtr"
import * as Notifications from "@snodo/protocol/wire/Notifications"
import * as Prompts from "@snodo/protocol/wire/Prompts"
import * as Resources from "@snodo/protocol/wire/Resources"
import * as Roots from "@snodo/protocol/wire/Roots"
import * as Sampling from "@snodo/protocol/wire/Sampling"
import * as Tools from "@snodo/protocol/wire/Tools"
import { Exit, Schema } from "effect"
import { definitionNames, officialExamples, validateDefinition } from "../../../../test/support/OfficialSchema.ts"

type AnyCodec = Schema.Codec<unknown, unknown, never, never>

const modules = {
  Capabilities,
  Completion,
  Content,
  Discover,
  Elicitation,
  Json,
  Meta,
  Mrtr,
  Notifications,
  Prompts,
  Resources,
  Roots,
  Sampling,
  Tools
}

/** Every exported schema, by export name (which is the spec's type name). */
const schemas = new Map<string, AnyCodec>(
  Object.values(modules).flatMap((module) =>
    Object.entries(module).filter(([, value]) => Schema.isSchema(value)).map(
      ([name, value]) => [name, value as unknown as AnyCodec] as const
    )
  )
)

/** Export names that differ from the spec's (`JSONValue` is spelled the Effect way). */
const renamed: Readonly<Record<string, string>> = { JsonValue: "JSONValue", JsonObject: "JSONObject" }

const examples = officialExamples

/**
 * Example fields our (closed) schemas drop because the spec type does not have them. The official
 * ListRootsRequest example still carries the JSON-RPC `id` of its pre-MRTR form, but an embedded
 * `InputRequest` is `{ method, params? }` only (schema.json does not forbid extra keys, so it passes).
 */
const droppedFields: Readonly<Record<string, ReadonlyArray<string>>> = {
  "ListRootsRequest/list-roots-request.json": ["id"]
}

const without = (value: unknown, keys: ReadonlyArray<string>): unknown =>
  keys.length === 0 ? value : Object.fromEntries(
    Object.entries(value as Record<string, unknown>).filter(([key]) => !keys.includes(key))
  )

const decode = (name: string, value: unknown) => Schema.decodeUnknownExit(schemas.get(name)!)(value)
const accepts = (name: string, value: unknown) => Exit.isSuccess(decode(name, value))
const roundTrip = (name: string, value: unknown) => {
  const schema = schemas.get(name)!
  return Schema.encodeUnknownSync(schema)(Schema.decodeUnknownSync(schema)(value))
}

describe("wire schemas", () => {
  it("every exported schema is named after an official definition", () => {
    // UnknownObject is the spec's `{ [key: string]: unknown }`, which has no name of its own
    const names = [...schemas.keys()].filter((name) => name !== "UnknownObject").map((name) => renamed[name] ?? name)
    expect(names.filter((name) => !definitionNames.includes(name))).toEqual([])
  })

  it("covers the examples it is expected to cover", () => {
    const covered = new Set(examples.filter((e) => schemas.has(e.typeName)).map((e) => e.typeName))
    for (const name of ["CallToolResult", "Tool", "DiscoverResult", "InputRequiredResult", "ElicitResult"]) {
      expect(covered.has(name)).toBe(true)
    }
    expect(covered.size).toBeGreaterThan(50)
  })

  describe("every example of a type we model decodes, and encodes back to valid, identical JSON", () => {
    for (const { typeName, file, value } of examples.filter((e) => schemas.has(e.typeName))) {
      it(`${typeName}/${file}`, () => {
        const schema = schemas.get(typeName)!
        const decoded = Schema.decodeUnknownExit(schema)(value)
        if (Exit.isFailure(decoded)) throw new Error(String(decoded.cause))
        const encoded = Schema.encodeUnknownExit(schema)(decoded.value)
        if (Exit.isFailure(encoded)) throw new Error(String(encoded.cause))
        expect(validateDefinition(typeName, encoded.value)).toEqual([])
        expect(encoded.value).toEqual(without(value, droppedFields[`${typeName}/${file}`] ?? []))
      })
    }
  })

  describe("rejects wrong shapes", () => {
    const text = { type: "text", text: "hi" }
    const tool = { name: "t", inputSchema: { type: "object" } }
    const list = { resultType: "complete", ttlMs: 0, cacheScope: "public" }

    it("content blocks", () => {
      expect(accepts("TextContent", { type: "text", text: 1 })).toBe(false)
      expect(accepts("ContentBlock", { type: "video", data: "" })).toBe(false)
      expect(accepts("ImageContent", { type: "image", data: "not base64!", mimeType: "image/png" })).toBe(false)
      expect(accepts("Annotations", { priority: 2 })).toBe(false)
      expect(accepts("Annotations", { audience: ["system"] })).toBe(false)
      expect(accepts("EmbeddedResource", { type: "resource", resource: { uri: "file:///a" } })).toBe(false)
    })

    it("tools", () => {
      expect(accepts("Tool", { name: "t" })).toBe(false)
      expect(accepts("Tool", { name: "t", inputSchema: { type: "array" } })).toBe(false)
      expect(accepts("CallToolResult", { content: [text] })).toBe(false)
      expect(accepts("CallToolResult", { resultType: "complete", content: text })).toBe(false)
      expect(accepts("CallToolRequestParams", { arguments: {} })).toBe(false)
      expect(accepts("ListToolsResult", { ...list, tools: [tool], ttlMs: -1 })).toBe(false)
      expect(accepts("ListToolsResult", { ...list, tools: [tool], cacheScope: "shared" })).toBe(false)
      expect(accepts("ListToolsResult", { resultType: "complete", tools: [tool] })).toBe(false)
    })

    it("common types", () => {
      expect(accepts("ProgressToken", 1.5)).toBe(false)
      expect(accepts("ProgressToken", null)).toBe(false)
      expect(accepts("RequestId", true)).toBe(false)
      expect(accepts("LoggingLevel", "verbose")).toBe(false)
      expect(accepts("Implementation", { name: "x" })).toBe(false)
      expect(accepts("Icon", { src: "https://x/i.png", theme: "blue" })).toBe(false)
      expect(accepts("JsonValue", Number.NaN)).toBe(false)
      expect(accepts("JsonObject", [])).toBe(false)
      expect(accepts("ClientCapabilities", { sampling: true })).toBe(false)
      expect(accepts("ServerCapabilities", { tools: { listChanged: "yes" } })).toBe(false)
    })

    it("resources, prompts, completion, discovery, notifications", () => {
      expect(accepts("Resource", { name: "r" })).toBe(false)
      expect(accepts("ReadResourceResult", { ...list, contents: [{ uri: "file:///a" }] })).toBe(false)
      expect(accepts("GetPromptRequestParams", { name: "p", arguments: { a: 1 } })).toBe(false)
      expect(accepts("PromptMessage", { role: "system", content: text })).toBe(false)
      const values = Array.from({ length: 101 }, (_, i) => `v${i}`)
      expect(accepts("CompleteResult", { resultType: "complete", completion: { values } })).toBe(false)
      expect(accepts("CompleteRequestParams", { ref: { type: "ref/tool", name: "x" }, argument: {} })).toBe(false)
      expect(accepts("DiscoverResult", { ...list, supportedVersions: "2026-07-28", capabilities: {} })).toBe(false)
      expect(accepts("ProgressNotificationParams", { progressToken: "t" })).toBe(false)
      expect(accepts("CancelledNotificationParams", { reason: "x" })).toBe(false)
      expect(accepts("SubscriptionsListenResult", { resultType: "complete", _meta: {} })).toBe(false)
    })

    it("MRTR", () => {
      expect(accepts("InputRequiredResult", { resultType: "input_required" })).toBe(false)
      expect(accepts("InputRequiredResult", { resultType: "complete", requestState: "s" })).toBe(false)
      expect(accepts("InputRequest", { method: "tools/call", params: {} })).toBe(false)
      expect(accepts("ElicitResult", { action: "maybe" })).toBe(false)
      expect(accepts("ElicitRequestURLParams", { mode: "url", message: "m" })).toBe(false)
      expect(accepts("PrimitiveSchemaDefinition", { type: "object" })).toBe(false)
      expect(accepts("StringSchema", { type: "string", format: "hostname" })).toBe(false)
      expect(accepts("CreateMessageRequestParams", { messages: [], maxTokens: 1.5 })).toBe(false)
      // A response is checked when its key is consumed (MRTR: ignore what is not needed), but each
      // must be an object.
      expect(accepts("CallToolRequestParams", { name: "t", inputResponses: { a: { action: "maybe" } } })).toBe(true)
      expect(accepts("CallToolRequestParams", { name: "t", inputResponses: { a: "yes" } })).toBe(false)
    })
  })

  describe("open objects keep unknown fields; closed ones drop them", () => {
    it("results, params and capabilities are open", () => {
      const result = { resultType: "complete", content: [], "com.example/extra": { a: 1 } }
      expect(roundTrip("CallToolResult", result)).toEqual(result)
      const params = { name: "t", task: { ttl: 1 }, _meta: { "com.example/x": 1 } }
      expect(roundTrip("CallToolRequestParams", params)).toEqual(params)
      const capabilities = { tools: { listChanged: true, custom: 1 }, futureCapability: {} }
      expect(roundTrip("ServerCapabilities", capabilities)).toEqual(capabilities)
      const inputSchema = { type: "object", properties: { a: { type: "number" } }, required: ["a"] }
      expect(roundTrip("Tool", { name: "t", inputSchema })).toEqual({ name: "t", inputSchema })
    })

    it("descriptors without an index signature in the spec are closed", () => {
      expect(roundTrip("TextContent", { type: "text", text: "hi", extra: 1 })).toEqual({ type: "text", text: "hi" })
    })

    it("a legacy enum keeps its enumNames through the PrimitiveSchemaDefinition union", () => {
      const legacy = { type: "string", enum: ["a", "b"], enumNames: ["A", "B"] }
      expect(roundTrip("PrimitiveSchemaDefinition", legacy)).toEqual(legacy)
    })
  })

  it("typed values encode to official JSON", () => {
    const tool: Tools.Tool = {
      name: "add",
      inputSchema: { type: "object", properties: { a: { type: "number" } } },
      annotations: { readOnlyHint: true }
    }
    const list: Tools.ListToolsResult = { resultType: "complete", ttlMs: 0, cacheScope: "public", tools: [tool] }
    const call: Tools.CallToolResult = {
      resultType: "complete",
      content: [{ type: "text", text: "3" }],
      structuredContent: { sum: 3 },
      _meta: { [Meta.ServerInfoKey]: { name: "calc", version: "1.0.0" } }
    }
    const pending: Mrtr.InputRequiredResult = {
      resultType: "input_required",
      inputRequests: {
        confirm: {
          method: "elicitation/create",
          params: { message: "Sure?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } }
        }
      },
      requestState: "opaque"
    }
    expect(validateDefinition("ListToolsResult", Schema.encodeSync(Tools.ListToolsResult)(list))).toEqual([])
    expect(validateDefinition("CallToolResult", Schema.encodeSync(Tools.CallToolResult)(call))).toEqual([])
    expect(validateDefinition("InputRequiredResult", Schema.encodeSync(Mrtr.InputRequiredResult)(pending)))
      .toEqual([])
  })

  it("each wire module loads on its own (no import cycle between Tools and the MRTR modules)", async () => {
    for (const load of [() => import("@snodo/protocol/wire/Tools"), () => import("@snodo/protocol/wire/Sampling"), () => import("@snodo/protocol/wire/Mrtr")]) {
      vi.resetModules()
      const module: Record<string, unknown> = await load()
      expect(Object.values(module).some((value) => Schema.isSchema(value))).toBe(true)
    }
    vi.resetModules()
    const sampling = await import("@snodo/protocol/wire/Sampling")
    const params = { messages: [], maxTokens: 1, tools: [{ name: "t", inputSchema: { type: "object" } }] }
    expect(Schema.decodeUnknownSync(sampling.CreateMessageRequestParams)(params)).toEqual(params)
  })
})

describe("_meta key grammar", () => {
  it("accepts keys with and without prefixes", () => {
    for (
      const key of [
        "progressToken",
        Meta.ProtocolVersionKey,
        "com.example/my-key_1.x",
        "a/b",
        "x",
        "com.example/",
        "",
        "a1.b-2.c/Z9"
      ]
    ) {
      expect(Meta.isValidMetaKey(key)).toBe(true)
    }
  })

  it("refuses malformed prefixes and names", () => {
    for (
      const key of [
        "1com.example/x",
        "com-.example/x",
        "com..example/x",
        ".com/x",
        "/x",
        "com.example/-x",
        "com.example/x_",
        "com.example/a/b",
        "com.example/x y",
        "-x",
        "x.",
        "é"
      ]
    ) {
      expect(Meta.isValidMetaKey(key)).toBe(false)
    }
  })

  it("reserves prefixes whose second label is modelcontextprotocol or mcp", () => {
    for (const key of ["io.modelcontextprotocol/x", "dev.mcp/", "org.modelcontextprotocol.api/x", "com.mcp.tools/y"]) {
      expect(Meta.isReservedMetaPrefix(key)).toBe(true)
    }
    for (const key of ["com.example.mcp/x", "mcp/x", "modelcontextprotocol/x", "progressToken", "com.example/x"]) {
      expect(Meta.isReservedMetaPrefix(key)).toBe(false)
    }
  })

  it("names the reserved keys", () => {
    expect([
      Meta.ProtocolVersionKey,
      Meta.ClientCapabilitiesKey,
      Meta.ClientInfoKey,
      Meta.LogLevelKey,
      Meta.ServerInfoKey,
      Meta.SubscriptionIdKey
    ].every((key) => Meta.isReservedMetaPrefix(key) && Meta.isValidMetaKey(key))).toBe(true)
    expect(Meta.LoggingLevel.literals).toHaveLength(8)
  })
})
