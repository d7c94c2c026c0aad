/**
 * Notification params (cancellation, progress, logging, resource updates, subscriptions) and the
 * `subscriptions/listen` params and closing result.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { OpenStruct } from "./Json.ts"
import { LoggingLevel, MetaObject, ProgressToken, RequestId, ResultType, SubscriptionIdKey } from "./Meta.ts"

const meta = Schema.optionalKey(MetaObject)

/**
 * Params of `notifications/cancelled`.
 *
 * @category constants
 * @since 0.1.0
 */
export const CancelledNotificationParams = OpenStruct({
  _meta: meta,
  requestId: RequestId,
  reason: Schema.optionalKey(Schema.String)
})
/**
 * @category models
 * @since 0.1.0
 */
export type CancelledNotificationParams = typeof CancelledNotificationParams.Type

/**
 * Params of `notifications/progress`.
 *
 * @category constants
 * @since 0.1.0
 */
export const ProgressNotificationParams = OpenStruct({
  _meta: meta,
  progressToken: ProgressToken,
  progress: Schema.Finite,
  total: Schema.optionalKey(Schema.Finite),
  message: Schema.optionalKey(Schema.String)
})
/**
 * @category models
 * @since 0.1.0
 */
export type ProgressNotificationParams = typeof ProgressNotificationParams.Type

/**
 * Params of `notifications/message` (deprecated logging).
 *
 * @category constants
 * @since 0.1.0
 */
export const LoggingMessageNotificationParams = OpenStruct({
  _meta: meta,
  level: LoggingLevel,
  logger: Schema.optionalKey(Schema.String),
  data: Schema.Unknown
})
/**
 * @category models
 * @since 0.1.0
 */
export type LoggingMessageNotificationParams = typeof LoggingMessageNotificationParams.Type

/**
 * Params of `notifications/resources/updated`.
 *
 * @category constants
 * @since 0.1.0
 */
export const ResourceUpdatedNotificationParams = OpenStruct({
  _meta: meta,
  uri: Schema.String
})
/**
 * @category models
 * @since 0.1.0
 */
export type ResourceUpdatedNotificationParams = typeof ResourceUpdatedNotificationParams.Type

/**
 * The notification types a `subscriptions/listen` stream opts in to.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SubscriptionFilter = Schema.Struct({
  toolsListChanged: Schema.optionalKey(Schema.Boolean),
  promptsListChanged: Schema.optionalKey(Schema.Boolean),
  resourcesListChanged: Schema.optionalKey(Schema.Boolean),
  resourceSubscriptions: Schema.optionalKey(Schema.Array(Schema.String))
})
/**
 * @category models
 * @since 0.1.0
 */
export type SubscriptionFilter = typeof SubscriptionFilter.Type

/**
 * Params of `subscriptions/listen` (`_meta` is checked by admission, not here).
 *
 * @category constants
 * @since 0.1.0
 */
export const SubscriptionsListenRequestParams = OpenStruct({
  _meta: meta,
  notifications: SubscriptionFilter
})
/**
 * @category models
 * @since 0.1.0
 */
export type SubscriptionsListenRequestParams = typeof SubscriptionsListenRequestParams.Type

/**
 * Params of `notifications/subscriptions/acknowledged`: the types the server agreed to honour.
 *
 * @category constants
 * @since 0.1.0
 */
export const SubscriptionsAcknowledgedNotificationParams = OpenStruct({
  _meta: meta,
  notifications: SubscriptionFilter
})
/**
 * @category models
 * @since 0.1.0
 */
export type SubscriptionsAcknowledgedNotificationParams = typeof SubscriptionsAcknowledgedNotificationParams.Type

/**
 * The result closing a `subscriptions/listen` stream; `_meta` carries the subscription id.
 *
 * @category constants
 * @since 0.1.0
 */
export const SubscriptionsListenResult = OpenStruct({
  _meta: OpenStruct({ [SubscriptionIdKey]: RequestId }),
  resultType: ResultType
})
/**
 * @category models
 * @since 0.1.0
 */
export type SubscriptionsListenResult = typeof SubscriptionsListenResult.Type
