/**
 * Protocol errors as data.
 *
 * Every JSON-RPC error snodo can write is one tagged class here, carrying its code, a concise
 * message and optional `data`. Handlers and pipeline stages fail with these; the writer turns them
 * into error responses. A defect (a thrown exception or a die) never reaches the wire as text: it
 * becomes {@link InternalError} with a generic message.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { InvalidParams } from "@snodo/core/McpError"
 *
 * const refuse = Effect.fail(new InvalidParams({ message: "Unknown tool: nope" }))
 * ```
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * Marks the protocol errors: `isMcpError` recognizes them by this brand, never by their `_tag`, so
 * an application error that happens to be tagged `"InvalidParams"` is not taken for a protocol error.
 *
 * @category constants
 * @since 0.1.0
 */
export const TypeId: unique symbol = Symbol.for("@snodo/core/McpError")
/**
 * @category models
 * @since 0.1.0
 */
export type TypeId = typeof TypeId

const fields = {
  message: Schema.String,
  data: Schema.optional(Schema.Unknown)
}

/**
 * -32700: the bytes were not one strict JSON value.
 *
 * @category errors
 * @since 0.1.0
 */
export class ParseError extends Schema.TaggedError<ParseError>()("ParseError", fields) {
  readonly code = -32700
  readonly [TypeId]: TypeId = TypeId
}

/**
 * -32600: valid JSON that is not a valid JSON-RPC request.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", fields) {
  readonly code = -32600
  readonly [TypeId]: TypeId = TypeId
}

/**
 * -32601: unknown method, or a method whose server capability is absent.
 *
 * @category errors
 * @since 0.1.0
 */
export class MethodNotFound extends Schema.TaggedError<MethodNotFound>()("MethodNotFound", fields) {
  readonly code = -32601
  readonly [TypeId]: TypeId = TypeId
}

/**
 * -32602: the method exists but its params are invalid.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidParams extends Schema.TaggedError<InvalidParams>()("InvalidParams", fields) {
  readonly code = -32602
  readonly [TypeId]: TypeId = TypeId
}

/**
 * -32603: the server failed. The message is generic unless the author chose it.
 *
 * @category errors
 * @since 0.1.0
 */
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", fields) {
  readonly code = -32603
  readonly [TypeId]: TypeId = TypeId
}

/**
 * -32603 with `data: {retryable: true, limit, …}`: the request was refused, not failed, because a
 * bound of the server is reached (running handlers, queued ones, open streams) or a backend it
 * needs is unavailable for now (a task store restarting: no `limit`). Nothing ran, or nothing was
 * committed; the client may retry later. HTTP answers it 503 with `Retry-After` (`retryAfterMs`
 * rounded up to seconds, else 1 s).
 *
 * @category errors
 * @since 0.1.0
 */
export class ServerBusy extends Schema.TaggedError<ServerBusy>()("ServerBusy", {
  message: Schema.String,
  data: Schema.Struct({
    retryable: Schema.Literal(true),
    /** The bound that was reached, when the refusal is a bound's (not a backend being unavailable). */
    limit: Schema.optional(Schema.Number),
    /** The component whose bound was reached (`tool:search`), when it was a component's. */
    component: Schema.optional(Schema.String),
    /** When a retry may succeed, in ms (HTTP `Retry-After`, rounded up to seconds); default 1 s. */
    retryAfterMs: Schema.optional(Schema.Number)
  })
}) {
  readonly code = -32603
  readonly [TypeId]: TypeId = TypeId
}

/**
 * -32603 with `data: {retryable: true, limit, windowMs, retryAfterMs, component}`: the caller used up
 * a component's rate limit for the current window. Nothing ran; the client may retry after
 * `retryAfterMs`. HTTP answers it 429 with `Retry-After`.
 *
 * @category errors
 * @since 0.1.0
 */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  message: Schema.String,
  data: Schema.Struct({
    retryable: Schema.Literal(true),
    limit: Schema.Number,
    windowMs: Schema.Number,
    retryAfterMs: Schema.Number,
    component: Schema.String
  })
}) {
  readonly code = -32603
  readonly [TypeId]: TypeId = TypeId
}

/**
 * -32020: HTTP headers disagree with the body, or are missing or malformed.
 *
 * @category errors
 * @since 0.1.0
 */
export class HeaderMismatch extends Schema.TaggedError<HeaderMismatch>()("HeaderMismatch", fields) {
  readonly code = -32020
  readonly [TypeId]: TypeId = TypeId
}

/**
 * -32021: processing needs a client capability the request did not declare.
 *
 * @category models
 * @since 0.1.0
 */
export class MissingRequiredClientCapability
  extends Schema.TaggedError<MissingRequiredClientCapability>()("MissingRequiredClientCapability", {
    message: Schema.String,
    data: Schema.Struct({ requiredCapabilities: Schema.Record(Schema.String, Schema.Unknown) })
  })
{
  readonly code = -32021
  readonly [TypeId]: TypeId = TypeId
}

/**
 * -32022: the requested protocol version is not enabled on this server.
 *
 * @category models
 * @since 0.1.0
 */
export class UnsupportedProtocolVersion
  extends Schema.TaggedError<UnsupportedProtocolVersion>()("UnsupportedProtocolVersion", {
    message: Schema.String,
    data: Schema.Struct({ supported: Schema.Array(Schema.String), requested: Schema.String })
  })
{
  readonly code = -32022
  readonly [TypeId]: TypeId = TypeId
}

/**
 * An application-defined protocol error. The 2026-07-28 revision leaves -32000..-32019 to
 * implementations (-32020..-32099 are reserved for MCP); construction outside that range is refused
 * so that an application cannot impersonate a protocol code.
 *
 * @example
 * ```ts
 * import { ApplicationError } from "@snodo/core/McpError"
 *
 * const quota = ApplicationError.of(-32001, "Quota exceeded", { retryAfterMs: 1000 })
 * ```
 *
 * @category errors
 * @since 0.1.0
 */
export class ApplicationError extends Schema.TaggedError<ApplicationError>()("ApplicationError", {
  code: Schema.Int.check(Schema.isBetween({ minimum: -32019, maximum: -32000 })),
  message: Schema.String,
  data: Schema.optional(Schema.Unknown)
}) {
  readonly [TypeId]: TypeId = TypeId
  static of(code: number, message: string, data?: unknown): ApplicationError {
    return new ApplicationError(data === undefined ? { code, message } : { code, message, data })
  }
}

/**
 * Every protocol error snodo writes.
 *
 * @category models
 * @since 0.1.0
 */
export type McpError =
  | ParseError
  | InvalidRequest
  | MethodNotFound
  | InvalidParams
  | InternalError
  | ServerBusy
  | RateLimited
  | HeaderMismatch
  | MissingRequiredClientCapability
  | UnsupportedProtocolVersion
  | ApplicationError

/**
 * Whether a value is one of the protocol errors above (by brand, not by tag).
 *
 * @category guards
 * @since 0.1.0
 */
export const isMcpError = (u: unknown): u is McpError =>
  // `Predicate.hasProperty(u, TypeId)` written out: its `in` is shared by every caller of Effect's
  // guard (megamorphic, a stub-cache probe per request); this one sees what is passed here.
  ((typeof u === "object" && u !== null) || typeof u === "function") && TypeId in u

/**
 * The JSON-RPC error object of a protocol error.
 *
 * @category models
 * @since 0.1.0
 */
export interface WireError {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/**
 * The wire form of an error.
 *
 * @category combinators
 * @since 0.1.0
 */
export const toWire = (error: McpError): WireError =>
  error.data === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, data: error.data }

/**
 * The generic error that replaces any defect: no stack, no exception text.
 *
 * @category combinators
 * @since 0.1.0
 */
export const internalErrorOfDefect = (): InternalError => new InternalError({ message: "Internal error" })
