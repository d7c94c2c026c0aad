/**
 * Tools: descriptors for `tools/list`, params and result of `tools/call`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ContentBlock } from "./Content.ts"
import { OpenStruct, UnknownObject } from "./Json.ts"
import { Icons, ListResultFields, MetaObject, ResultFields, RetryFields } from "./Meta.ts"

/**
 * Behaviour hints about a tool (never to be trusted from an untrusted server).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolAnnotations = Schema.Struct({
  title: Schema.optionalKey(Schema.String),
  readOnlyHint: Schema.optionalKey(Schema.Boolean),
  destructiveHint: Schema.optionalKey(Schema.Boolean),
  idempotentHint: Schema.optionalKey(Schema.Boolean),
  openWorldHint: Schema.optionalKey(Schema.Boolean)
})
/**
 * @category models
 * @since 0.1.0
 */
export type ToolAnnotations = typeof ToolAnnotations.Type

/**
 * A tool the client can call; `inputSchema` is a JSON Schema object with `type: "object"`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Tool = Schema.Struct({
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  ...Icons.fields,
  description: Schema.optionalKey(Schema.String),
  inputSchema: OpenStruct({ $schema: Schema.optionalKey(Schema.String), type: Schema.Literal("object") }),
  outputSchema: Schema.optionalKey(OpenStruct({ $schema: Schema.optionalKey(Schema.String) })),
  annotations: Schema.optionalKey(ToolAnnotations),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * @category models
 * @since 0.1.0
 */
export type Tool = typeof Tool.Type

/**
 * Params of `tools/call` (`_meta` is checked by admission, not here).
 *
 * @category constants
 * @since 0.1.0
 */
export const CallToolRequestParams = OpenStruct({
  _meta: Schema.optionalKey(MetaObject),
  name: Schema.String,
  arguments: Schema.optionalKey(UnknownObject),
  ...RetryFields
})
/**
 * @category models
 * @since 0.1.0
 */
export type CallToolRequestParams = typeof CallToolRequestParams.Type

/**
 * The complete result of `tools/call`.
 *
 * @category constants
 * @since 0.1.0
 */
export const CallToolResult = OpenStruct({
  ...ResultFields,
  content: Schema.Array(ContentBlock),
  structuredContent: Schema.optionalKey(Schema.Unknown),
  isError: Schema.optionalKey(Schema.Boolean)
})
/**
 * @category models
 * @since 0.1.0
 */
export type CallToolResult = typeof CallToolResult.Type

/**
 * The result of `tools/list`.
 *
 * @category constants
 * @since 0.1.0
 */
export const ListToolsResult = OpenStruct({
  ...ListResultFields,
  tools: Schema.Array(Tool)
})
/**
 * @category models
 * @since 0.1.0
 */
export type ListToolsResult = typeof ListToolsResult.Type
