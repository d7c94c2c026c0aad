/**
 * Multi-round requests written linearly: ask the user (elicitation), the client's model (sampling)
 * or the client's roots from inside a tool, resource-read or prompt handler, top to bottom.
 *
 * ```ts
 * const name = yield* Input.elicit("user_name", NameForm)
 * ```
 *
 * **How a round ends.** Each input has a key, unique within the request. When the request carries
 * an answer for the key (in its `inputResponses`, or carried in its sealed `requestState` from an
 * earlier round) the input returns it, validated. When it does not, the handler stops there: the
 * runtime interrupts the handler's fiber (so its finalizers run, exactly as on cancellation) and
 * answers `resultType: "input_required"` with the requests gathered and a sealed `requestState`.
 * The client retries the same request with the answers; the same handler runs again from the top
 * and this time gets past the input. Nothing waits between rounds: no fiber, no executor slot, no
 * server-side memory. Interruption (rather than a typed failure) is the stop signal so that the
 * handler's error channel stays its own and an `Effect.catch` around an input cannot swallow it;
 * once an input is missing the round ends with `input_required` even if the handler intercepts
 * the interruption (`Effect.exit`, `catchCause`).
 *
 * The code before an input runs again on every round, so it should be cheap and deterministic, or
 * its results stored with {@link state}. Answers consumed in a round are carried to the next ones
 * inside the sealed state, so the client only answers the latest requests.
 *
 * **Several at once.** {@link all} asks every missing input of a group in one round.
 *
 * **Refusals.** An input the client has not declared the capability for stops the handler with
 * -32021 (`data.requiredCapabilities` merged over the group); an answer that does not validate
 * with -32602 naming the key and the rule, never the value. A request that breaks the spec (a bad
 * form, URL or sampling request) is the server's bug: the handler dies and the client sees -32603.
 * Forms are best defined once with {@link form}, which refuses a bad schema when the module loads.
 *
 * Only `tools/call`, `resources/read` and `prompts/get` may ask for input; anywhere else an input
 * is a defect (-32603).
 *
 * @example
 * ```ts
 * import { Effect, Schema } from "effect"
 * import * as Tool from "@snodo/core/Tool"
 * import * as Input from "@snodo/core/Input"
 *
 * const NameForm = Input.form({
 *   message: "What is your name?",
 *   requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
 * })
 *
 * const greet = Tool.make("greet", { input: Schema.Struct({}) }, () =>
 *   Effect.gen(function*() {
 *     const answer = yield* Input.elicit("user_name", NameForm)
 *     if (answer.action !== "accept") return "Maybe next time"
 *     return `Hello, ${answer.content.name}!`
 *   }))
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Exit, Option, Result, Schema } from "effect"
import type { JsonValue } from "@snodo/protocol/wire/Json"
import type { InputRequest } from "@snodo/protocol/wire/Mrtr"
import type { Root } from "@snodo/protocol/wire/Roots"
import type { CreateMessageRequestParams, CreateMessageResult } from "@snodo/protocol/wire/Sampling"
import * as ElicitationForm from "./internal/ElicitationForm.ts"
import { Ask, type Decoded, McpInput, session } from "./internal/McpInput.ts"
import * as Sampling from "./internal/Sampling.ts"
import { isObject } from "../pipeline/internal/IsObject.ts"

export { Ask, McpInput, type Answer, type Decoded, type Session } from "./internal/McpInput.ts"

/**
 * The answer to an elicitation.
 *
 * @category models
 * @since 0.1.0
 */
export type ElicitOutcome<C> =
  | { readonly action: "accept"; readonly content: C }
  | { readonly action: "decline" }
  | { readonly action: "cancel" }

/**
 * The answer to a URL elicitation: consent, not completion (the interaction is out of band).
 *
 * @category models
 * @since 0.1.0
 */
export type UrlOutcome = { readonly action: "accept" | "decline" | "cancel" }

const FormTypeId: unique symbol = Symbol.for("@snodo/core/Input/Form")

/**
 * A checked form: a message and a requested schema.
 *
 * @category models
 * @since 0.1.0
 */
export interface Form<S extends ElicitationForm.FormSchema> {
  readonly [FormTypeId]: typeof FormTypeId
  readonly message: string
  readonly requestedSchema: S
}

const checkedForms = new WeakMap<object, Form<ElicitationForm.FormSchema>>()

/**
 * Defines a form, refusing a schema outside the spec's restricted subset (or an empty message)
 * with an {@link ElicitationForm.ElicitationSchemaError} thrown at once: define forms at module
 * level and a bad one stops the program before it serves anything.
 *
 * @category combinators
 * @since 0.1.0
 */
export const form = <const S extends ElicitationForm.FormSchema>(options: {
  readonly message: string
  readonly requestedSchema: S
}): Form<S> => {
  const known = checkedForms.get(options)
  if (known !== undefined) return known as Form<S>
  const problems = [
    ...(typeof options.message !== "string" || options.message.length === 0 ? ["message must be a non-empty string"] : []),
    ...ElicitationForm.check(options.requestedSchema)
  ]
  if (problems.length > 0) {
    throw new ElicitationForm.ElicitationSchemaError({ message: `Invalid elicitation form: ${problems.join("; ")}` })
  }
  const checked: Form<S> = { [FormTypeId]: FormTypeId, message: options.message, requestedSchema: options.requestedSchema }
  checkedForms.set(options, checked)
  return checked
}

const actions = new Set(["accept", "decline", "cancel"])

const decodeAction = (response: unknown): "accept" | "decline" | "cancel" | undefined => {
  if (!isObject(response)) return undefined
  const action = response["action"]
  return typeof action === "string" && actions.has(action) ? action as "accept" | "decline" | "cancel" : undefined
}

/**
 * Asks the user to fill in a form (form-mode elicitation). The answer is `accept` with content
 * validated against the form (extra fields dropped), `decline` or `cancel`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const elicit = <const S extends ElicitationForm.FormSchema>(
  key: string,
  options: Form<S> | { readonly message: string; readonly requestedSchema: S }
): Ask<ElicitOutcome<ElicitationForm.ContentOf<S>>> => {
  const checked = FormTypeId in options ? options : form(options)
  const request: InputRequest = {
    method: "elicitation/create",
    params: {
      mode: "form",
      message: checked.message,
      requestedSchema: checked.requestedSchema as unknown as Extract<InputRequest["params"], { readonly requestedSchema: unknown }>["requestedSchema"]
    }
  }
  return new Ask(key, request, (response): Decoded<ElicitOutcome<ElicitationForm.ContentOf<S>>> => {
    const action = decodeAction(response)
    if (action === undefined) return Result.fail("action must be accept, decline or cancel")
    if (action !== "accept") return Result.succeed({ value: { action }, carry: { action } })
    const content = ElicitationForm.checkContent(checked.requestedSchema, (response as Record<string, unknown>)["content"])
    if (Result.isFailure(content)) return Result.fail(content.failure)
    const value = { action, content: content.success } as ElicitOutcome<ElicitationForm.ContentOf<S>>
    return Result.succeed({ value, carry: { action, content: content.success } as JsonValue })
  })
}

/**
 * Asks the user to visit a URL (URL-mode elicitation; http or https, a host, no userinfo). The
 * answer says whether the user consented; the interaction itself happens out of band.
 *
 * @category combinators
 * @since 0.1.0
 */
export const elicitUrl = (key: string, options: { readonly message: string; readonly url: string }): Ask<UrlOutcome> => {
  const problem = typeof options.message !== "string" || options.message.length === 0
    ? "message must be a non-empty string"
    : ElicitationForm.checkUrl(options.url)
  if (problem !== undefined) throw new ElicitationForm.ElicitationSchemaError({ message: `Invalid URL elicitation: ${problem}` })
  return new Ask(key, { method: "elicitation/create", params: { mode: "url", message: options.message, url: options.url } }, (response): Decoded<UrlOutcome> => {
    const action = decodeAction(response)
    return action === undefined
      ? Result.fail("action must be accept, decline or cancel")
      : Result.succeed({ value: { action }, carry: { action } })
  })
}

/**
 * Asks the client's model for a message (sampling, deprecated in 2026-07-28). The request is
 * checked when the input is created; the answer is a validated `CreateMessageResult`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const sample = (key: string, params: CreateMessageRequestParams): Ask<CreateMessageResult> => {
  const problems = Sampling.checkRequest(params)
  if (problems.length > 0) throw new Error(`Invalid sampling request "${key}": ${problems.join("; ")}`)
  return new Ask(key, { method: "sampling/createMessage", params }, (response) =>
    Result.map(Sampling.checkResponse(params, response), (value) => ({ value, carry: value as unknown as JsonValue })))
}

/**
 * Asks the client for its roots (deprecated in 2026-07-28). The answer is the list of roots, each
 * a `file://` URI.
 *
 * @category combinators
 * @since 0.1.0
 */
export const roots = (key: string): Ask<ReadonlyArray<Root>> =>
  new Ask(key, { method: "roots/list", params: {} }, (response) =>
    Result.map(Sampling.checkRoots(response), (value) => ({ value, carry: { roots: value } as unknown as JsonValue })))

type AnswerOf<T> = T extends Ask<infer A> ? A : never

/**
 * Asks several inputs in one round: every missing one is requested together. Takes a tuple or a
 * record of inputs and answers in the same shape.
 *
 * @category combinators
 * @since 0.1.0
 */
export function all<const T extends ReadonlyArray<Ask<unknown>>>(
  asks: T
): Effect.Effect<{ -readonly [K in keyof T]: AnswerOf<T[K]> }, never, McpInput>
export function all<const T extends Readonly<Record<string, Ask<unknown>>>>(
  asks: T
): Effect.Effect<{ -readonly [K in keyof T]: AnswerOf<T[K]> }, never, McpInput>
export function all(
  asks: ReadonlyArray<Ask<unknown>> | Readonly<Record<string, Ask<unknown>>>
): Effect.Effect<unknown, never, McpInput> {
  if (Array.isArray(asks)) return Effect.flatMap(session, (current) => current.ask(asks))
  const entries = Object.entries(asks as Readonly<Record<string, Ask<unknown>>>)
  return Effect.flatMap(session, (current) => current.ask(entries.map(([, ask]) => ask))).pipe(
    Effect.map((values) => Object.fromEntries(entries.map(([name], index) => [name, values[index]])))
  )
}

/**
 * Whether the client of the current request declared what this input needs. Use it to ask only
 * for what the client can answer.
 *
 * @category combinators
 * @since 0.1.0
 */
export const supports = (ask: Ask<unknown>): Effect.Effect<boolean, never, McpInput> =>
  Effect.map(session, (current) => current.supports(ask.request))

/**
 * Stops the handler with -32021 unless the client declared this capabilities fragment, e.g.
 * `{ sampling: {} }`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const requireCapabilities = (required: Readonly<Record<string, unknown>>): Effect.Effect<void, never, McpInput> =>
  Effect.flatMap(session, (current) => current.requireCapabilities(required))

/**
 * The raw `inputResponses` of this request (each an object; otherwise unvalidated), for
 * low-level handlers.
 *
 * @category constants
 * @since 0.1.0
 */
export const responses: Effect.Effect<Readonly<Record<string, Readonly<Record<string, unknown>>>>, never, McpInput> = Effect.map(
  session,
  (current) => current.responses
)

/**
 * The state a low-level `InputRequired` stored in the previous round (verified), if any.
 *
 * @category constants
 * @since 0.1.0
 */
export const requestState: Effect.Effect<Option.Option<JsonValue>, never, McpInput> = Effect.map(
  session,
  (current) => Option.fromUndefinedOr(current.requestState)
)

/**
 * Typed state that survives rounds.
 *
 * @category models
 * @since 0.1.0
 */
export interface State<A> {
  /** The value stored in an earlier round of this request, if any. */
  readonly get: Effect.Effect<Option.Option<A>, never, McpInput>
  /** Stores a value for the following rounds (sealed into the next `requestState`). */
  readonly set: (value: A) => Effect.Effect<void, never, McpInput>
  /** Forgets the value. */
  readonly clear: Effect.Effect<void, never, McpInput>
}

/**
 * State that survives rounds, under a key and encoded as JSON with a schema. State is explicit
 * because the handler re-runs from the top on each round: what it learnt before an input and
 * must not recompute goes here. It is signed, not encrypted: the client can read it.
 *
 * @example
 * ```ts
 * import { Effect, Option, Schema } from "effect"
 * import * as Input from "@snodo/core/Input"
 *
 * const Attempts = Input.state("attempts", Schema.Number)
 *
 * const program = Effect.gen(function*() {
 *   const attempts = Option.getOrElse(yield* Attempts.get, () => 0)
 *   yield* Attempts.set(attempts + 1)
 * })
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const state = <S extends Schema.Top & { readonly DecodingServices: never; readonly EncodingServices: never }>(
  key: string,
  schema: S
): State<S["Type"]> => {
  const codec = Schema.toCodecJson(schema) as unknown as Schema.Codec<S["Type"], JsonValue>
  const decode = Schema.decodeUnknownExit(codec)
  const encode = Schema.encodeUnknownExit(codec)
  return {
    get: Effect.flatMap(session, (current) => {
      const stored = current.getState(key)
      if (stored === undefined) return Effect.succeed(Option.none())
      const decoded = decode(stored)
      return Exit.isSuccess(decoded) ? Effect.succeed(Option.some(decoded.value)) : current.invalidState
    }),
    set: (value) =>
      Effect.flatMap(session, (current) => {
        const encoded = encode(value)
        if (Exit.isFailure(encoded)) return Effect.die(new Error(`Input.state "${key}": the value does not encode with its schema`))
        current.setState(key, encoded.value)
        return Effect.void
      }),
    clear: Effect.map(session, (current) => current.setState(key, undefined))
  }
}
