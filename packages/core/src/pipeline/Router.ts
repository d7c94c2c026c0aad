/**
 * The method table: which methods exist in 2026-07-28, which server capability each needs, and
 * which were removed from the revision (answered -32601 like any unknown method).
 *
 * @since 0.1.0
 */

/** A server capability a method depends on. @since 0.1.0 */
export type Capability = "tools" | "resources" | "prompts" | "completions" | "subscriptions"

/** Methods served, with the capability each needs (`undefined`: always available). @since 0.1.0 */
export const methods: ReadonlyMap<string, Capability | undefined> = new Map<string, Capability | undefined>([
  ["server/discover", undefined],
  ["tools/list", "tools"],
  ["tools/call", "tools"],
  ["resources/list", "resources"],
  ["resources/read", "resources"],
  ["resources/templates/list", "resources"],
  ["prompts/list", "prompts"],
  ["prompts/get", "prompts"],
  ["completion/complete", "completions"],
  ["subscriptions/listen", "subscriptions"]
])

/** Methods of earlier revisions that 2026-07-28 removed. @since 0.1.0 */
export const removed: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe"
])

/**
 * The -32601 message for a method: removed methods say why, so that a legacy client has a
 * diagnostic to show (the revision asks that `initialize` errors name the supported versions).
 *
 * @since 0.1.0
 */
export const notFoundMessage = (method: string, supported: ReadonlyArray<string>): string =>
  removed.has(method)
    ? `Method not found: ${method} is not part of MCP ${supported.join(", ")} (stateless; supported versions: ${supported.join(", ")})`
    : `Method not found: ${method}`
