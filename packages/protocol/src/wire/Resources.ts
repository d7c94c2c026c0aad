/**
 * Resources and resource templates: descriptors, `resources/read` params and results, list results.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Annotations, BlobResourceContents, TextResourceContents } from "./Content.ts"
import { OpenStruct } from "./Json.ts"
import { CacheableResultFields, Icons, ListResultFields, MetaObject, RetryFields } from "./Meta.ts"

/**
 * A resource the server can read.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Resource = Schema.Struct({
  uri: Schema.String,
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  ...Icons.fields,
  description: Schema.optionalKey(Schema.String),
  mimeType: Schema.optionalKey(Schema.String),
  annotations: Schema.optionalKey(Annotations),
  size: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * @category models
 * @since 0.1.0
 */
export type Resource = typeof Resource.Type

/**
 * A template (RFC 6570) for resources the server can read.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ResourceTemplate = Schema.Struct({
  uriTemplate: Schema.String,
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  ...Icons.fields,
  description: Schema.optionalKey(Schema.String),
  mimeType: Schema.optionalKey(Schema.String),
  annotations: Schema.optionalKey(Annotations),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * @category models
 * @since 0.1.0
 */
export type ResourceTemplate = typeof ResourceTemplate.Type

/**
 * Params of `resources/read` (`_meta` is checked by admission, not here).
 *
 * @category constants
 * @since 0.1.0
 */
export const ReadResourceRequestParams = OpenStruct({
  _meta: Schema.optionalKey(MetaObject),
  uri: Schema.String,
  ...RetryFields
})
/**
 * @category models
 * @since 0.1.0
 */
export type ReadResourceRequestParams = typeof ReadResourceRequestParams.Type

/**
 * The complete result of `resources/read`.
 *
 * @category constants
 * @since 0.1.0
 */
export const ReadResourceResult = OpenStruct({
  ...CacheableResultFields,
  contents: Schema.Array(Schema.Union([TextResourceContents, BlobResourceContents]))
})
/**
 * @category models
 * @since 0.1.0
 */
export type ReadResourceResult = typeof ReadResourceResult.Type

/**
 * The result of `resources/list`.
 *
 * @category constants
 * @since 0.1.0
 */
export const ListResourcesResult = OpenStruct({
  ...ListResultFields,
  resources: Schema.Array(Resource)
})
/**
 * @category models
 * @since 0.1.0
 */
export type ListResourcesResult = typeof ListResourcesResult.Type

/**
 * The result of `resources/templates/list`.
 *
 * @category constants
 * @since 0.1.0
 */
export const ListResourceTemplatesResult = OpenStruct({
  ...ListResultFields,
  resourceTemplates: Schema.Array(ResourceTemplate)
})
/**
 * @category models
 * @since 0.1.0
 */
export type ListResourceTemplatesResult = typeof ListResourceTemplatesResult.Type
