/**
 * The params of the initialize-era methods (2025-11-25) that 2026-07-28 removed: `initialize`,
 * `ping`, `logging/setLevel`, `resources/subscribe` and `resources/unsubscribe`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { OpenStruct, UnknownObject } from "./Json.ts"
import { Implementation, LoggingLevel, MetaObject } from "./Meta.ts"

/**
 * Params of `initialize`: the version the client prefers, its capabilities and its identity.
 *
 * @category constants
 * @since 0.1.0
 */
export const InitializeRequestParams = OpenStruct({
  _meta: Schema.optionalKey(MetaObject),
  protocolVersion: Schema.String,
  capabilities: UnknownObject,
  clientInfo: Implementation
})
/**
 * @category models
 * @since 0.1.0
 */
export type InitializeRequestParams = typeof InitializeRequestParams.Type

/**
 * Params of `ping` (none but `_meta`).
 *
 * @category constants
 * @since 0.1.0
 */
export const PingRequestParams = OpenStruct({ _meta: Schema.optionalKey(MetaObject) })

/**
 * Params of `logging/setLevel`.
 *
 * @category constants
 * @since 0.1.0
 */
export const SetLevelRequestParams = OpenStruct({ _meta: Schema.optionalKey(MetaObject), level: LoggingLevel })
/**
 * @category models
 * @since 0.1.0
 */
export type SetLevelRequestParams = typeof SetLevelRequestParams.Type

/**
 * Params of `resources/subscribe` and `resources/unsubscribe`.
 *
 * @category constants
 * @since 0.1.0
 */
export const SubscribeRequestParams = OpenStruct({ _meta: Schema.optionalKey(MetaObject), uri: Schema.String })
/**
 * @category models
 * @since 0.1.0
 */
export type SubscribeRequestParams = typeof SubscribeRequestParams.Type

/**
 * The result of `initialize` (2025-11-25).
 *
 * @category constants
 * @since 0.1.0
 */
export const InitializeResult = OpenStruct({
  _meta: Schema.optionalKey(MetaObject),
  protocolVersion: Schema.String,
  capabilities: UnknownObject,
  serverInfo: Implementation,
  instructions: Schema.optionalKey(Schema.String)
})
/**
 * @category models
 * @since 0.1.0
 */
export type InitializeResult = typeof InitializeResult.Type

/**
 * A result with nothing to say (`ping`, `logging/setLevel`, `resources/subscribe`, an
 * acknowledgement): `resultType` on 2026-07-28, nothing at all on 2025-11-25.
 *
 * @category constants
 * @since 0.1.0
 */
export const EmptyResult = OpenStruct({
  _meta: Schema.optionalKey(MetaObject),
  resultType: Schema.optionalKey(Schema.String)
})
/**
 * @category models
 * @since 0.1.0
 */
export type EmptyResult = typeof EmptyResult.Type
