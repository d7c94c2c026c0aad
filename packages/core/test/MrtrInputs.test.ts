import { describe, expect, it } from "@effect/vitest"
import { Input } from "@snodo/core"
import * as ElicitationForm from "../src/mrtr/internal/ElicitationForm.ts"
import { Result } from "effect"
import * as InputCapabilities from "@snodo/core/extension/InputCapabilities"
import * as Sampling from "../src/mrtr/internal/Sampling.ts"

const form = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: "object", properties, ...extra })

describe("ElicitationForm.check", () => {
  it("accepts every shape of the spec's subset", () => {
    expect(ElicitationForm.check(form({
      name: { type: "string", title: "Name", description: "Your name", minLength: 1, maxLength: 50, default: "Ada" },
      email: { type: "string", format: "email" },
      when: { type: "string", format: "date-time" },
      age: { type: "integer", minimum: 0, maximum: 150, default: 30 },
      ratio: { type: "number", minimum: 0.5 },
      agree: { type: "boolean", default: false },
      color: { type: "string", enum: ["red", "green"], default: "red" },
      legacy: { type: "string", enum: ["a", "b"], enumNames: ["A", "B"] },
      titled: { type: "string", oneOf: [{ const: "#f00", title: "Red" }], default: "#f00" },
      many: { type: "array", minItems: 1, maxItems: 2, items: { type: "string", enum: ["x", "y"] }, default: ["x"] },
      manyTitled: { type: "array", items: { anyOf: [{ const: "x", title: "X" }] } }
    }, { required: ["name"], $schema: "https://json-schema.org/draft/2020-12/schema" }))).toEqual([])
    expect(ElicitationForm.check(form({}))).toEqual([])
  })

  it("refuses unknown keywords, nesting, bad bounds and defaults, naming the property", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [form({ name: { type: "string", pattern: "^a" } }), 'property "name": unknown keyword "pattern"'],
      [form({ nested: { type: "object", properties: {} } }), 'property "nested": "type" must be'],
      [form({ list: { type: "array", items: { type: "number" } } }), 'property "list": "items" must be'],
      [form({ n: { type: "string", minLength: 5, maxLength: 2 } }), '"minLength" exceeds "maxLength"'],
      [form({ n: { type: "string", minLength: -1 } }), '"minLength" must be a non-negative integer'],
      [form({ n: { type: "string", format: "ipv4" } }), '"format" must be one of'],
      [form({ n: { type: "string", enum: [] } }), '"enum" must be a non-empty array'],
      [form({ n: { type: "string", enum: ["a", "a"] } }), '"enum" repeats a value'],
      [form({ n: { type: "string", enum: ["a"], minLength: 1 } }), 'unknown keyword "minLength"'],
      [form({ n: { type: "string", enum: ["a"], default: "b" } }), '"default" is not one of the choices'],
      [form({ n: { type: "string", oneOf: [{ const: "a" }] } }), "exactly { const: string, title: string }"],
      [form({ n: { type: "integer", default: 1.5 } }), '"default" must be an integer'],
      [form({ n: { type: "number", minimum: 3, maximum: 1 } }), '"minimum" exceeds "maximum"'],
      [form({ n: { type: "boolean", default: "yes" } }), '"default" must be a boolean'],
      [form({ n: { type: "string", title: 1 } }), '"title" must be a string'],
      [form({ n: { type: "string" } }, { required: ["m"] }), '"required" names unknown property "m"'],
      [form({ n: { type: "string" } }, { additionalProperties: false }), 'unknown keyword "additionalProperties"'],
      [{ type: "array", properties: {} }, '"type" must be "object"'],
      ["nope", "requestedSchema must be an object"]
    ]
    for (const [schema, problem] of cases) expect(ElicitationForm.check(schema).join("; ")).toContain(problem)
  })

  it("Input.form refuses a bad form when it is defined", () => {
    expect(() =>
      Input.form({ message: "Hi", requestedSchema: { type: "object", properties: { n: { type: "string", pattern: "x" } as never } } })
    ).toThrow(/unknown keyword "pattern"/)
    expect(() => Input.form({ message: "", requestedSchema: { type: "object", properties: {} } })).toThrow(/message/)
  })
})

describe("ElicitationForm.checkContent", () => {
  const schema: ElicitationForm.FormSchema = {
    type: "object",
    properties: {
      name: { type: "string", minLength: 2, maxLength: 4 },
      email: { type: "string", format: "email" },
      site: { type: "string", format: "uri" },
      born: { type: "string", format: "date" },
      at: { type: "string", format: "date-time" },
      age: { type: "integer", minimum: 0, maximum: 120 },
      agree: { type: "boolean" },
      color: { type: "string", oneOf: [{ const: "r", title: "Red" }] },
      many: { type: "array", maxItems: 2, items: { type: "string", enum: ["x", "y", "z"] } }
    },
    required: ["name"]
  }

  it("keeps declared fields and drops the rest", () => {
    const checked = ElicitationForm.checkContent(schema, {
      name: "Ada",
      email: "ada@example.com",
      site: "https://example.com/x",
      born: "2024-02-29",
      at: "2024-02-29T23:59:60.5+01:00",
      age: 36,
      agree: true,
      color: "r",
      many: ["x", "z"],
      extra: "dropped"
    })
    expect(Result.isSuccess(checked)).toBe(true)
    expect(Object.keys(Result.getOrThrow(checked))).toEqual(["name", "email", "site", "born", "at", "age", "agree", "color", "many"])
  })

  it("names the field and the rule, never the value", () => {
    const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
      [{}, "content.name is required"],
      [{ name: "a" }, "content.name must have at least 2 characters"],
      [{ name: "ab😀cd" }, "content.name must have at most 4 characters"],
      [{ name: "Ada", email: "SECRET" }, "content.email must be a valid email"],
      [{ name: "Ada", site: "no scheme" }, "content.site must be a valid uri"],
      [{ name: "Ada", born: "2023-02-29" }, "content.born must be a valid date"],
      [{ name: "Ada", at: "2024-01-01 10:00" }, "content.at must be a valid date-time"],
      [{ name: "Ada", age: 1.5 }, "content.age must be an integer"],
      [{ name: "Ada", age: 121 }, "content.age must be at most 120"],
      [{ name: "Ada", agree: "yes" }, "content.agree must be a boolean"],
      [{ name: "Ada", color: "g" }, "content.color must be one of the choices"],
      [{ name: "Ada", many: ["x", "w"] }, "content.many must contain only the choices"],
      [{ name: "Ada", many: ["x", "y", "z"] }, "content.many must have at most 2 items"],
      [{ name: "Ada", many: ["x", "x"] }, "content.many must not repeat a choice"]
    ]
    for (const [content, reason] of cases) {
      const checked = ElicitationForm.checkContent(schema, content)
      expect(checked).toEqual(Result.fail(reason))
    }
    expect(ElicitationForm.checkContent(schema, ["x"])).toEqual(Result.fail("content must be an object"))
  })
})

describe("URL elicitation", () => {
  it("allows http(s) URLs with a host and no userinfo", () => {
    expect(ElicitationForm.checkUrl("https://example.com/connect?x=1")).toBeUndefined()
    expect(ElicitationForm.checkUrl("http://localhost:8080/")).toBeUndefined()
    expect(ElicitationForm.checkUrl("ftp://example.com")).toBe("url must use http or https")
    expect(ElicitationForm.checkUrl("javascript:alert(1)")).toBe("url must use http or https")
    expect(ElicitationForm.checkUrl("https://user:pw@example.com")).toBe("url must not carry userinfo")
    expect(ElicitationForm.checkUrl("/relative")).toBe("url must be an absolute URL")
    expect(() => Input.elicitUrl("k", { message: "Go", url: "file:///etc/passwd" })).toThrow(/http or https/)
  })
})

describe("Sampling", () => {
  const text = (value: string) => ({ type: "text", text: value })
  const base = { messages: [{ role: "user", content: text("Hi") }], maxTokens: 10 }
  const tool = { name: "get_weather", inputSchema: { type: "object" } }

  it("accepts valid requests, with a tool loop", () => {
    expect(Sampling.checkRequest(base)).toEqual([])
    expect(Sampling.checkRequest({
      ...base,
      messages: [
        { role: "user", content: text("Weather?") },
        { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "get_weather", input: { city: "Paris" } }] },
        { role: "user", content: [{ type: "tool_result", toolUseId: "c1", content: [text("18°C")] }] }
      ],
      tools: [tool],
      toolChoice: { mode: "auto" },
      modelPreferences: { hints: [{ name: "claude" }], costPriority: 0.3, speedPriority: 1, intelligencePriority: 0 }
    })).toEqual([])
  })

  it("refuses requests that break the spec", () => {
    const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
      [{ ...base, maxTokens: 0 }, "maxTokens must be a positive integer"],
      [{ ...base, maxTokens: 1.5 }, "does not match"],
      [{ ...base, messages: [] }, "messages must not be empty"],
      [{ ...base, messages: [{ role: "system", content: text("x") }] }, "does not match"],
      [{ ...base, messages: [{ role: "user", content: { type: "resource_link", uri: "x", name: "x" } }] }, "does not match"],
      [{ ...base, messages: [{ role: "user", content: [] }] }, "has no content"],
      [{ ...base, messages: [{ role: "user", content: [text("a"), { type: "tool_result", toolUseId: "1", content: [] }] }] }, "mixes tool results"],
      [{ ...base, messages: [{ role: "assistant", content: { type: "tool_result", toolUseId: "1", content: [] } }] }, "tool results belong to user"],
      [{ ...base, messages: [{ role: "user", content: { type: "tool_use", id: "1", name: "t", input: {} } }] }, "tool uses belong to assistant"],
      [{
        ...base,
        messages: [
          { role: "assistant", content: [{ type: "tool_use", id: "1", name: "t", input: {} }, { type: "tool_use", id: "2", name: "t", input: {} }] },
          { role: "user", content: [{ type: "tool_result", toolUseId: "1", content: [] }] }
        ]
      }, "must answer every tool use"],
      [{ ...base, toolChoice: { mode: "auto" } }, "toolChoice needs tools"],
      [{ ...base, toolChoice: { mode: "sometimes" }, tools: [tool] }, "does not match"],
      [{ ...base, tools: [tool, tool] }, "offered twice"],
      [{ ...base, modelPreferences: { costPriority: 1.5 } }, "does not match"]
    ]
    for (const [request, problem] of cases) expect(Sampling.checkRequest(request).join("; ")).toContain(problem)
    expect(() => Input.sample("k", { ...base, maxTokens: 0 } as never)).toThrow(/maxTokens/)
  })

  it("validates responses", () => {
    const request = base as never
    const ok = { role: "assistant", content: text("Paris"), model: "m", stopReason: "endTurn" }
    expect(Sampling.checkResponse(request, ok)).toEqual(Result.succeed(ok))
    expect(Sampling.checkResponse(request, { ...ok, model: undefined })).toEqual(Result.fail("not a CreateMessageResult (at model)"))
    expect(Sampling.checkResponse(request, { ...ok, content: { type: "tool_use", id: "1", name: "get_weather", input: {} } })).toEqual(
      Result.fail("tool use was not offered")
    )
    const withTools = { ...base, tools: [tool] } as never
    expect(Sampling.checkResponse(withTools, { ...ok, content: [{ type: "tool_use", id: "1", name: "get_weather", input: {} }] })._tag).toBe("Success")
    expect(Sampling.checkResponse(withTools, { ...ok, content: { type: "tool_use", id: "1", name: "rm_rf", input: {} } })).toEqual(Result.fail("tool use names a tool that was not offered"))
    expect(Sampling.checkResponse(withTools, { ...ok, content: { type: "tool_result", toolUseId: "1", content: [] } })).toEqual(Result.fail("a sampled message cannot carry tool results"))
  })

  it("roots must be file:// URIs", () => {
    expect(Sampling.checkRoots({ roots: [{ uri: "file:///a", name: "a" }] })).toEqual(Result.succeed([{ uri: "file:///a", name: "a" }]))
    expect(Sampling.checkRoots({ roots: [{ uri: "https://a" }] })).toEqual(Result.fail("roots.0.uri must be a file:// URI"))
    expect(Sampling.checkRoots({ nope: [] })).toEqual(Result.fail("not a ListRootsResult (at roots)"))
  })
})

describe("InputCapabilities", () => {
  const elicit = { method: "elicitation/create", params: { message: "m", requestedSchema: { type: "object", properties: {} } } }
  const url = { method: "elicitation/create", params: { mode: "url", message: "m", url: "https://x" } }

  it("maps each request to the capability it needs", () => {
    expect(InputCapabilities.missing(elicit, { elicitation: {} })).toBeUndefined()
    expect(InputCapabilities.missing(elicit, { elicitation: { form: {} } })).toBeUndefined()
    expect(InputCapabilities.missing(elicit, { elicitation: { url: {} } })).toEqual({ elicitation: { form: {} } })
    expect(InputCapabilities.missing(url, { elicitation: {} })).toEqual({ elicitation: { url: {} } })
    expect(InputCapabilities.missing({ method: "roots/list" }, { roots: { listChanged: true } })).toBeUndefined()
    expect(InputCapabilities.missing({ method: "sampling/createMessage", params: { includeContext: "none" } }, { sampling: {} })).toBeUndefined()
    expect(InputCapabilities.missing({ method: "sampling/createMessage", params: { includeContext: "allServers", tools: [{}] } }, { sampling: { tools: {} } }))
      .toEqual({ sampling: { context: {} } })
  })

  it("merges fragments and finds what a required fragment lacks", () => {
    expect(InputCapabilities.merge([{ elicitation: { form: {} } }, { elicitation: { url: {} } }, { roots: {} }])).toEqual({
      elicitation: { form: {}, url: {} },
      roots: {}
    })
    expect(InputCapabilities.lacking({ sampling: { tools: {} } }, { sampling: {} })).toEqual({ sampling: { tools: {} } })
    expect(InputCapabilities.lacking({ sampling: {} }, { sampling: { tools: {} } })).toBeUndefined()
  })
})
