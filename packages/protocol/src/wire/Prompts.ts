/**
 * Prompts: descriptors for `prompts/list`, params and result of `prompts/get`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ContentBlock, Role } from "./Content.ts"
import { OpenStruct } from "./Json.ts"
import { Icons, ListResultFields, MetaObject, ResultFields, RetryFields } from "./Meta.ts"

/**
 * An argument a prompt accepts.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PromptArgument = Schema.Struct({
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  required: Schema.optionalKey(Schema.Boolean)
})
/**
 * @category models
 * @since 0.1.0
 */
export type PromptArgument = typeof PromptArgument.Type

/**
 * A prompt or prompt template the server offers.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Prompt = Schema.Struct({
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  ...Icons.fields,
  description: Schema.optionalKey(Schema.String),
  arguments: Schema.optionalKey(Schema.Array(PromptArgument)),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * @category models
 * @since 0.1.0
 */
export type Prompt = typeof Prompt.Type

/**
 * One message of a prompt.
 *
 * @category schemas
 * @since 0.1.0
 */
export const PromptMessage = Schema.Struct({
  role: Role,
  content: ContentBlock
})
/**
 * @category models
 * @since 0.1.0
 */
export type PromptMessage = typeof PromptMessage.Type

/**
 * Params of `prompts/get` (`_meta` is checked by admission, not here).
 *
 * @category constants
 * @since 0.1.0
 */
export const GetPromptRequestParams = OpenStruct({
  _meta: Schema.optionalKey(MetaObject),
  name: Schema.String,
  arguments: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  ...RetryFields
})
/**
 * @category models
 * @since 0.1.0
 */
export type GetPromptRequestParams = typeof GetPromptRequestParams.Type

/**
 * The complete result of `prompts/get`.
 *
 * @category constants
 * @since 0.1.0
 */
export const GetPromptResult = OpenStruct({
  ...ResultFields,
  description: Schema.optionalKey(Schema.String),
  messages: Schema.Array(PromptMessage)
})
/**
 * @category models
 * @since 0.1.0
 */
export type GetPromptResult = typeof GetPromptResult.Type

/**
 * The result of `prompts/list`.
 *
 * @category constants
 * @since 0.1.0
 */
export const ListPromptsResult = OpenStruct({
  ...ListResultFields,
  prompts: Schema.Array(Prompt)
})
/**
 * @category models
 * @since 0.1.0
 */
export type ListPromptsResult = typeof ListPromptsResult.Type
