/**
 * The MRTR (SEP-2322) fixtures of the everything server (FIXTURES.md §3.5): eight
 * `test_input_required_result_*` tools and the `test_input_required_result_prompt` prompt, written
 * with the linear `Input` API. Every `input_required` answer carries a sealed `requestState`
 * (verified on the retry, so the tampered-state probe gets -32602).
 */
import * as Input from "@snodo/core/Input"
import * as Prompt from "@snodo/core/Prompt"
import * as Tool from "@snodo/core/Tool"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

const NoInput = Schema.Struct({})

const NameForm = Input.form({
  message: "What is your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
})

const ConfirmForm = Input.form({
  message: "Please confirm",
  requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }
})

/** Marks that round 1 ran, so round 2 can tell a verified state from none. */
const Asked = Input.state("asked", Schema.Boolean)

const textOf = (content: unknown): string => {
  const block = Array.isArray(content) ? content[0] : content
  return typeof block === "object" && block !== null && "text" in block ? String(block.text) : ""
}

export const elicitation = Tool.make("test_input_required_result_elicitation", {
  description: "MRTR: asks for the user's name by elicitation, then greets them",
  input: NoInput
}, () =>
  Effect.gen(function*() {
    const answer = yield* Input.elicit("user_name", NameForm)
    return answer.action === "accept" ? `Hello, ${answer.content.name}!` : `No name given (${answer.action})`
  }))

export const sampling = Tool.make("test_input_required_result_sampling", {
  description: "MRTR: asks the client's model a question by sampling",
  input: NoInput
}, () =>
  Effect.gen(function*() {
    const result = yield* Input.sample("capital_question", {
      messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
      maxTokens: 100
    })
    return `Sampling result: ${textOf(result.content)}`
  }))

export const listRoots = Tool.make("test_input_required_result_list_roots", {
  description: "MRTR: asks the client for its roots",
  input: NoInput
}, () =>
  Effect.gen(function*() {
    const roots = yield* Input.roots("client_roots")
    return `Found ${roots.length} root(s)`
  }))

/**
 * Asks for a confirmation while carrying state across the round; `verifiedText` answers a retry
 * whose sealed requestState was opened (a tampered one never reaches the handler).
 */
const confirmWithState = (verifiedText: string) =>
  Effect.gen(function*() {
    const verified = Option.isSome(yield* Asked.get)
    yield* Asked.set(true)
    const answer = yield* Input.elicit("confirm", ConfirmForm)
    if (answer.action !== "accept" || answer.content.ok !== true) return "Not confirmed"
    return verified ? verifiedText : "Confirmed without requestState"
  })

export const requestState = Tool.make("test_input_required_result_request_state", {
  description: "MRTR: round-trips a sealed requestState with a confirmation",
  input: NoInput
}, () => confirmWithState("state-ok: requestState validated"))

export const multipleInputs = Tool.make("test_input_required_result_multiple_inputs", {
  description: "MRTR: asks for elicitation, sampling and roots in one round",
  input: NoInput
}, () =>
  Effect.gen(function*() {
    const { greeting, name, roots } = yield* Input.all({
      name: Input.elicit("user_name", NameForm),
      greeting: Input.sample("greeting", {
        messages: [{ role: "user", content: { type: "text", text: "Generate a greeting" } }],
        maxTokens: 50
      }),
      roots: Input.roots("client_roots")
    })
    const who = name.action === "accept" ? name.content.name : `(${name.action})`
    return `Name: ${who}; Greeting: ${textOf(greeting.content)}; Roots: ${roots.length}`
  }))

export const multiRound = Tool.make("test_input_required_result_multi_round", {
  description: "MRTR: asks two questions in two rounds, then answers",
  input: NoInput
}, () =>
  Effect.gen(function*() {
    const step1 = yield* Input.elicit("step1", {
      message: "Step 1: What is your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
    })
    if (step1.action !== "accept") return "Multi-round stopped at step 1"
    const step2 = yield* Input.elicit("step2", {
      message: "Step 2: What is your favorite color?",
      requestedSchema: { type: "object", properties: { color: { type: "string" } }, required: ["color"] }
    })
    if (step2.action !== "accept") return "Multi-round stopped at step 2"
    return `Multi-round complete for ${step1.content.name} who likes ${step2.content.color}`
  }))

export const tamperedState = Tool.make("test_input_required_result_tampered_state", {
  description: "MRTR: refuses a requestState that fails its integrity check",
  input: NoInput
}, () => confirmWithState("integrity-ok: state verified"))

const elicitInput = Input.elicit("elicit_input", {
  message: "Elicitation input",
  requestedSchema: { type: "object", properties: { value: { type: "string" } }, required: ["value"] }
})

const sampleInput = Input.sample("sample_input", {
  messages: [{ role: "user", content: { type: "text", text: "Sample request" } }],
  maxTokens: 50
})

export const capabilities = Tool.make("test_input_required_result_capabilities", {
  description: "MRTR: asks only for inputs the client declared capabilities for",
  input: NoInput
}, () =>
  Effect.gen(function*() {
    const supported: Array<Input.Ask<unknown>> = []
    for (const ask of [elicitInput, sampleInput]) if (yield* Input.supports(ask)) supported.push(ask)
    if (supported.length === 0) return "No supported capabilities declared"
    yield* Input.all(supported)
    return `capabilities-ok: received ${supported.map((ask) => ask.key).join(", ")}`
  }))

export const prompt = Prompt.make("test_input_required_result_prompt", {
  description: "MRTR: prompt that requires elicitation input"
}, () =>
  Effect.gen(function*() {
    const answer = yield* Input.elicit("user_context", {
      message: "What context should the prompt use?",
      requestedSchema: { type: "object", properties: { context: { type: "string" } }, required: ["context"] }
    })
    return [Prompt.user(`Prompt with context: ${answer.action === "accept" ? answer.content.context : "(none)"}`)]
  }))

/** The eight tools, in the order FIXTURES.md lists them (§3.1 rows 14–21). */
export const tools = [
  elicitation,
  sampling,
  listRoots,
  requestState,
  multipleInputs,
  multiRound,
  tamperedState,
  capabilities
] as const
