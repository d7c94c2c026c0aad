/**
 * Client and server capabilities. Both are open sets: unknown capabilities and settings are kept.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { JsonObject, OpenStruct } from "./Json.ts"

const Settings = Schema.Record(Schema.String, JsonObject)
const ListChanged = OpenStruct({ listChanged: Schema.optionalKey(Schema.Boolean) })

/**
 * Capabilities a client declares per request (`io.modelcontextprotocol/clientCapabilities`).
 *
 * @category constants
 * @since 0.1.0
 */
export const ClientCapabilities = OpenStruct({
  experimental: Schema.optionalKey(Settings),
  roots: Schema.optionalKey(OpenStruct({})),
  sampling: Schema.optionalKey(OpenStruct({
    context: Schema.optionalKey(JsonObject),
    tools: Schema.optionalKey(JsonObject)
  })),
  elicitation: Schema.optionalKey(OpenStruct({
    form: Schema.optionalKey(JsonObject),
    url: Schema.optionalKey(JsonObject)
  })),
  extensions: Schema.optionalKey(Settings)
})
/**
 * @category models
 * @since 0.1.0
 */
export type ClientCapabilities = typeof ClientCapabilities.Type

/**
 * Capabilities a server advertises in `server/discover`.
 *
 * @category constants
 * @since 0.1.0
 */
export const ServerCapabilities = OpenStruct({
  experimental: Schema.optionalKey(Settings),
  logging: Schema.optionalKey(JsonObject),
  completions: Schema.optionalKey(JsonObject),
  prompts: Schema.optionalKey(ListChanged),
  resources: Schema.optionalKey(OpenStruct({
    subscribe: Schema.optionalKey(Schema.Boolean),
    listChanged: Schema.optionalKey(Schema.Boolean)
  })),
  tools: Schema.optionalKey(ListChanged),
  extensions: Schema.optionalKey(Settings)
})
/**
 * @category models
 * @since 0.1.0
 */
export type ServerCapabilities = typeof ServerCapabilities.Type
