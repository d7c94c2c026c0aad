/**
 * The conformance fixtures of the 2025-11-25 requirements that ask the client for input
 * (`test_sampling`, `test_elicitation`, `test_elicitation_sep1034_defaults`,
 * `test_elicitation_sep1330_enums`), written once with `Input`: on 2026-07-28 they answer
 * `input_required` rounds, on 2025-11-25 they send server-to-client requests on the request's
 * stream and resume with the answer.
 */
import * as Input from "@snodo/core/Input"
import * as Tool from "@snodo/core/Tool"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const textOf = (content: unknown): string => {
  const block = Array.isArray(content) ? content[0] : content
  return typeof block === "object" && block !== null && "text" in block ? String(block.text) : ""
}

export const sampling = Tool.make("test_sampling", {
  description: "Asks the client's model to answer a prompt (sampling)",
  input: Schema.Struct({ prompt: Schema.String.annotate({ description: "The prompt to send to the LLM" }) })
}, ({ prompt }) =>
  Effect.gen(function*() {
    const result = yield* Input.sample("llm_response", {
      messages: [{ role: "user", content: { type: "text", text: prompt } }],
      maxTokens: 100
    })
    return `LLM response: ${textOf(result.content)}`
  }))

export const elicitation = Tool.make("test_elicitation", {
  description: "Asks the user for a username and an email (elicitation)",
  input: Schema.Struct({ message: Schema.String.annotate({ description: "The message to show the user" }) })
}, ({ message }) =>
  Effect.gen(function*() {
    const answer = yield* Input.elicit("user_info", {
      message,
      requestedSchema: {
        type: "object",
        properties: {
          username: { type: "string", description: "User's response" },
          email: { type: "string", description: "User's email address" }
        },
        required: ["username", "email"]
      }
    })
    return `User response: action=${answer.action}${answer.action === "accept" ? `, content=${JSON.stringify(answer.content)}` : ""}`
  }))

const DefaultsForm = Input.form({
  message: "Please review and update the form fields with defaults",
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string", description: "User name", default: "John Doe" },
      age: { type: "integer", description: "User age", default: 30 },
      score: { type: "number", description: "User score", default: 95.5 },
      status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
      verified: { type: "boolean", description: "Verification status", default: true }
    },
    required: []
  }
})

const EnumsForm = Input.form({
  message: "Please select options from the enum fields",
  requestedSchema: {
    type: "object",
    properties: {
      untitledSingle: { type: "string", description: "Select one option", enum: ["option1", "option2", "option3"] },
      titledSingle: {
        type: "string",
        description: "Select one option with titles",
        oneOf: [
          { const: "value1", title: "First Option" },
          { const: "value2", title: "Second Option" },
          { const: "value3", title: "Third Option" }
        ]
      },
      legacyEnum: {
        type: "string",
        description: "Select one option (legacy)",
        enum: ["opt1", "opt2", "opt3"],
        enumNames: ["Option One", "Option Two", "Option Three"]
      },
      untitledMulti: {
        type: "array",
        description: "Select multiple options",
        minItems: 1,
        maxItems: 3,
        items: { type: "string", enum: ["option1", "option2", "option3"] }
      },
      titledMulti: {
        type: "array",
        description: "Select multiple options with titles",
        minItems: 1,
        maxItems: 3,
        items: {
          anyOf: [
            { const: "value1", title: "First Choice" },
            { const: "value2", title: "Second Choice" },
            { const: "value3", title: "Third Choice" }
          ]
        }
      }
    },
    required: []
  }
})

const completed = (answer: { readonly action: string; readonly content?: unknown }) =>
  `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`

export const elicitationDefaults = Tool.make("test_elicitation_sep1034_defaults", {
  description: "Elicitation with a default for every primitive type (SEP-1034)",
  input: Schema.Struct({})
}, () => Effect.map(Input.elicit("defaults", DefaultsForm), completed))

export const elicitationEnums = Tool.make("test_elicitation_sep1330_enums", {
  description: "Elicitation with the five enum variants (SEP-1330)",
  input: Schema.Struct({})
}, () => Effect.map(Input.elicit("enums", EnumsForm), completed))

/** The four tools, in the order the 2025-11-25 requirements list their scenarios. */
export const tools = [sampling, elicitation, elicitationDefaults, elicitationEnums] as const
