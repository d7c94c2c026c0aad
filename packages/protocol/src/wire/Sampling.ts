/**
 * Sampling (deprecated in 2026-07-28 but still embeddable in `input_required`): the
 * `sampling/createMessage` request a server embeds and the result a client sends back.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Role, SamplingMessageContentBlock } from "./Content.ts"
import { JsonObject, OpenStruct } from "./Json.ts"
import { MetaObject } from "./Meta.ts"
import { Tool } from "./Tools.ts"

const Unit = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))


/**
 * A hint for model selection (a model name substring); other keys are left to the client.
 *
 * @category constants
 * @since 0.1.0
 */
export const ModelHint = OpenStruct({ name: Schema.optionalKey(Schema.String) })
/**
 * @category models
 * @since 0.1.0
 */
export type ModelHint = typeof ModelHint.Type

/**
 * Advisory model-selection preferences: hints and priorities in 0..1.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ModelPreferences = Schema.Struct({
  hints: Schema.optionalKey(Schema.Array(ModelHint)),
  costPriority: Schema.optionalKey(Unit),
  speedPriority: Schema.optionalKey(Unit),
  intelligencePriority: Schema.optionalKey(Unit)
})
/**
 * @category models
 * @since 0.1.0
 */
export type ModelPreferences = typeof ModelPreferences.Type

/**
 * How the sampled model may use tools.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolChoice = Schema.Struct({
  mode: Schema.optionalKey(Schema.Literals(["auto", "required", "none"]))
})
/**
 * @category models
 * @since 0.1.0
 */
export type ToolChoice = typeof ToolChoice.Type

/**
 * A message to or from an LLM: one content block or several.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SamplingMessage = Schema.Struct({
  role: Role,
  content: Schema.Union([SamplingMessageContentBlock, Schema.Array(SamplingMessageContentBlock)]),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * @category models
 * @since 0.1.0
 */
export type SamplingMessage = typeof SamplingMessage.Type

/**
 * Params of `sampling/createMessage` (deprecated).
 *
 * @category schemas
 * @since 0.1.0
 */
export const CreateMessageRequestParams = Schema.Struct({
  messages: Schema.Array(SamplingMessage),
  modelPreferences: Schema.optionalKey(ModelPreferences),
  systemPrompt: Schema.optionalKey(Schema.String),
  includeContext: Schema.optionalKey(Schema.Literals(["none", "thisServer", "allServers"])),
  temperature: Schema.optionalKey(Schema.Finite),
  maxTokens: Schema.Int,
  stopSequences: Schema.optionalKey(Schema.Array(Schema.String)),
  metadata: Schema.optionalKey(JsonObject),
  // Lazy: Tools imports InputResponses from here, so the two modules form an import cycle.
  tools: Schema.optionalKey(Schema.Array(Schema.suspend(() => Tool))),
  toolChoice: Schema.optionalKey(ToolChoice)
})
/**
 * @category models
 * @since 0.1.0
 */
export type CreateMessageRequestParams = typeof CreateMessageRequestParams.Type

/**
 * The client's answer to `sampling/createMessage`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const CreateMessageResult = Schema.Struct({
  ...SamplingMessage.fields,
  model: Schema.String,
  stopReason: Schema.optionalKey(Schema.String)
})
/**
 * @category models
 * @since 0.1.0
 */
export type CreateMessageResult = typeof CreateMessageResult.Type

/**
 * An embedded `sampling/createMessage` request.
 *
 * @category schemas
 * @since 0.1.0
 */
export const CreateMessageRequest = Schema.Struct({
  method: Schema.Literal("sampling/createMessage"),
  params: CreateMessageRequestParams
})
/**
 * @category models
 * @since 0.1.0
 */
export type CreateMessageRequest = typeof CreateMessageRequest.Type
