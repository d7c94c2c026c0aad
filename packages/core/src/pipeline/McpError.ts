/**
 * The protocol's errors, for handlers and the applications that write them: `@snodo/protocol`'s
 * `McpError` module, re-exported where an application imports the rest of its server
 * (`import { McpError } from "@snodo/core"`). One module, one copy: the classes are the protocol's.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { McpError } from "@snodo/core"
 *
 * const refuse = Effect.fail(new McpError.InvalidParams({ message: "city: unknown" }))
 * ```
 *
 * @since 0.1.0
 */
export * from "@snodo/protocol/jsonrpc/McpError"
