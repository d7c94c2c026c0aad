/**
 * Argument completion: `completion/complete` params and result.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { OpenStruct } from "./Json.ts"
import { MetaObject, ResultFields } from "./Meta.ts"

/**
 * Identifies a prompt whose argument is completed.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PromptReference = Schema.Struct({
  type: Schema.Literal("ref/prompt"),
  name: Schema.String,
  title: Schema.optionalKey(Schema.String)
})
/**
 * @category models
 * @since 0.1.0
 */
export type PromptReference = typeof PromptReference.Type

/**
 * Identifies a resource template (or resource) whose variable is completed.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ResourceTemplateReference = Schema.Struct({
  type: Schema.Literal("ref/resource"),
  uri: Schema.String
})
/**
 * @category models
 * @since 0.1.0
 */
export type ResourceTemplateReference = typeof ResourceTemplateReference.Type

/**
 * Params of `completion/complete` (`_meta` is checked by admission, not here).
 *
 * @category constants
 * @since 0.1.0
 */
export const CompleteRequestParams = OpenStruct({
  _meta: Schema.optionalKey(MetaObject),
  ref: Schema.Union([PromptReference, ResourceTemplateReference]),
  argument: Schema.Struct({ name: Schema.String, value: Schema.String }),
  context: Schema.optionalKey(Schema.Struct({
    arguments: Schema.optionalKey(Schema.Record(Schema.String, Schema.String))
  }))
})
/**
 * @category models
 * @since 0.1.0
 */
export type CompleteRequestParams = typeof CompleteRequestParams.Type

/**
 * The result of `completion/complete` (at most 100 values).
 *
 * @category constants
 * @since 0.1.0
 */
export const CompleteResult = OpenStruct({
  ...ResultFields,
  completion: Schema.Struct({
    values: Schema.Array(Schema.String).check(Schema.isMaxLength(100)),
    total: Schema.optionalKey(Schema.Int),
    hasMore: Schema.optionalKey(Schema.Boolean)
  })
})
/**
 * @category models
 * @since 0.1.0
 */
export type CompleteResult = typeof CompleteResult.Type
