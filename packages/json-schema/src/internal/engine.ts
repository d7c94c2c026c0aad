/**
 * Everything of hyperjump that the validator runs, behind one module that `JsonSchemaValidator`
 * imports dynamically, when it loads a catalog or compiles its first schema: an application that
 * provides the Layer but never compiles a raw JSON Schema does not load hyperjump (about a
 * hundred modules) at start.
 *
 * @since 0.1.0
 */
export { BASIC, interpret } from "@hyperjump/json-schema/experimental"
export * as Instance from "@hyperjump/json-schema/instance/experimental"
export { CompileTimedOut, compileSchema, describe, loadCatalog } from "./compiler.ts"
