import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option, Schema } from "effect"
import { TestClock } from "effect/testing"
import { Content, Input, InputRequired, Keyring, McpServer, Prompt, Resource, ResourceTemplate, Tool } from "@snodo/core"
import { McpTestClient } from "@snodo/testing"
import type { InputRequests } from "@snodo/testing"

const NoInput = Schema.Struct({})

const NameForm = Input.form({
  message: "What is your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string", minLength: 1 } }, required: ["name"] }
})

const ColorForm = Input.form({
  message: "What is your favorite color?",
  requestedSchema: {
    type: "object",
    properties: { color: { type: "string", enum: ["red", "green", "blue"] }, shade: { type: "integer", minimum: 1, maximum: 9 } },
    required: ["color"]
  }
})

let finalized = 0

const greet = Tool.make("greet", { input: NoInput }, () =>
  Effect.gen(function*() {
    const answer = yield* Input.elicit("user_name", NameForm)
    if (answer.action !== "accept") return `No name (${answer.action})`
    return `Hello, ${answer.content.name}!`
  }).pipe(Effect.ensuring(Effect.sync(() => void finalized++))))

const Rounds = Input.state("rounds", Schema.Number)

const threeRounds = Tool.make("three_rounds", { input: Schema.Struct({ topic: Schema.String }) }, ({ topic }) =>
  Effect.gen(function*() {
    const seen = Option.getOrElse(yield* Rounds.get, () => 0)
    yield* Rounds.set(seen + 1)
    const name = yield* Input.elicit("step1", NameForm)
    if (name.action !== "accept") return "stopped"
    const color = yield* Input.elicit("step2", ColorForm)
    if (color.action !== "accept") return "stopped"
    return `${name.content.name} likes ${color.content.color} (${topic}, ${seen + 1} runs)`
  }))

const gather = Tool.make("gather", { input: NoInput }, () =>
  Effect.gen(function*() {
    const { greeting, name, where } = yield* Input.all({
      name: Input.elicit("user_name", NameForm),
      greeting: Input.sample("greeting", {
        messages: [{ role: "user", content: { type: "text", text: "Generate a greeting" } }],
        maxTokens: 50
      }),
      where: Input.roots("client_roots")
    })
    const text = Array.isArray(greeting.content) ? "" : (greeting.content as { readonly text?: string }).text
    return `${name.action}; ${text}; ${where.length} root(s)`
  }))

const toolSampling = Tool.make("tool_sampling", { input: NoInput }, () =>
  Effect.gen(function*() {
    const result = yield* Input.sample("plan", {
      messages: [{ role: "user", content: { type: "text", text: "Weather in Paris?" } }],
      maxTokens: 100,
      includeContext: "thisServer",
      tools: [{ name: "get_weather", inputSchema: { type: "object", properties: { city: { type: "string" } } } }]
    })
    return result.model
  }))

const visit = Tool.make("visit", { input: NoInput }, () =>
  Effect.gen(function*() {
    const consent = yield* Input.elicitUrl("connect", { message: "Connect your account", url: "https://example.com/connect" })
    return consent.action
  }))

const choose = Tool.make("choose", { input: NoInput }, () =>
  Effect.gen(function*() {
    const ask = Input.elicit("pick", NameForm)
    const sample = Input.sample("guess", { messages: [{ role: "user", content: { type: "text", text: "?" } }], maxTokens: 5 })
    const wanted: Array<Input.Ask<unknown>> = []
    for (const input of [ask, sample] as const) if (yield* Input.supports(input)) wanted.push(input)
    if (wanted.length === 0) return "none"
    const answers = yield* Input.all(wanted)
    return `answered ${answers.length}`
  }))

const swallow = Tool.make("swallow", { input: NoInput }, () =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(Input.elicit("user_name", NameForm))
    return Exit.isSuccess(exit) ? "answered" : "swallowed"
  }))

const lowLevel = Tool.make("low_level", { input: NoInput }, () =>
  Effect.gen(function*() {
    const stored = yield* Input.requestState
    const responses = yield* Input.responses
    if (Option.isNone(stored)) {
      return InputRequired.make({
        inputRequests: {
          ok: { method: "elicitation/create", params: { message: "Proceed?", requestedSchema: { type: "object", properties: {} } } }
        },
        requestState: { step: 1 }
      })
    }
    return `step ${JSON.stringify(stored.value)} ${String(responses["ok"]?.["action"])}`
  }))

const lowLevelEmpty = Tool.make("low_level_empty", { input: NoInput }, () => Effect.succeed(InputRequired.make({})))

const lowLevelBad = Tool.make("low_level_bad", { input: NoInput }, () =>
  Effect.succeed(InputRequired.make({
    inputRequests: {
      bad: { method: "elicitation/create", params: { message: "x", requestedSchema: { type: "object", properties: { n: { type: "object" } } } } } as never
    }
  })))

const inlineBadForm = Tool.make("inline_bad_form", { input: NoInput }, () =>
  Effect.gen(function*() {
    const answer = yield* Input.elicit("x", {
      message: "Pattern?",
      requestedSchema: { type: "object", properties: { n: { type: "string", pattern: "^a" } as never } }
    })
    return answer.action
  }))

const needsSampling = Tool.make("needs_sampling", { input: NoInput }, () =>
  Effect.gen(function*() {
    yield* Input.requireCapabilities({ sampling: {} })
    return "Success"
  }))

const secret = Resource.make({ uri: "mrtr://secret", name: "secret" }, () =>
  Effect.gen(function*() {
    const answer = yield* Input.elicit("who", NameForm)
    return Content.textContents("mrtr://secret", answer.action === "accept" ? `for ${answer.content.name}` : "nobody")
  }))

const profile = ResourceTemplate.make({ uriTemplate: "mrtr://profiles/{id}", name: "profile" }, ({ uri, variables }) =>
  Effect.gen(function*() {
    const answer = yield* Input.elicit("confirm", { message: `Show ${String(variables["id"])}?`, requestedSchema: { type: "object", properties: {} } })
    return answer.action === "accept" ? Content.textContents(uri, `profile ${String(variables["id"])}`) : undefined
  }))

const contextual = Prompt.make("contextual", {
  description: "A prompt that asks for context",
  complete: {
    topic: () => Input.elicit("nope", NameForm).pipe(Effect.as(["x"]))
  },
  arguments: { topic: { description: "topic" } }
}, () =>
  Effect.gen(function*() {
    const answer = yield* Input.elicit("user_context", {
      message: "What context should the prompt use?",
      requestedSchema: { type: "object", properties: { context: { type: "string" } }, required: ["context"] }
    })
    return [Prompt.user(answer.action === "accept" ? `Prompt with context: ${answer.content.context}` : "no context")]
  }))

const Server = McpServer.make({ name: "mrtr", version: "1.0.0" }).add(
  greet,
  threeRounds,
  gather,
  toolSampling,
  visit,
  choose,
  swallow,
  lowLevel,
  lowLevelEmpty,
  lowLevelBad,
  inlineBadForm,
  needsSampling,
  secret,
  profile,
  contextual
)

const secretA = new Uint8Array(32).fill(7)
const secretB = new Uint8Array(32).fill(9)
const KeysA = Keyring.layer({ keys: [{ id: "a", secret: secretA }] })
const KeysB = Keyring.layer({ keys: [{ id: "b", secret: secretB }] })
const KeysRotated = Keyring.layer({ keys: [{ id: "b", secret: secretB }, { id: "a", secret: secretA }] })

const clientWith = (keys: Layer.Layer<Keyring.Keyring, Keyring.KeyringError>) =>
  McpTestClient.layer.pipe(Layer.provide(Server.layer), Layer.provide(keys), Layer.orDie)

const TestLayer = clientWith(KeysA)

const all = { elicitation: {}, sampling: {}, roots: {} }
const accept = (content: Record<string, unknown>) => ({ action: "accept", content })
const sampled = (text: string) => ({ role: "assistant", content: { type: "text", text }, model: "test-model", stopReason: "endTurn" })

const textOf = (result: Readonly<Record<string, unknown>>): string =>
  ((result["content"] as ReadonlyArray<{ readonly text: string }>)[0]!).text

const firstRound = (name: string, args: Record<string, unknown> = {}, capabilities: Record<string, unknown> = all) =>
  McpTestClient.use((client) => client.callTool(name, args, { capabilities }))

describe("MRTR: linear handlers", () => {
  it.effect("two rounds: asks, then completes with the answer; finalizers run when a round stops", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      finalized = 0
      const first = yield* firstRound("greet")
      expect(first.resultType).toBe("input_required")
      expect(first["inputRequests"]).toEqual({
        user_name: {
          method: "elicitation/create",
          params: { mode: "form", message: "What is your name?", requestedSchema: NameForm.requestedSchema }
        }
      })
      expect(typeof first["requestState"]).toBe("string")
      expect(first["ttlMs"]).toBeUndefined()
      expect(finalized).toBe(1)
      const done = yield* client.rounds("tools/call", { name: "greet", arguments: {} }, () => ({ user_name: accept({ name: "Ada", extra: 1 }) }), {
        capabilities: all
      })
      expect(done.interim).toHaveLength(1)
      expect(done.result.resultType).toBe("complete")
      expect(textOf(done.result)).toBe("Hello, Ada!")
    }).pipe(Effect.provide(TestLayer)))

  it.effect("decline and cancel are values the handler reads", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      for (const action of ["decline", "cancel"]) {
        const result = yield* client.callTool("greet", {}, { capabilities: all }).pipe(
          Effect.andThen(client.request("tools/call", { name: "greet", arguments: {}, inputResponses: { user_name: { action } } }, { capabilities: all }))
        )
        expect(textOf(result)).toBe(`No name (${action})`)
      }
    }).pipe(Effect.provide(TestLayer)))

  it.effect("three rounds: earlier answers and state are carried in the sealed state", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const asked: Array<InputRequests> = []
      const done = yield* client.rounds("tools/call", { name: "three_rounds", arguments: { topic: "paint" } }, (requests) => {
        asked.push(requests)
        return "step1" in requests ? { step1: accept({ name: "Ada" }) } : { step2: accept({ color: "blue" }) }
      }, { capabilities: all })
      expect(asked.map((requests) => Object.keys(requests))).toEqual([["step1"], ["step2"]])
      expect(done.interim[0]!["requestState"]).not.toBe(done.interim[1]!["requestState"])
      expect(textOf(done.result)).toBe("Ada likes blue (paint, 3 runs)")
    }).pipe(Effect.provide(TestLayer)))

  it.effect("Input.all asks every missing input in one round, and only those", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const first = yield* firstRound("gather")
      const requests = first["inputRequests"] as InputRequests
      expect(Object.keys(requests).toSorted()).toEqual(["client_roots", "greeting", "user_name"])
      expect(requests["client_roots"]).toEqual({ method: "roots/list", params: {} })
      const second = yield* client.request("tools/call", {
        name: "gather",
        arguments: {},
        requestState: first["requestState"],
        inputResponses: { user_name: accept({ name: "Ada" }) }
      }, { capabilities: all })
      expect(Object.keys(second["inputRequests"] as InputRequests).toSorted()).toEqual(["client_roots", "greeting"])
      const done = yield* client.request("tools/call", {
        name: "gather",
        arguments: {},
        requestState: second["requestState"],
        inputResponses: { greeting: sampled("Hi!"), client_roots: { roots: [{ uri: "file:///a" }, { uri: "file:///b", name: "b" }] } }
      }, { capabilities: all })
      expect(textOf(done)).toBe("accept; Hi!; 2 root(s)")
    }).pipe(Effect.provide(TestLayer)))

  it.effect("a missing response is asked again, extra keys are ignored", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const again = yield* client.request("tools/call", { name: "greet", arguments: {}, inputResponses: { wrong_key: accept({ data: 1 }) } }, {
        capabilities: all
      })
      expect(again.resultType).toBe("input_required")
      expect(Object.keys(again["inputRequests"] as InputRequests)).toEqual(["user_name"])
      const done = yield* client.request("tools/call", {
        name: "greet",
        arguments: {},
        inputResponses: { user_name: accept({ name: "Alice" }), unknown_extra_key: accept({ foo: "bar" }), another: accept({ baz: 123 }) }
      }, { capabilities: all })
      expect(textOf(done)).toBe("Hello, Alice!")
    }).pipe(Effect.provide(TestLayer)))

  it.effect("a resource read and a template read ask for input", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const read = yield* client.rounds("resources/read", { uri: "mrtr://secret" }, () => ({ who: accept({ name: "Ada" }) }), { capabilities: all })
      expect(read.interim[0]!["ttlMs"]).toBeUndefined()
      expect(read.result["contents"]).toEqual([{ uri: "mrtr://secret", text: "for Ada" }])
      expect(read.result["ttlMs"]).toBe(0)
      const template = yield* client.rounds("resources/read", { uri: "mrtr://profiles/7" }, () => ({ confirm: { action: "accept" } }), {
        capabilities: all
      })
      expect(template.result["contents"]).toEqual([{ uri: "mrtr://profiles/7", text: "profile 7" }])
      const declined = yield* client.rounds("resources/read", { uri: "mrtr://profiles/7" }, () => ({ confirm: { action: "decline" } }), {
        capabilities: all
      }).pipe(Effect.flip)
      expect(declined.code).toBe(-32602)
    }).pipe(Effect.provide(TestLayer)))

  it.effect("a prompt asks for input; a completion provider cannot (-32603)", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const got = yield* client.rounds("prompts/get", { name: "contextual" }, () => ({ user_context: accept({ context: "test context" }) }), {
        capabilities: all
      })
      expect(got.interim[0]!["inputRequests"]).toHaveProperty("user_context")
      expect(got.result["messages"]).toEqual([{ role: "user", content: { type: "text", text: "Prompt with context: test context" } }])
      const completion = yield* client.complete({ type: "ref/prompt", name: "contextual" }, { name: "topic", value: "" }).pipe(Effect.flip)
      expect(completion.code).toBe(-32603)
    }).pipe(Effect.provide(TestLayer)))

  it.effect("URL elicitation needs elicitation.url and answers consent", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const refused = yield* firstRound("visit", {}, { elicitation: {} }).pipe(Effect.flip)
      expect(refused.code).toBe(-32021)
      expect(refused.data).toEqual({ requiredCapabilities: { elicitation: { url: {} } } })
      const done = yield* client.rounds("tools/call", { name: "visit", arguments: {} }, () => ({ connect: { action: "accept" } }), {
        capabilities: { elicitation: { url: {} } }
      })
      expect(done.interim[0]!["inputRequests"]).toEqual({
        connect: { method: "elicitation/create", params: { mode: "url", message: "Connect your account", url: "https://example.com/connect" } }
      })
      expect(textOf(done.result)).toBe("accept")
    }).pipe(Effect.provide(TestLayer)))

  it.effect("Input.supports lets a handler ask only what the client declared", () =>
    Effect.gen(function*() {
      const onlySampling = yield* firstRound("choose", {}, { sampling: {} })
      expect(Object.keys(onlySampling["inputRequests"] as InputRequests)).toEqual(["guess"])
      const none = yield* firstRound("choose", {}, {})
      expect(textOf(none)).toBe("none")
    }).pipe(Effect.provide(TestLayer)))

  it.effect("swallowing the stop does not change the answer", () =>
    Effect.gen(function*() {
      const first = yield* firstRound("swallow")
      expect(first.resultType).toBe("input_required")
    }).pipe(Effect.provide(TestLayer)))

  it.effect("Input.requireCapabilities refuses with -32021 naming the fragment", () =>
    Effect.gen(function*() {
      const refused = yield* firstRound("needs_sampling", {}, {}).pipe(Effect.flip)
      expect(refused.code).toBe(-32021)
      expect(refused.data).toEqual({ requiredCapabilities: { sampling: {} } })
      expect(textOf(yield* firstRound("needs_sampling", {}, { sampling: {} }))).toBe("Success")
    }).pipe(Effect.provide(TestLayer)))
})

describe("MRTR: the low-level form", () => {
  it.effect("a returned InputRequired is answered with sealed state, given back on retry", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const done = yield* client.rounds("tools/call", { name: "low_level", arguments: {} }, () => ({ ok: { action: "accept" } }), {
        capabilities: all
      })
      expect(done.interim[0]!["inputRequests"]).toHaveProperty("ok")
      expect(textOf(done.result)).toBe(`step {"step":1} accept`)
    }).pipe(Effect.provide(TestLayer)))

  it.effect("an empty InputRequired or an invalid request is a server error (-32603)", () =>
    Effect.gen(function*() {
      expect((yield* firstRound("low_level_empty").pipe(Effect.flip)).code).toBe(-32603)
      expect((yield* firstRound("low_level_bad").pipe(Effect.flip)).code).toBe(-32603)
    }).pipe(Effect.provide(TestLayer)))

  it.effect("a form outside the subset passed inline is a server error (-32603) when the handler runs", () =>
    Effect.gen(function*() {
      expect((yield* firstRound("inline_bad_form").pipe(Effect.flip)).code).toBe(-32603)
    }).pipe(Effect.provide(TestLayer)))

  it.effect("capabilities are checked for returned requests too", () =>
    Effect.gen(function*() {
      const refused = yield* firstRound("low_level", {}, {}).pipe(Effect.flip)
      expect(refused.code).toBe(-32021)
      expect(refused.data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } })
    }).pipe(Effect.provide(TestLayer)))
})

describe("MRTR: refusals", () => {
  it.effect("missing capabilities merge into one -32021 (sampling.tools, sampling.context, roots, form)", () =>
    Effect.gen(function*() {
      const gathered = yield* firstRound("gather", {}, {}).pipe(Effect.flip)
      expect(gathered.code).toBe(-32021)
      expect(gathered.data).toEqual({ requiredCapabilities: { elicitation: { form: {} }, sampling: {}, roots: {} } })
      const urlOnly = yield* firstRound("greet", {}, { elicitation: { url: {} } }).pipe(Effect.flip)
      expect(urlOnly.data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } })
      const tools = yield* firstRound("tool_sampling", {}, { sampling: {} }).pipe(Effect.flip)
      expect(tools.data).toEqual({ requiredCapabilities: { sampling: { tools: {}, context: {} } } })
      const ok = yield* firstRound("tool_sampling", {}, { sampling: { tools: {}, context: {} } })
      expect(ok.resultType).toBe("input_required")
    }).pipe(Effect.provide(TestLayer)))

  it.effect("an invalid response is -32602 naming the key and rule, never the value", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const cases: ReadonlyArray<readonly [string, string, Record<string, unknown>]> = [
        ["greet", "user_name", { action: "maybe" }],
        ["greet", "user_name", accept({ name: 12345 })],
        ["greet", "user_name", accept({ name: "" })],
        ["greet", "user_name", accept({})],
        ["gather", "greeting", { role: "assistant", content: { type: "text", text: "SECRET-VALUE" } }],
        ["gather", "greeting", { ...sampled("x"), content: { type: "tool_use", id: "1", name: "t", input: {} } }],
        ["gather", "client_roots", { roots: [{ uri: "https://SECRET-VALUE" }] }]
      ]
      for (const [tool, key, response] of cases) {
        const error = yield* client.request("tools/call", { name: tool, arguments: {}, inputResponses: { [key]: response } }, { capabilities: all }).pipe(
          Effect.flip
        )
        expect(error.code).toBe(-32602)
        expect(error.message).toContain(`"${key}"`)
        expect(error.message).not.toContain("SECRET-VALUE")
        expect(error.message).not.toContain("12345")
        expect(error.data).toBeUndefined()
      }
    }).pipe(Effect.provide(TestLayer)))

  it.effect("enum, integer and bound rules apply to accepted content", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const first = yield* firstRound("three_rounds", { topic: "t" })
      const second = yield* client.request("tools/call", {
        name: "three_rounds",
        arguments: { topic: "t" },
        requestState: first["requestState"],
        inputResponses: { step1: accept({ name: "Ada" }) }
      }, { capabilities: all })
      for (const content of [{ color: "pink" }, { color: "red", shade: 1.5 }, { color: "red", shade: 10 }]) {
        const error = yield* client.request("tools/call", {
          name: "three_rounds",
          arguments: { topic: "t" },
          requestState: second["requestState"],
          inputResponses: { step2: accept(content) }
        }, { capabilities: all }).pipe(Effect.flip)
        expect(error.code).toBe(-32602)
      }
    }).pipe(Effect.provide(TestLayer)))

  it.effect("a malformed retry envelope is -32602 before the handler runs", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      finalized = 0
      for (const extra of [{ inputResponses: null }, { inputResponses: [] }, { inputResponses: { user_name: 12345 } }, { requestState: 7 }]) {
        const error = yield* client.request("tools/call", { name: "greet", arguments: {}, ...extra }, { capabilities: all }).pipe(Effect.flip)
        expect(error.code).toBe(-32602)
      }
      expect(finalized).toBe(0)
    }).pipe(Effect.provide(TestLayer)))

  it.effect("tampered, replayed on other arguments, other method or expired state: the same -32602", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      const first = yield* firstRound("three_rounds", { topic: "a" })
      const state = first["requestState"] as string
      const retry = (params: Record<string, unknown>) =>
        client.request("tools/call", { inputResponses: { step1: accept({ name: "Ada" }) }, ...params }, { capabilities: all }).pipe(Effect.flip)
      const errors = [
        yield* retry({ name: "three_rounds", arguments: { topic: "a" }, requestState: `${state}-TAMPERED` }),
        yield* retry({ name: "three_rounds", arguments: { topic: "b" }, requestState: state }),
        yield* retry({ name: "three_rounds", arguments: { topic: "a", more: 1 }, requestState: state }),
        yield* retry({ name: "greet", arguments: { topic: "a" }, requestState: state }),
        yield* retry({ name: "three_rounds", arguments: { topic: "a" }, requestState: "x".repeat(16 * 1024 + 1) })
      ]
      yield* TestClock.adjust("301 seconds")
      errors.push(yield* retry({ name: "three_rounds", arguments: { topic: "a" }, requestState: state }))
      for (const error of errors) {
        expect(error.code).toBe(-32602)
        expect(error.message).toBe("Invalid or expired request state")
        expect(error.data).toBeUndefined()
      }
    }).pipe(Effect.provide(TestLayer)))

  it.effect("state sealed by an unknown key is refused; a rotated keyring still verifies the old key", () =>
    Effect.gen(function*() {
      const issued = yield* firstRound("three_rounds", { topic: "a" }).pipe(Effect.provide(TestLayer))
      const retry = McpTestClient.use((client) =>
        client.request("tools/call", {
          name: "three_rounds",
          arguments: { topic: "a" },
          requestState: issued["requestState"],
          inputResponses: { step1: accept({ name: "Ada" }) }
        }, { capabilities: all }))
      const unknown = yield* retry.pipe(Effect.flip, Effect.provide(clientWith(KeysB)))
      expect(unknown.message).toBe("Invalid or expired request state")
      const rotated = yield* retry.pipe(Effect.provide(clientWith(KeysRotated)))
      expect(rotated.resultType).toBe("input_required")
      expect((rotated["requestState"] as string).startsWith("v1.b.")).toBe(true)
    }))

  it.effect("tools/list and prompts/list never answer input_required", () =>
    Effect.gen(function*() {
      const client = yield* McpTestClient
      for (const method of ["tools/list", "prompts/list"]) {
        const result = yield* client.request(method, { inputResponses: { x: {} }, requestState: "junk" })
        expect(result.resultType).toBe("complete")
      }
    }).pipe(Effect.provide(TestLayer)))
})
