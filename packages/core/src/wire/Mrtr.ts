/**
 * Multi round-trip requests (MRTR): the input requests a server embeds in an `input_required`
 * result (sampling, roots, elicitation) and the responses a client sends back on retry.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Role, SamplingMessageContentBlock } from "./Content.ts"
import { JsonObject, OpenStruct } from "./Json.ts"
import { MetaObject, ResultFields } from "./Meta.ts"
import { Tool } from "./Tools.ts"

const Unit = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }))
const title = Schema.optionalKey(Schema.String)
const description = Schema.optionalKey(Schema.String)
const Option = Schema.Struct({ const: Schema.String, title: Schema.String })

/**
 * A hint for model selection (a model name substring); other keys are left to the client.
 *
 * @since 0.1.0
 */
export const ModelHint = OpenStruct({ name: Schema.optionalKey(Schema.String) })
/** @since 0.1.0 */
export type ModelHint = typeof ModelHint.Type

/**
 * Advisory model-selection preferences: hints and priorities in 0..1.
 *
 * @since 0.1.0
 */
export const ModelPreferences = Schema.Struct({
  hints: Schema.optionalKey(Schema.Array(ModelHint)),
  costPriority: Schema.optionalKey(Unit),
  speedPriority: Schema.optionalKey(Unit),
  intelligencePriority: Schema.optionalKey(Unit)
})
/** @since 0.1.0 */
export type ModelPreferences = typeof ModelPreferences.Type

/**
 * How the sampled model may use tools.
 *
 * @since 0.1.0
 */
export const ToolChoice = Schema.Struct({
  mode: Schema.optionalKey(Schema.Literals(["auto", "required", "none"]))
})
/** @since 0.1.0 */
export type ToolChoice = typeof ToolChoice.Type

/**
 * A message to or from an LLM: one content block or several.
 *
 * @since 0.1.0
 */
export const SamplingMessage = Schema.Struct({
  role: Role,
  content: Schema.Union([SamplingMessageContentBlock, Schema.Array(SamplingMessageContentBlock)]),
  _meta: Schema.optionalKey(MetaObject)
})
/** @since 0.1.0 */
export type SamplingMessage = typeof SamplingMessage.Type

/**
 * Params of `sampling/createMessage` (deprecated).
 *
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
/** @since 0.1.0 */
export type CreateMessageRequestParams = typeof CreateMessageRequestParams.Type

/**
 * The client's answer to `sampling/createMessage`.
 *
 * @since 0.1.0
 */
export const CreateMessageResult = Schema.Struct({
  ...SamplingMessage.fields,
  model: Schema.String,
  stopReason: Schema.optionalKey(Schema.String)
})
/** @since 0.1.0 */
export type CreateMessageResult = typeof CreateMessageResult.Type

/**
 * A root directory or file the server may operate on (deprecated).
 *
 * @since 0.1.0
 */
export const Root = Schema.Struct({
  uri: Schema.String,
  name: Schema.optionalKey(Schema.String),
  _meta: Schema.optionalKey(MetaObject)
})
/** @since 0.1.0 */
export type Root = typeof Root.Type

/**
 * The client's answer to `roots/list` (deprecated).
 *
 * @since 0.1.0
 */
export const ListRootsResult = Schema.Struct({ roots: Schema.Array(Root) })
/** @since 0.1.0 */
export type ListRootsResult = typeof ListRootsResult.Type

/** A free-text field of an elicitation form. @since 0.1.0 */
export const StringSchema = Schema.Struct({
  type: Schema.Literal("string"),
  title,
  description,
  minLength: Schema.optionalKey(Schema.Int),
  maxLength: Schema.optionalKey(Schema.Int),
  format: Schema.optionalKey(Schema.Literals(["email", "uri", "date", "date-time"])),
  default: Schema.optionalKey(Schema.String)
})
/** @since 0.1.0 */
export type StringSchema = typeof StringSchema.Type

/** A numeric field of an elicitation form. @since 0.1.0 */
export const NumberSchema = Schema.Struct({
  type: Schema.Literals(["number", "integer"]),
  title,
  description,
  minimum: Schema.optionalKey(Schema.Finite),
  maximum: Schema.optionalKey(Schema.Finite),
  default: Schema.optionalKey(Schema.Finite)
})
/** @since 0.1.0 */
export type NumberSchema = typeof NumberSchema.Type

/** A yes/no field of an elicitation form. @since 0.1.0 */
export const BooleanSchema = Schema.Struct({
  type: Schema.Literal("boolean"),
  title,
  description,
  default: Schema.optionalKey(Schema.Boolean)
})
/** @since 0.1.0 */
export type BooleanSchema = typeof BooleanSchema.Type

/** Single choice among plain values. @since 0.1.0 */
export const UntitledSingleSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  title,
  description,
  enum: Schema.Array(Schema.String),
  default: Schema.optionalKey(Schema.String)
})
/** @since 0.1.0 */
export type UntitledSingleSelectEnumSchema = typeof UntitledSingleSelectEnumSchema.Type

/** Single choice among values with display titles. @since 0.1.0 */
export const TitledSingleSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  title,
  description,
  oneOf: Schema.Array(Option),
  default: Schema.optionalKey(Schema.String)
})
/** @since 0.1.0 */
export type TitledSingleSelectEnumSchema = typeof TitledSingleSelectEnumSchema.Type

/** Single choice with legacy `enumNames` display names (deprecated shape). @since 0.1.0 */
export const LegacyTitledEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  title,
  description,
  enum: Schema.Array(Schema.String),
  enumNames: Schema.optionalKey(Schema.Array(Schema.String)),
  default: Schema.optionalKey(Schema.String)
})
/** @since 0.1.0 */
export type LegacyTitledEnumSchema = typeof LegacyTitledEnumSchema.Type

/** Multiple choice among plain values. @since 0.1.0 */
export const UntitledMultiSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("array"),
  title,
  description,
  minItems: Schema.optionalKey(Schema.Int),
  maxItems: Schema.optionalKey(Schema.Int),
  items: Schema.Struct({ type: Schema.Literal("string"), enum: Schema.Array(Schema.String) }),
  default: Schema.optionalKey(Schema.Array(Schema.String))
})
/** @since 0.1.0 */
export type UntitledMultiSelectEnumSchema = typeof UntitledMultiSelectEnumSchema.Type

/** Multiple choice among values with display titles. @since 0.1.0 */
export const TitledMultiSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("array"),
  title,
  description,
  minItems: Schema.optionalKey(Schema.Int),
  maxItems: Schema.optionalKey(Schema.Int),
  items: Schema.Struct({ anyOf: Schema.Array(Option) }),
  default: Schema.optionalKey(Schema.Array(Schema.String))
})
/** @since 0.1.0 */
export type TitledMultiSelectEnumSchema = typeof TitledMultiSelectEnumSchema.Type

/** @since 0.1.0 */
export const SingleSelectEnumSchema = Schema.Union([TitledSingleSelectEnumSchema, UntitledSingleSelectEnumSchema])
/** @since 0.1.0 */
export type SingleSelectEnumSchema = typeof SingleSelectEnumSchema.Type

/** @since 0.1.0 */
export const MultiSelectEnumSchema = Schema.Union([TitledMultiSelectEnumSchema, UntitledMultiSelectEnumSchema])
/** @since 0.1.0 */
export type MultiSelectEnumSchema = typeof MultiSelectEnumSchema.Type

// Members are tried in order and unknown keys are dropped, so a shape that is a superset of another
// comes first: `enumNames` would otherwise be lost to UntitledSingleSelectEnumSchema.
/** @since 0.1.0 */
export const EnumSchema = Schema.Union([
  TitledSingleSelectEnumSchema,
  LegacyTitledEnumSchema,
  UntitledSingleSelectEnumSchema,
  TitledMultiSelectEnumSchema,
  UntitledMultiSelectEnumSchema
])
/** @since 0.1.0 */
export type EnumSchema = typeof EnumSchema.Type

/**
 * A field of an elicitation form: a flat, primitive JSON Schema.
 *
 * @since 0.1.0
 */
export const PrimitiveSchemaDefinition = Schema.Union([EnumSchema, StringSchema, NumberSchema, BooleanSchema])
/** @since 0.1.0 */
export type PrimitiveSchemaDefinition = typeof PrimitiveSchemaDefinition.Type

/**
 * Params of a form-mode `elicitation/create`.
 *
 * @since 0.1.0
 */
export const ElicitRequestFormParams = Schema.Struct({
  mode: Schema.optionalKey(Schema.Literal("form")),
  message: Schema.String,
  requestedSchema: Schema.Struct({
    $schema: Schema.optionalKey(Schema.String),
    type: Schema.Literal("object"),
    properties: Schema.Record(Schema.String, PrimitiveSchemaDefinition),
    required: Schema.optionalKey(Schema.Array(Schema.String))
  })
})
/** @since 0.1.0 */
export type ElicitRequestFormParams = typeof ElicitRequestFormParams.Type

/**
 * Params of a URL-mode `elicitation/create`.
 *
 * @since 0.1.0
 */
export const ElicitRequestURLParams = Schema.Struct({
  mode: Schema.Literal("url"),
  message: Schema.String,
  url: Schema.String
})
/** @since 0.1.0 */
export type ElicitRequestURLParams = typeof ElicitRequestURLParams.Type

/** @since 0.1.0 */
export const ElicitRequestParams = Schema.Union([ElicitRequestURLParams, ElicitRequestFormParams])
/** @since 0.1.0 */
export type ElicitRequestParams = typeof ElicitRequestParams.Type

/**
 * The client's answer to `elicitation/create`.
 *
 * @since 0.1.0
 */
export const ElicitResult = Schema.Struct({
  action: Schema.Literals(["accept", "decline", "cancel"]),
  content: Schema.optionalKey(
    Schema.Record(
      Schema.String,
      Schema.Union([Schema.String, Schema.Finite, Schema.Boolean, Schema.Array(Schema.String)])
    )
  )
})
/** @since 0.1.0 */
export type ElicitResult = typeof ElicitResult.Type

/** An embedded `sampling/createMessage` request. @since 0.1.0 */
export const CreateMessageRequest = Schema.Struct({
  method: Schema.Literal("sampling/createMessage"),
  params: CreateMessageRequestParams
})
/** @since 0.1.0 */
export type CreateMessageRequest = typeof CreateMessageRequest.Type

/** An embedded `roots/list` request. @since 0.1.0 */
export const ListRootsRequest = Schema.Struct({
  method: Schema.Literal("roots/list"),
  params: Schema.optionalKey(Schema.Struct({ _meta: Schema.optionalKey(MetaObject) }))
})
/** @since 0.1.0 */
export type ListRootsRequest = typeof ListRootsRequest.Type

/** An embedded `elicitation/create` request. @since 0.1.0 */
export const ElicitRequest = Schema.Struct({
  method: Schema.Literal("elicitation/create"),
  params: ElicitRequestParams
})
/** @since 0.1.0 */
export type ElicitRequest = typeof ElicitRequest.Type

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
