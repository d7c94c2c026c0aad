/**
 * @snodo/core/dialect: Dialect authors: a protocol revision as a value (`Dialect`, `Revision`), admission, the registry
 * of enabled dialects and the two built-in dialects, and the initialize-era `Session`.
 *
 * @since 0.1.0
 */
export * as Dialect from "./routes/Dialect.ts"
export { Dialect2025_11_25 } from "./dialects/Dialect2025_11_25.ts"
export { Dialect2026_07_28 } from "./dialects/Dialect2026_07_28.ts"
export * as DialectRegistry from "./dialects/DialectRegistry.ts"
export * as RequestMeta from "./pipeline/RequestMeta.ts"
export * as Revision from "./routes/Revision.ts"
export * as Session from "./runtime/Session.ts"
