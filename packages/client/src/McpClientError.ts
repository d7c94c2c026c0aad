/**
 * The typed failures of the client: the server answered with a JSON-RPC error (`RpcError`), the
 * connection failed or ended (`TransportError`), the server asked for input the application gave
 * no handler for (`MissingHandler`), a multi-round request did not settle (`TooManyRounds`), or a
 * result did not match its schema (`InvalidResult`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpClient } from "@snodo/client"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* McpClient
 *   return yield* client.callTool("add", { a: 1, b: 2 })
 * }).pipe(Effect.catchTag("RpcError", (error) => Effect.succeed(`refused: ${error.code}`)))
 * ```
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * The server answered with a JSON-RPC error. `message` is the server's text; `toString` (what a
 * log prints) names the method and the code too.
 *
 * @category errors
 * @since 0.1.0
 */
export class RpcError extends Schema.TaggedError<RpcError>()("RpcError", {
  method: Schema.String,
  code: Schema.Number,
  message: Schema.String,
  data: Schema.optional(Schema.Unknown)
}) {
  override toString(): string {
    return `RpcError: ${this.method} answered ${this.code}: ${this.message}`
  }
}

/**
 * The transport failed: the process exited, the connection closed, an HTTP status that carries no
 * JSON-RPC answer, a request that got no answer in time, the server broke the protocol
 * (`Protocol`: frames that are not JSON-RPC past the budget, an answer refused by the strict
 * parser) or wrote more than a bound allows (`TooLarge`: `maxResponseBytes`).
 *
 * @category errors
 * @since 0.1.0
 */
export class TransportError extends Schema.TaggedError<TransportError>()("TransportError", {
  reason: Schema.Literals(["Closed", "Exited", "Http", "Timeout", "Spawn", "Busy", "Protocol", "TooLarge"]),
  message: Schema.String,
  status: Schema.optional(Schema.Number),
  exitCode: Schema.optional(Schema.Number)
}) {}

/**
 * The server asked for input (elicitation, sampling, roots) the application gave no handler for, or
 * refused a request because the client lacks the capability (-32021) such a handler would give.
 *
 * @category errors
 * @since 0.1.0
 */
export class MissingHandler extends Schema.TaggedError<MissingHandler>()("MissingHandler", {
  method: Schema.String,
  message: Schema.String,
  /** The capabilities the server said it needs (its -32021 `requiredCapabilities`). */
  requiredCapabilities: Schema.optional(Schema.Unknown)
}) {}

/**
 * A multi-round request still asked for input after the allowed rounds.
 *
 * @category errors
 * @since 0.1.0
 */
export class TooManyRounds extends Schema.TaggedError<TooManyRounds>()("TooManyRounds", {
  method: Schema.String,
  rounds: Schema.Number,
  message: Schema.String
}) {}

/**
 * A result (or a tool's `structuredContent`) did not match its schema.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidResult extends Schema.TaggedError<InvalidResult>()("InvalidResult", {
  method: Schema.String,
  /** Where the result departs from the method's schema (`content[0].text`), when it is not the root. */
  path: Schema.optional(Schema.String),
  message: Schema.String
}) {}

/**
 * A tool answered with an `isError` result whose content is not a failure the caller declared.
 *
 * @category errors
 * @since 0.1.0
 */
export class ToolError extends Schema.TaggedError<ToolError>()("ToolError", {
  name: Schema.String,
  message: Schema.String,
  result: Schema.Unknown
}) {}

/**
 * A task ended `cancelled`.
 *
 * @category errors
 * @since 0.1.0
 */
export class TaskCancelled extends Schema.TaggedError<TaskCancelled>()("TaskCancelled", {
  taskId: Schema.String,
  message: Schema.String
}) {}

/**
 * A listen stream's buffer filled up because the application read more slowly than the server
 * wrote (the listen's `overflow: "fail"`; the default drops the oldest change instead).
 *
 * @category errors
 * @since 0.1.0
 */
export class Overflow extends Schema.TaggedError<Overflow>()("Overflow", {
  capacity: Schema.Number,
  message: Schema.String
}) {}

/**
 * The server does not offer what was asked: a listen for changes it declares (or acknowledges)
 * none of.
 *
 * @category errors
 * @since 0.1.0
 */
export class Unsupported extends Schema.TaggedError<Unsupported>()("Unsupported", {
  method: Schema.String,
  message: Schema.String
}) {}

/**
 * Every failure of a request.
 *
 * @category errors
 * @since 0.1.0
 */
export type McpClientError =
  | RpcError
  | TransportError
  | MissingHandler
  | TooManyRounds
  | InvalidResult
  | TaskCancelled
  | Overflow
  | Unsupported
