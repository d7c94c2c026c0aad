/**
 * JSON values as they cross the wire, and the open-object constructor the other wire modules use
 * wherever the spec has an index signature (results, params, capabilities, `_meta`).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { isObject } from "./internal/IsObject.ts"

/**
 * An object whose members are not described (`{ [key: string]: unknown }`: `_meta`, tool
 * arguments, an input response before it is consumed). Checked as one test, where
 * `Schema.Record(Schema.String, Schema.Unknown)` walks every key: these sit on the hot path of
 * every request.
 *
 * @category schemas
 * @since 0.1.0
 */
export const UnknownObject: Schema.declare<Readonly<Record<string, unknown>>> = Schema.declare(isObject, {
  expected: "object"
})

/**
 * Any JSON value (`JSONValue`): null, finite number, boolean, string, array or object.
 *
 * @category schemas
 * @since 0.1.0
 */
export const JsonValue = Schema.Json
/**
 * @category models
 * @since 0.1.0
 */
export type JsonValue = Schema.Json

/**
 * A JSON object (`JSONObject`): string keys, JSON values.
 *
 * @category schemas
 * @since 0.1.0
 */
export const JsonObject = Schema.JsonObject
/**
 * @category models
 * @since 0.1.0
 */
export type JsonObject = Schema.JsonObject

// The rest of every open struct: one schema for all of them (schemas are immutable), where each
// struct built its own, ~50 of them when the protocol's chunk is evaluated.
const openRest = [Schema.Record(Schema.String, Schema.Unknown)] as const

/**
 * A struct that keeps unknown keys (decoded and encoded as they are) next to its declared fields.
 *
 * @category combinators
 * @since 0.1.0
 */
export const OpenStruct = <const Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.StructWithRest(Schema.Struct(fields), openRest)
