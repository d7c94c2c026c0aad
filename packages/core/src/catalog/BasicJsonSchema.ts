/**
 * The core's dependency-free `SchemaValidator`: a documented basic subset of JSON Schema 2020-12.
 *
 * Supported keywords: `type` (a name or an array of names, `integer` included), `required`,
 * `properties`, `additionalProperties` (boolean or schema), `items` (one schema), `enum`, `const`,
 * `minLength` / `maxLength` (counted in Unicode code points), `minimum` / `maximum` /
 * `exclusiveMinimum` / `exclusiveMaximum`, `minItems` / `maxItems`, `pattern` (compiled once, with
 * the `u` flag) and `uniqueItems` (JSON equality). Annotations (`title`, `description`, `$schema`,
 * `$id`, `default`, `examples`, `format`, `deprecated`, `readOnly`, `writeOnly`, `$comment`, `x-*`
 * vendor keys such as `x-mcp-header`, …) are ignored. Every other assertion or applicator keyword
 * (`$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `if`, `patternProperties`, `multipleOf`, …) refuses the
 * schema at compile time: the basic backend never silently accepts what it cannot check. Provide
 * `@snodo/json-schema` for full Draft 2020-12.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as BasicJsonSchema from "@snodo/core/BasicJsonSchema"
 *
 * const program = Effect.gen(function*() {
 *   const compiled = yield* BasicJsonSchema.make().compile({
 *     type: "object",
 *     required: ["name"],
 *     properties: { name: { type: "string", minLength: 1 } }
 *   })
 *   return compiled.validate({ name: "" })
 *   // { _tag: "Invalid", issues: [{ instancePath: "/name", keyword: "minLength", message: "..." }] }
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { compileSync } from "./JsonSchemaCompiler.ts"

export { ignoredKeywords, refusedKeywords, supportedKeywords } from "./JsonSchemaCompiler.ts"
import { SchemaCompileError, SchemaValidator } from "./SchemaValidator.ts"

/**
 * Limits on the schemas the basic backend accepts. Validation cost is linear in schema size times
 * instance size (the subset has no references or composition), so the schema bounds suffice.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Maximum number of JSON values in one schema document. Default 10,000. */
  readonly maxSchemaNodes?: number | undefined
  /** Maximum nesting depth of the schema document. Default 64. */
  readonly maxSchemaDepth?: number | undefined
  /** Maximum number of issues reported for one instance. Default 20. */
  readonly maxIssues?: number | undefined
}

/**
 * The defaults of {@link Options}.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults = {
  maxSchemaNodes: 10_000,
  maxSchemaDepth: 64,
  maxIssues: 20
} as const

/**
 * The basic backend as a service value.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options?: Options): SchemaValidator["Service"] => {
  const limits = {
    maxSchemaNodes: options?.maxSchemaNodes ?? defaults.maxSchemaNodes,
    maxSchemaDepth: options?.maxSchemaDepth ?? defaults.maxSchemaDepth,
    maxIssues: options?.maxIssues ?? defaults.maxIssues
  }
  return SchemaValidator.of({
    name: "basic",
    compile: (schema) =>
      Effect.suspend(() => {
        const result = compileSync(schema, limits)
        return typeof result === "string" ? Effect.fail(new SchemaCompileError({ message: result })) : Effect.succeed(result)
      })
  })
}

/**
 * The basic backend with the default bounds: the core's default `SchemaValidator`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer: Layer.Layer<SchemaValidator> = Layer.succeed(SchemaValidator, make())
