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
 * @category schemas
 * @since 0.1.0
 */
export const InputRequest = Schema.Union([CreateMessageRequest, ListRootsRequest, ElicitRequest])
/**
 * @category models
 * @since 0.1.0
 */
export type InputRequest = typeof InputRequest.Type

/**
 * The client's answer to one input request.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputResponse = Schema.Union([CreateMessageResult, ListRootsResult, ElicitResult])
/**
 * @category models
 * @since 0.1.0
 */
export type InputResponse = typeof InputResponse.Type

/**
 * Input requests keyed by server-assigned identifiers.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputRequests = Schema.Record(Schema.String, InputRequest)
/**
 * @category models
 * @since 0.1.0
 */
export type InputRequests = typeof InputRequests.Type

/**
 * Input responses keyed like the `InputRequests` they answer.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputResponses = Schema.Record(Schema.String, InputResponse)
/**
 * @category models
 * @since 0.1.0
 */
export type InputResponses = typeof InputResponses.Type

/**
 * An interim result asking for input; at least one of `inputRequests`, `requestState` is present.
 *
 * @category constants
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
/**
 * @category models
 * @since 0.1.0
 */
export type InputRequiredResult = typeof InputRequiredResult.Type
