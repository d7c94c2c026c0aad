/**
 * `@snodo/json-schema`: the full JSON Schema Draft 2020-12 backend of snodo's `SchemaValidator`.
 *
 * @since 0.1.0
 */

/**
 * The Draft 2020-12 `SchemaValidator` Layer, its options and bounds.
 *
 * @since 0.1.0
 */
export * as JsonSchemaValidator from "./JsonSchemaValidator.ts"
