/**
 * @snodo/core/wire: The MCP 2026-07-28 wire schemas (Effect Schema), for clients and tests.
 *
 * @since 0.1.0
 */
export * as Capabilities from "./wire/Capabilities.ts"
export * as Completion from "./wire/Completion.ts"
export * as Content from "./wire/Content.ts"
export * as Discover from "./wire/Discover.ts"
export * as Elicitation from "./wire/Elicitation.ts"
export * as Json from "./wire/Json.ts"
export * as Lifecycle from "./wire/Lifecycle.ts"
export * as Meta from "./wire/Meta.ts"
export * as Mrtr from "./wire/Mrtr.ts"
export * as Notifications from "./wire/Notifications.ts"
export * as Prompts from "./wire/Prompts.ts"
export * as Resources from "./wire/Resources.ts"
export * as Roots from "./wire/Roots.ts"
export * as Sampling from "./wire/Sampling.ts"
export * as Tools from "./wire/Tools.ts"
