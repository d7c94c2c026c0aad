/**
 * Multi round-trip requests (MRTR): the input requests a server embeds in an `input_required`
 * result (sampling, roots, elicitation: one module each) and the responses a client sends back on
 * retry.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ElicitRequest, ElicitResult } from "./Elicitation.ts"
import { OpenStruct } from "./Json.ts"
import { ResultFields } from "./Meta.ts"
import { ListRootsRequest, ListRootsResult } from "./Roots.ts"
import { CreateMessageRequest, CreateMessageResult } from "./Sampling.ts"

/**
 * A request the server asks the client to fulfil before retrying.
 *
 * @since 0.1.0
 */
export const InputRequest = Schema.Union([CreateMessageRequest, ListRootsRequest, ElicitRequest])
/** @since 0.1.0 */
export type InputRequest = typeof InputRequest.Type

/**
 * The client's answer to one input request.
 *
 * @since 0.1.0
 */
export const InputResponse = Schema.Union([CreateMessageResult, ListRootsResult, ElicitResult])
/** @since 0.1.0 */
export type InputResponse = typeof InputResponse.Type

/**
 * Input requests keyed by server-assigned identifiers.
 *
 * @since 0.1.0
 */
export const InputRequests = Schema.Record(Schema.String, InputRequest)
/** @since 0.1.0 */
export type InputRequests = typeof InputRequests.Type

/**
 * Input responses keyed like the `InputRequests` they answer.
 *
 * @since 0.1.0
 */
export const InputResponses = Schema.Record(Schema.String, InputResponse)
/** @since 0.1.0 */
export type InputResponses = typeof InputResponses.Type

/**
 * An interim result asking for input; at least one of `inputRequests`, `requestState` is present.
 *
 * @since 0.1.0
 */
export const InputRequiredResult = OpenStruct({
  ...ResultFields,
  resultType: Schema.Literal("input_required"),
  inputRequests: Schema.optionalKey(InputRequests),
  requestState: Schema.optionalKey(Schema.String)
}).check(
  Schema.makeFilter((result) =>
    result.inputRequests !== undefined || result.requestState !== undefined ||
    "an input_required result needs inputRequests or requestState"
  )
)
/** @since 0.1.0 */
export type InputRequiredResult = typeof InputRequiredResult.Type
