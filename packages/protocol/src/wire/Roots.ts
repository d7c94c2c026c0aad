/**
 * Roots (deprecated): the `roots/list` request a server embeds and the roots a client answers with.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { MetaObject } from "./Meta.ts"


/**
 * A root directory or file the server may operate on (deprecated).
 *
 * @category schemas
 * @since 0.1.0
 */
export const Root = Schema.Struct({
  uri: Schema.String,
  name: Schema.optionalKey(Schema.String),
  _meta: Schema.optionalKey(MetaObject)
})
/**
 * @category models
 * @since 0.1.0
 */
export type Root = typeof Root.Type

/**
 * The client's answer to `roots/list` (deprecated).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ListRootsResult = Schema.Struct({ roots: Schema.Array(Root) })
/**
 * @category models
 * @since 0.1.0
 */
export type ListRootsResult = typeof ListRootsResult.Type

/**
 * An embedded `roots/list` request.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ListRootsRequest = Schema.Struct({
  method: Schema.Literal("roots/list"),
  params: Schema.optionalKey(Schema.Struct({ _meta: Schema.optionalKey(MetaObject) }))
})
/**
 * @category models
 * @since 0.1.0
 */
export type ListRootsRequest = typeof ListRootsRequest.Type
