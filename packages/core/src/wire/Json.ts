/**
 * JSON values as they cross the wire, and the open-object constructor the other wire modules use
 * wherever the spec has an index signature (results, params, capabilities, `_meta`).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * Any JSON value (`JSONValue`): null, finite number, boolean, string, array or object.
 *
 * @since 0.1.0
 */
export const JsonValue = Schema.Json
/** @since 0.1.0 */
export type JsonValue = Schema.Json

/**
 * A JSON object (`JSONObject`): string keys, JSON values.
 *
 * @since 0.1.0
 */
export const JsonObject = Schema.JsonObject
/** @since 0.1.0 */
export type JsonObject = Schema.JsonObject

/**
 * A struct that keeps unknown keys (decoded and encoded as they are) next to its declared fields.
 *
 * @since 0.1.0
 */
export const OpenStruct = <const Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.StructWithRest(Schema.Struct(fields), [Schema.Record(Schema.String, Schema.Unknown)])
