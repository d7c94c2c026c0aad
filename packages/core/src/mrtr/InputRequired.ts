/**
 * The low-level MRTR form: a handler returns an `InputRequired` value itself.
 *
 * A tool, resource-read or prompt handler may return `InputRequired.make({ inputRequests,
 * requestState })` instead of its result. The runtime checks the requests (shapes, elicitation
 * forms, URLs, sampling rules and the client's capabilities, exactly as for the linear `Input`
 * API) and answers `resultType: "input_required"`. `requestState` is any JSON value: the runtime
 * seals it (the wire `requestState` is always a sealed token, never the handler's own string) and
 * hands it back on the retry through `Input.requestState`; the retry's answers are in
 * `Input.responses`, checked only for shape (an object per key): validating them is the handler's
 * job in this form.
 *
 * @example
 * ```ts
 * import { Effect, Option, Schema } from "effect"
 * import * as Input from "@snodo/core/Input"
 * import * as InputRequired from "@snodo/core/InputRequired"
 * import * as Tool from "@snodo/core/Tool"
 *
 * const confirm = Tool.make("confirm", { input: Schema.Struct({}) }, () =>
 *   Effect.gen(function*() {
 *     const responses = yield* Input.responses
 *     const answer = responses["ok"]
 *     if (answer === undefined) {
 *       return InputRequired.make({
 *         inputRequests: {
 *           ok: {
 *             method: "elicitation/create",
 *             params: { message: "Proceed?", requestedSchema: { type: "object", properties: {} } }
 *           }
 *         },
 *         requestState: { asked: true }
 *       })
 *     }
 *     return answer["action"] === "accept" ? "Done" : "Cancelled"
 *   }))
 * ```
 *
 * @since 0.1.0
 */
import type { JsonValue } from "@snodo/protocol/wire/Json"
import type { InputRequest } from "@snodo/protocol/wire/Mrtr"

const TypeId: unique symbol = Symbol.for("@snodo/core/InputRequired")

/**
 * @category models
 * @since 0.1.0
 */
export interface InputRequired {
  readonly [TypeId]: typeof TypeId
  readonly inputRequests: Readonly<Record<string, InputRequest>>
  readonly requestState: JsonValue | undefined
}

/**
 * An `input_required` answer. At least one of the two fields is needed (with neither, the runtime
 * answers -32603: the spec forbids an empty `InputRequiredResult`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: {
  readonly inputRequests?: Readonly<Record<string, InputRequest>>
  readonly requestState?: JsonValue
}): InputRequired => ({
  [TypeId]: TypeId,
  inputRequests: options.inputRequests ?? {},
  requestState: options.requestState
})

/**
 * Whether a handler's value is an `InputRequired`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const is = (u: unknown): u is InputRequired => typeof u === "object" && u !== null && TypeId in u
