/**
 * Discovery: the result of `server/discover`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { ServerCapabilities } from "./Capabilities.ts"
import { OpenStruct } from "./Json.ts"
import { CacheableResultFields } from "./Meta.ts"

/**
 * The result of `server/discover`: supported versions, capabilities, instructions.
 *
 * @category constants
 * @since 0.1.0
 */
export const DiscoverResult = OpenStruct({
  ...CacheableResultFields,
  supportedVersions: Schema.Array(Schema.String),
  capabilities: ServerCapabilities,
  instructions: Schema.optionalKey(Schema.String)
})
/**
 * @category models
 * @since 0.1.0
 */
export type DiscoverResult = typeof DiscoverResult.Type
