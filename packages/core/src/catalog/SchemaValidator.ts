/**
 * The validation seam for raw JSON Schemas.
 *
 * A tool that declares its input or output as a raw JSON Schema (rather than an Effect Schema) is
 * validated by the `SchemaValidator` service. Schemas are compiled once, when the catalog is built
 * (`compile` is an Effect, so a backend may compile asynchronously), or at their first use when
 * the backend offers a cheap `precheck` for the catalog to run instead; the compiled form validates
 * per call, synchronously. The core ships a dependency-free backend for a documented basic subset
 * (`BasicJsonSchema.layer`); `@snodo/json-schema` provides the full Draft 2020-12 backend. Nothing
 * changes validator unless the application provides another Layer.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SchemaValidator } from "@snodo/core/SchemaValidator"
 *
 * const program = Effect.gen(function*() {
 *   const validator = yield* SchemaValidator
 *   // Fails with SchemaCompileError if the schema is refused.
 *   const compiled = yield* validator.compile({ type: "object", required: ["a"] })
 *   return compiled.validate({ a: 1 }) // { _tag: "Valid" }
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Context, type Effect, Schema } from "effect"

/**
 * A JSON Schema document as it appears on the wire: a JSON object (or a boolean schema).
 *
 * @category models
 * @since 0.1.0
 */
export type JsonSchemaDocument = boolean | { readonly [key: string]: unknown }

/**
 * One reason an instance failed validation. Names the location and the rule, never the value.
 *
 * @category models
 * @since 0.1.0
 */
export interface ValidationIssue {
  /** JSON Pointer (RFC 6901) into the instance, `""` for the root. */
  readonly instancePath: string
  /** The keyword that failed, e.g. `"required"`, `"type"`, `"maximum"`. */
  readonly keyword: string
  /** A short human message that never quotes the instance value. */
  readonly message: string
}

/**
 * The outcome of validating one instance.
 *
 * `BudgetExceeded` means validation stopped because it cost more than the configured budget; the
 * caller treats it as a failed validation with an explanatory message.
 *
 * @category models
 * @since 0.1.0
 */
export type ValidationResult =
  | { readonly _tag: "Valid" }
  | { readonly _tag: "Invalid"; readonly issues: ReadonlyArray<ValidationIssue> }
  | { readonly _tag: "BudgetExceeded"; readonly message: string }

/**
 * A schema compiled once, ready to validate many instances. `validate` is synchronous and pure: it
 * never coerces, inserts defaults or mutates the instance.
 *
 * @category models
 * @since 0.1.0
 */
export interface CompiledSchema {
  /** The schema exactly as given (advertised verbatim in `tools/list`). */
  readonly schema: JsonSchemaDocument
  readonly validate: (instance: unknown) => ValidationResult
}

/**
 * Raised when a schema cannot be compiled (unknown keyword in a strict backend, a `$ref` that
 * leaves the document, a bound exceeded). Refuses the catalog at construction, or, when the backend
 * defers compiling (`precheck`), fails the first call that needs the schema.
 *
 * @category errors
 * @since 0.1.0
 */
export class SchemaCompileError extends Schema.TaggedError<SchemaCompileError>()("SchemaCompileError", {
  message: Schema.String
}) {}

/**
 * The service: compiles raw JSON Schemas.
 *
 * @category services
 * @since 0.1.0
 */
export class SchemaValidator extends Context.Service<SchemaValidator, {
  /** A short name of the backend, for logs and docs ("basic", "json-schema-2020-12"). */
  readonly name: string
  /**
   * Compile once, while the catalog is built: an Effect that succeeds with the compiled schema or
   * fails with the reason the schema is refused. The compiled schema's `validate` is synchronous.
   *
   * ```ts
   * const compiled = yield* validator.compile({ type: "string", minLength: 1 })
   * compiled.validate("") // { _tag: "Invalid", issues: [{ instancePath: "", keyword: "minLength", … }] }
   * ```
   */
  readonly compile: (schema: JsonSchemaDocument) => Effect.Effect<CompiledSchema, SchemaCompileError>
  /**
   * A cheap check of a schema that does not compile it; a backend whose compile is costly offers
   * one to let the catalog defer compiling. With it, building the catalog runs only this check (a
   * reason returned refuses the catalog, as a failed compile would) and each schema compiles at the
   * first call that validates with it, once: a schema that passes the check but does not compile
   * fails that call and every later one. Without it, every schema compiles when the catalog is
   * built.
   */
  readonly precheck?: ((schema: JsonSchemaDocument) => string | undefined) | undefined
}>()("@snodo/core/SchemaValidator") {}
