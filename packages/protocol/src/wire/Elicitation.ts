/**
 * Elicitation: the form and URL requests a server embeds (`elicitation/create`) and the
 * client's answer.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

const title = Schema.optionalKey(Schema.String)
const description = Schema.optionalKey(Schema.String)
const Option = Schema.Struct({ const: Schema.String, title: Schema.String })


/**
 * A free-text field of an elicitation form.
 *
 * @category schemas
 * @since 0.1.0
 */
export const StringSchema = Schema.Struct({
  type: Schema.Literal("string"),
  title,
  description,
  minLength: Schema.optionalKey(Schema.Int),
  maxLength: Schema.optionalKey(Schema.Int),
  format: Schema.optionalKey(Schema.Literals(["email", "uri", "date", "date-time"])),
  default: Schema.optionalKey(Schema.String)
})
/**
 * @category models
 * @since 0.1.0
 */
export type StringSchema = typeof StringSchema.Type

/**
 * A numeric field of an elicitation form.
 *
 * @category schemas
 * @since 0.1.0
 */
export const NumberSchema = Schema.Struct({
  type: Schema.Literals(["number", "integer"]),
  title,
  description,
  minimum: Schema.optionalKey(Schema.Finite),
  maximum: Schema.optionalKey(Schema.Finite),
  default: Schema.optionalKey(Schema.Finite)
})
/**
 * @category models
 * @since 0.1.0
 */
export type NumberSchema = typeof NumberSchema.Type

/**
 * A yes/no field of an elicitation form.
 *
 * @category schemas
 * @since 0.1.0
 */
export const BooleanSchema = Schema.Struct({
  type: Schema.Literal("boolean"),
  title,
  description,
  default: Schema.optionalKey(Schema.Boolean)
})
/**
 * @category models
 * @since 0.1.0
 */
export type BooleanSchema = typeof BooleanSchema.Type

/**
 * Single choice among plain values.
 *
 * @category schemas
 * @since 0.1.0
 */
export const UntitledSingleSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  title,
  description,
  enum: Schema.Array(Schema.String),
  default: Schema.optionalKey(Schema.String)
})
/**
 * @category models
 * @since 0.1.0
 */
export type UntitledSingleSelectEnumSchema = typeof UntitledSingleSelectEnumSchema.Type

/**
 * Single choice among values with display titles.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TitledSingleSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  title,
  description,
  oneOf: Schema.Array(Option),
  default: Schema.optionalKey(Schema.String)
})
/**
 * @category models
 * @since 0.1.0
 */
export type TitledSingleSelectEnumSchema = typeof TitledSingleSelectEnumSchema.Type

/**
 * Single choice with legacy `enumNames` display names (deprecated shape).
 *
 * @category schemas
 * @since 0.1.0
 */
export const LegacyTitledEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  title,
  description,
  enum: Schema.Array(Schema.String),
  enumNames: Schema.optionalKey(Schema.Array(Schema.String)),
  default: Schema.optionalKey(Schema.String)
})
/**
 * @category models
 * @since 0.1.0
 */
export type LegacyTitledEnumSchema = typeof LegacyTitledEnumSchema.Type

/**
 * Multiple choice among plain values.
 *
 * @category schemas
 * @since 0.1.0
 */
export const UntitledMultiSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("array"),
  title,
  description,
  minItems: Schema.optionalKey(Schema.Int),
  maxItems: Schema.optionalKey(Schema.Int),
  items: Schema.Struct({ type: Schema.Literal("string"), enum: Schema.Array(Schema.String) }),
  default: Schema.optionalKey(Schema.Array(Schema.String))
})
/**
 * @category models
 * @since 0.1.0
 */
export type UntitledMultiSelectEnumSchema = typeof UntitledMultiSelectEnumSchema.Type

/**
 * Multiple choice among values with display titles.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TitledMultiSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("array"),
  title,
  description,
  minItems: Schema.optionalKey(Schema.Int),
  maxItems: Schema.optionalKey(Schema.Int),
  items: Schema.Struct({ anyOf: Schema.Array(Option) }),
  default: Schema.optionalKey(Schema.Array(Schema.String))
})
/**
 * @category models
 * @since 0.1.0
 */
export type TitledMultiSelectEnumSchema = typeof TitledMultiSelectEnumSchema.Type

/**
 * @category schemas
 * @since 0.1.0
 */
export const SingleSelectEnumSchema = Schema.Union([TitledSingleSelectEnumSchema, UntitledSingleSelectEnumSchema])
/**
 * @category models
 * @since 0.1.0
 */
export type SingleSelectEnumSchema = typeof SingleSelectEnumSchema.Type

/**
 * @category schemas
 * @since 0.1.0
 */
export const MultiSelectEnumSchema = Schema.Union([TitledMultiSelectEnumSchema, UntitledMultiSelectEnumSchema])
/**
 * @category models
 * @since 0.1.0
 */
export type MultiSelectEnumSchema = typeof MultiSelectEnumSchema.Type

// Members are tried in order and unknown keys are dropped, so a shape that is a superset of another
// comes first: `enumNames` would otherwise be lost to UntitledSingleSelectEnumSchema.
/**
 * @category schemas
 * @since 0.1.0
 */
export const EnumSchema = Schema.Union([
  TitledSingleSelectEnumSchema,
  LegacyTitledEnumSchema,
  UntitledSingleSelectEnumSchema,
  TitledMultiSelectEnumSchema,
  UntitledMultiSelectEnumSchema
])
/**
 * @category models
 * @since 0.1.0
 */
export type EnumSchema = typeof EnumSchema.Type

/**
 * A field of an elicitation form: a flat, primitive JSON Schema.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PrimitiveSchemaDefinition = Schema.Union([EnumSchema, StringSchema, NumberSchema, BooleanSchema])
/**
 * @category models
 * @since 0.1.0
 */
export type PrimitiveSchemaDefinition = typeof PrimitiveSchemaDefinition.Type

/**
 * Params of a form-mode `elicitation/create`.
 *
 * @category schemas
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
/**
 * @category models
 * @since 0.1.0
 */
export type ElicitRequestFormParams = typeof ElicitRequestFormParams.Type

/**
 * Params of a URL-mode `elicitation/create`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ElicitRequestURLParams = Schema.Struct({
  mode: Schema.Literal("url"),
  message: Schema.String,
  url: Schema.String
})
/**
 * @category models
 * @since 0.1.0
 */
export type ElicitRequestURLParams = typeof ElicitRequestURLParams.Type

/**
 * @category schemas
 * @since 0.1.0
 */
export const ElicitRequestParams = Schema.Union([ElicitRequestURLParams, ElicitRequestFormParams])
/**
 * @category models
 * @since 0.1.0
 */
export type ElicitRequestParams = typeof ElicitRequestParams.Type

/**
 * The client's answer to `elicitation/create`.
 *
 * @category schemas
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
/**
 * @category models
 * @since 0.1.0
 */
export type ElicitResult = typeof ElicitResult.Type

/**
 * An embedded `elicitation/create` request.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ElicitRequest = Schema.Struct({
  method: Schema.Literal("elicitation/create"),
  params: ElicitRequestParams
})
/**
 * @category models
 * @since 0.1.0
 */
export type ElicitRequest = typeof ElicitRequest.Type
