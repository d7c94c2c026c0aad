/**
 * The `_meta` key grammar and reserved keys, plus the small common types every other wire module
 * shares (progress tokens, request ids, cursors, implementations, icons, result fields).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { OpenStruct, UnknownObject } from "./Json.ts"

const label = "[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
const metaKeyPattern = new RegExp(
  `^(?:${label}(?:\\.${label})*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`
)

/**
 * Whether `key` follows the `_meta` key grammar: an optional prefix of dot-separated labels ending
 * in `/` (labels start with a letter, end with a letter or digit, hyphens inside), then a name that
 * is empty or starts and ends alphanumeric (`-`, `_`, `.` inside).
 *
 * @category guards
 * @since 0.1.0
 */
export const isValidMetaKey = (key: string): boolean => {
  if (validKeys.has(key)) return true
  const valid = metaKeyPattern.test(key)
  // Clients send the same few keys on every request: remember them (bounded) instead of matching again.
  if (valid && validKeys.size < 256) validKeys.add(key)
  return valid
}

const validKeys = new Set<string>()

/**
 * Whether the prefix of a `_meta` key (or a bare prefix ending in `/`) is reserved for MCP: its
 * second label is `modelcontextprotocol` or `mcp` (compared case-insensitively). A key without a
 * `/` has no prefix and is never reserved.
 *
 * @category guards
 * @since 0.1.0
 */
export const isReservedMetaPrefix = (keyOrPrefix: string): boolean => {
  const slash = keyOrPrefix.indexOf("/")
  if (slash < 0) return false
  const second = keyOrPrefix.slice(0, slash).split(".")[1]?.toLowerCase()
  return second === "modelcontextprotocol" || second === "mcp"
}

/**
 * @category constants
 * @since 0.1.0
 */
export const ProtocolVersionKey = "io.modelcontextprotocol/protocolVersion" as const
/**
 * @category constants
 * @since 0.1.0
 */
export const ClientCapabilitiesKey = "io.modelcontextprotocol/clientCapabilities" as const
/**
 * @category constants
 * @since 0.1.0
 */
export const ClientInfoKey = "io.modelcontextprotocol/clientInfo" as const
/**
 * @category constants
 * @since 0.1.0
 */
export const LogLevelKey = "io.modelcontextprotocol/logLevel" as const
/**
 * @category constants
 * @since 0.1.0
 */
export const ServerInfoKey = "io.modelcontextprotocol/serverInfo" as const
/**
 * @category constants
 * @since 0.1.0
 */
export const SubscriptionIdKey = "io.modelcontextprotocol/subscriptionId" as const

/**
 * A `_meta` object: any keys, any values (key grammar and reserved keys are checked by admission).
 *
 * @category constants
 * @since 0.1.0
 */
export const MetaObject = UnknownObject
/**
 * @category models
 * @since 0.1.0
 */
export type MetaObject = typeof MetaObject.Type

/**
 * The eight syslog severities, least to most severe.
 *
 * @category schemas
 * @since 0.1.0
 */
export const LoggingLevel = Schema.Literals([
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
])
/**
 * @category models
 * @since 0.1.0
 */
export type LoggingLevel = typeof LoggingLevel.Type

/**
 * A progress token: a string or an integer (length and int64 bounds are checked by admission).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ProgressToken = Schema.Union([Schema.String, Schema.Int])
/**
 * @category models
 * @since 0.1.0
 */
export type ProgressToken = typeof ProgressToken.Type

/**
 * A JSON-RPC request id: a string or an integer.
 *
 * @category schemas
 * @since 0.1.0
 */
export const RequestId = Schema.Union([Schema.String, Schema.Int])
/**
 * @category models
 * @since 0.1.0
 */
export type RequestId = typeof RequestId.Type

/**
 * An opaque pagination cursor.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Cursor = Schema.String
/**
 * @category models
 * @since 0.1.0
 */
export type Cursor = typeof Cursor.Type

/**
 * An optionally-sized icon for a user interface.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Icon = Schema.Struct({
  src: Schema.String,
  mimeType: Schema.optionalKey(Schema.String),
  sizes: Schema.optionalKey(Schema.Array(Schema.String)),
  theme: Schema.optionalKey(Schema.Literals(["light", "dark"]))
})
/**
 * @category models
 * @since 0.1.0
 */
export type Icon = typeof Icon.Type

/**
 * The `icons` field shared by implementations, tools, resources and prompts.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Icons = Schema.Struct({ icons: Schema.optionalKey(Schema.Array(Icon)) })
/**
 * @category models
 * @since 0.1.0
 */
export type Icons = typeof Icons.Type

/**
 * Describes an MCP implementation (`clientInfo`, `serverInfo`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const Implementation = Schema.Struct({
  name: Schema.String,
  title: Schema.optionalKey(Schema.String),
  ...Icons.fields,
  version: Schema.String,
  description: Schema.optionalKey(Schema.String),
  websiteUrl: Schema.optionalKey(Schema.String)
})
/**
 * @category models
 * @since 0.1.0
 */
export type Implementation = typeof Implementation.Type

/**
 * The kind of a result: `"complete"`, `"input_required"` or an extension's own value.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ResultType = Schema.String
/**
 * @category models
 * @since 0.1.0
 */
export type ResultType = typeof ResultType.Type

/**
 * The retry fields of a request that may answer `input_required` (`tools/call`, `resources/read`,
 * `prompts/get`): the client's `inputResponses` by key, and the `requestState` echoed back. Each
 * response is an object here and is validated against its request only when the server consumes
 * its key: MRTR asks servers to ignore responses they do not need, so a response for a key nobody
 * asked (or an answered one) is never an error.
 *
 * @category constants
 * @since 0.1.0
 */
export const RetryFields = {
  inputResponses: Schema.optionalKey(Schema.Record(Schema.String, UnknownObject)),
  requestState: Schema.optionalKey(Schema.String)
}

/**
 * Fields of every result (`Result`): `resultType` and an optional `_meta`.
 *
 * @category constants
 * @since 0.1.0
 */
export const ResultFields = {
  _meta: Schema.optionalKey(MetaObject),
  resultType: ResultType
}

/**
 * Fields of a cacheable result (`CacheableResult`): `ttlMs` and `cacheScope`.
 *
 * @category constants
 * @since 0.1.0
 */
export const CacheableResultFields = {
  ...ResultFields,
  ttlMs: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  cacheScope: Schema.Literals(["public", "private"])
}

/**
 * Fields of a cacheable, paginated list result.
 *
 * @category constants
 * @since 0.1.0
 */
export const ListResultFields = {
  ...CacheableResultFields,
  nextCursor: Schema.optionalKey(Cursor)
}

/**
 * Params of a paginated list request (`tools/list`, `prompts/list`, `resources/list`, ...).
 *
 * @category constants
 * @since 0.1.0
 */
export const PaginatedRequestParams = OpenStruct({
  _meta: Schema.optionalKey(MetaObject),
  cursor: Schema.optionalKey(Cursor)
})
/**
 * @category models
 * @since 0.1.0
 */
export type PaginatedRequestParams = typeof PaginatedRequestParams.Type
