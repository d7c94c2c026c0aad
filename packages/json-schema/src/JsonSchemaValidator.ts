/**
 * The full JSON Schema Draft 2020-12 backend of the `SchemaValidator` seam, on
 * `@hyperjump/json-schema`.
 *
 * - **Compile once, never fetch.** Schemas compile at the first call that validates with them
 *   (the catalog, when it is built, only runs a cheap `precheck`: plain JSON within the size and
 *   depth bounds, a supported `$schema`), or when the catalog is built with `eagerCompile`; a
 *   `$ref` resolves within the schema, hyperjump's built-in 2020-12 meta-schemas or the application's local
 *   `catalog`, and anything else refuses the schema (the compiler has no `http`, `https` or `file`
 *   retrieval). Other dialects (`$schema` draft-07, …) are refused unless registered in the catalog.
 * - **Pure validation.** No coercion, no default insertion, no mutation; `format` is an annotation
 *   (Draft 2020-12's default). `CompiledSchema.schema` is the object given, untouched.
 * - **Bounded (SEP-2106).** Schema size and depth, `$ref` depth, composition breadth and nesting
 *   and the compile time refuse a schema at definition; a per-call budget of schema evaluations
 *   turns runaway validation into `BudgetExceeded`. See {@link defaults}.
 * - **Quiet issues.** An issue names the instance path and the keyword, never the value.
 *
 * Compilation is hyperjump's asynchronous compiler run as an Effect on the caller's thread (bounded
 * by `maxCompileMillis`); validation is synchronous. Nothing is registered with hyperjump: each
 * compile sees only its schema, the validator's catalog and the built-in meta-schemas, so two
 * validators with different catalogs never interfere. Only dialects (meta-schemas with
 * `$vocabulary`) are process-wide in hyperjump: a dialect URI may be defined once per process, and
 * a second, different definition is refused.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { SchemaValidator } from "@snodo/core/SchemaValidator"
 * import { JsonSchemaValidator } from "@snodo/json-schema"
 *
 * // Replaces the core's basic backend for every raw JSON Schema of the server.
 * const Validation = JsonSchemaValidator.layer({
 *   catalog: { "https://example.com/money.json": { type: "object", required: ["amount"] } }
 * })
 *
 * // Or directly: compile once (an Effect), validate many times (synchronous).
 * const program = Effect.gen(function*() {
 *   const validator = yield* JsonSchemaValidator.make()
 *   const compiled = yield* validator.compile({ type: "object", required: ["amount"] })
 *   return compiled.validate({}) // { _tag: "Invalid", issues: [{ instancePath: "", keyword: "required", … }] }
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Duration, Effect, Layer } from "effect"
import type { EvaluationPlugin } from "@hyperjump/json-schema/experimental"
import type { CompiledSchema as HyperjumpCompiled } from "@hyperjump/json-schema/experimental"
import type { OutputUnit } from "@hyperjump/json-schema/draft-2020-12"
import type * as Instance from "@hyperjump/json-schema/instance/experimental"
import {
  type CompiledSchema,
  type JsonSchemaDocument,
  SchemaCompileError,
  SchemaValidator,
  type ValidationResult
} from "@snodo/core/SchemaValidator"
import { type Ast, checkCompiled, checkDocument, INTERNAL_BASE } from "./internal/bounds.ts"
import type { Catalog } from "./internal/compiler.ts"
import { unsupportedDialect } from "./internal/dialect.ts"
import type * as Engine from "./internal/engine.ts"
import { issuesOf } from "./internal/issues.ts"

/**
 * Configuration of the backend. Every bound has a default ({@link defaults}).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /**
   * Documents a `$ref` may point to, served from memory: a record from retrieval URI to document,
   * or an array of documents that each carry an absolute `$id`. A custom meta-schema registered
   * here may be used as a `$schema`.
   */
  readonly catalog?: Readonly<Record<string, JsonSchemaDocument>> | ReadonlyArray<JsonSchemaDocument> | undefined
  /** Maximum JSON values in one schema document. */
  readonly maxSchemaNodes?: number | undefined
  /** Maximum nesting depth of one schema document. */
  readonly maxSchemaDepth?: number | undefined
  /** Maximum `$ref` / `$dynamicRef` hops in one chain that stays on the same instance location. */
  readonly maxRefDepth?: number | undefined
  /** Maximum subschemas of one `allOf`, `anyOf` or `oneOf`. */
  readonly maxCompositionBreadth?: number | undefined
  /** Maximum nesting of composition keywords (`allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas`) on one instance location, through references. */
  readonly maxCompositionDepth?: number | undefined
  /** Maximum schema evaluations (one schema applied to one instance location) per call. */
  readonly maxValidationSteps?: number | undefined
  /** Maximum time to compile one schema. */
  readonly maxCompileMillis?: number | undefined
  /** Maximum issues reported for one instance. */
  readonly maxIssues?: number | undefined
  /**
   * Compile every raw schema when the catalog is built, so that any schema that does not compile
   * refuses the server at start (default `false`: the catalog runs the validator's cheap
   * `precheck` at build and each schema compiles at its first use, which keeps hyperjump and the
   * compiles out of the server's start).
   */
  readonly eagerCompile?: boolean | undefined
}

/**
 * The default bounds.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults = {
  maxSchemaNodes: 10_000,
  maxSchemaDepth: 64,
  maxRefDepth: 32,
  maxCompositionBreadth: 64,
  maxCompositionDepth: 16,
  maxValidationSteps: 1_000_000,
  maxCompileMillis: 5_000,
  maxIssues: 20
} as const

type Limits = { readonly [K in keyof typeof defaults]: number }

/** Time allowed to load the catalog (build and compile its documents and the 2020-12 meta-schema). */
const LOAD_MILLIS = 30_000

/**
 * The backend as a service value: loads the catalog, failing if a catalog document is not a valid
 * schema. `compile` is an Effect that runs hyperjump's compiler on the calling fiber. hyperjump
 * itself is imported when it is first needed (the catalog, or the first compile), so a server
 * whose inputs are all Effect Schemas never loads it. `precheck` (absent with `eagerCompile`)
 * refuses, without hyperjump, a schema that is not plain JSON within `maxSchemaNodes` and
 * `maxSchemaDepth`, or that declares a `$schema` other than Draft 2020-12 and the catalog's.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { JsonSchemaValidator } from "@snodo/json-schema"
 *
 * const program = Effect.gen(function*() {
 *   const validator = yield* JsonSchemaValidator.make({ maxCompositionBreadth: 8 })
 *   const compiled = yield* validator.compile({ anyOf: [{ type: "string" }, { type: "integer" }] })
 *   return compiled.validate(1.5)._tag // "Invalid"
 * })
 * ```
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options?: Options): Effect.Effect<SchemaValidator["Service"], SchemaCompileError> =>
  Effect.gen(function*() {
    const limits = resolveLimits(options)
    const entries = yield* catalogEntries(options?.catalog, limits)
    const timedOut = () => new SchemaCompileError({ message: `loading the catalog took longer than ${LOAD_MILLIS} ms` })
    const loaded = yield* Effect.cached(Effect.flatMap(engine, (hyperjump) =>
      Effect.tryPromise({
        try: (signal) => hyperjump.loadCatalog(entries, nextRetrievalUri(), { at: performance.now() + LOAD_MILLIS, signal }),
        catch: (error) =>
          error instanceof hyperjump.CompileTimedOut ? timedOut() : new SchemaCompileError({ message: hyperjump.describe(error) })
      }).pipe(
        Effect.timeoutOrElse({ duration: Duration.millis(LOAD_MILLIS), orElse: () => Effect.fail(timedOut()) }),
        Effect.map((catalog) => [hyperjump, catalog] as const)
      )))
    // A catalog given is loaded, and refused, now; without one, hyperjump loads at the first compile.
    if (entries.length > 0) yield* loaded
    // The catalog's dialects are among its documents: the precheck lets those through, the compile decides.
    const catalogUris = new Set(entries.map(([uri]) => uri.replace(/#$/, "")))
    const precheck = (schema: JsonSchemaDocument) => checkDocument(schema, limits) ?? unsupportedDialect(schema, catalogUris)
    return SchemaValidator.of({
      name: "json-schema-2020-12",
      compile: (schema) => Effect.flatMap(loaded, ([hyperjump, catalog]) => compile(hyperjump, catalog, limits, schema)),
      ...(options?.eagerCompile === true ? {} : { precheck })
    })
  })

/** hyperjump and the compiler, imported at their first use (see `internal/engine.ts`). */
const engine: Effect.Effect<typeof Engine> = Effect.promise(() => import("./internal/engine.ts"))

/**
 * A Layer providing the full Draft 2020-12 `SchemaValidator`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: Options): Layer.Layer<SchemaValidator, SchemaCompileError> =>
  Layer.effect(SchemaValidator, make(options))

const resolveLimits = (options: Options | undefined): Limits => {
  const limits: { -readonly [K in keyof Limits]: number } = { ...defaults }
  for (const key of Object.keys(defaults) as Array<keyof Limits>) {
    const value = options?.[key]
    if (value !== undefined) limits[key] = value
  }
  return limits
}

const catalogEntries = (
  catalog: Options["catalog"],
  limits: Limits
): Effect.Effect<ReadonlyArray<readonly [string, unknown]>, SchemaCompileError> =>
  Effect.suspend(() => {
    const entries: Array<readonly [string, unknown]> = []
    const documents = catalog === undefined
      ? []
      : Array.isArray(catalog)
      ? catalog.map((document) => [idOf(document), document] as const)
      : Object.entries(catalog as Record<string, JsonSchemaDocument>)
    for (const [uri, document] of documents) {
      if (uri === undefined) {
        return Effect.fail(new SchemaCompileError({ message: "a catalog document given in an array must have an absolute $id" }))
      }
      // The application's own documents: plain JSON of bounded depth, of any size.
      const refused = checkDocument(document, { ...limits, maxSchemaNodes: Number.POSITIVE_INFINITY })
      if (refused !== undefined) {
        return Effect.fail(new SchemaCompileError({ message: `catalog document ${JSON.stringify(uri)}: ${refused}` }))
      }
      entries.push([uri, document])
    }
    return Effect.succeed(entries)
  })

const idOf = (document: JsonSchemaDocument): string | undefined =>
  typeof document === "object" && typeof document["$id"] === "string" && /^[a-z][a-z0-9+.-]*:/i.test(document["$id"])
    ? document["$id"]
    : undefined

let compiledCount = 0

/** A fresh retrieval URI per compile: documents never share a base they did not declare. */
const nextRetrievalUri = (): string => `${INTERNAL_BASE}${++compiledCount}`

const compile = (
  hyperjump: typeof Engine,
  catalog: Catalog,
  limits: Limits,
  schema: JsonSchemaDocument
): Effect.Effect<CompiledSchema, SchemaCompileError> =>
  Effect.suspend(() => {
    const refused = checkDocument(schema, limits)
    if (refused !== undefined) return Effect.fail(new SchemaCompileError({ message: refused }))
    const timedOut = () =>
      new SchemaCompileError({ message: `compiling the schema took longer than ${limits.maxCompileMillis} ms (maxCompileMillis)` })
    return Effect.tryPromise({
      // The deadline is also checked inside the compile, at every document lookup: hyperjump's
      // compile is a chain of promises that never yields to timers. Interrupting it aborts the
      // signal, which stops it at its next lookup.
      try: (signal) =>
        hyperjump.compileSchema(schema, nextRetrievalUri(), catalog, { at: performance.now() + limits.maxCompileMillis, signal }),
      catch: (error) =>
        error instanceof hyperjump.CompileTimedOut ? timedOut() : new SchemaCompileError({ message: hyperjump.describe(error) })
    }).pipe(
      Effect.timeoutOrElse({ duration: Duration.millis(limits.maxCompileMillis), orElse: () => Effect.fail(timedOut()) }),
      Effect.flatMap((compiled) => {
        harden(compiled)
        const unbounded = checkCompiled(compiled.ast as unknown as Ast, compiled.schemaUri, limits)
        return unbounded === undefined
          ? Effect.succeed<CompiledSchema>({ schema, validate: validator(hyperjump, compiled, limits) })
          : Effect.fail(new SchemaCompileError({ message: unbounded }))
      })
    )
  })

/**
 * hyperjump's `properties` looks instance names up with `in` on a plain object, so an instance
 * member named like an `Object.prototype` member (`valueOf`, `constructor`, …) that the schema does
 * not declare reaches a function instead of a subschema and throws. Null-prototype tables make the
 * lookup see only the schema's own names.
 */
const harden = (compiled: HyperjumpCompiled): HyperjumpCompiled => {
  for (const [url, node] of Object.entries(compiled.ast)) {
    if (url === "metaData" || url === "plugins" || !Array.isArray(node)) continue
    for (const keyword of node as Array<[string, string, unknown]>) {
      if (keyword[0] === PROPERTIES && typeof keyword[2] === "object" && keyword[2] !== null) {
        keyword[2] = Object.assign(Object.create(null) as object, keyword[2])
      }
    }
  }
  return compiled
}

const PROPERTIES = "https://json-schema.org/keyword/properties"

const VALID: ValidationResult = { _tag: "Valid" }

/** Thrown by {@link Budget} through hyperjump's evaluation; caught by the validator. */
const EXHAUSTED: unique symbol = Symbol("@snodo/json-schema/BudgetExhausted")

/** Counts schema evaluations; stops the evaluation when the budget is spent. */
class Budget implements EvaluationPlugin {
  readonly #limit: number
  #left: number
  constructor(limit: number) {
    this.#limit = limit
    this.#left = limit
  }
  reset(): void {
    this.#left = this.#limit
  }
  beforeSchema(): void {
    if (--this.#left < 0) throw EXHAUSTED
  }
}

const validator = ({ BASIC, Instance, interpret }: typeof Engine, compiled: HyperjumpCompiled, limits: Limits) => {
  const budgetExceeded: ValidationResult = {
    _tag: "BudgetExceeded",
    message: `validation stopped after ${limits.maxValidationSteps} schema evaluations (maxValidationSteps)`
  }
  const tooDeep: ValidationResult = { _tag: "BudgetExceeded", message: "validation stopped: the instance nests too deeply" }
  return (instance: unknown): ValidationResult => {
    let node: Instance.JsonNode
    try {
      node = Instance.fromJs(instance as never)
    } catch (error) {
      if (error instanceof RangeError) return tooDeep
      return { _tag: "Invalid", issues: [{ instancePath: "", keyword: "type", message: "is not a JSON value" }] }
    }
    const budget = new Budget(limits.maxValidationSteps)
    try {
      if (interpret(compiled, node, { plugins: [budget] }).valid) return VALID
      // Failures are rare and cost a second evaluation that records where and why.
      budget.reset()
      const output = interpret(compiled, node, { outputFormat: BASIC, plugins: [budget] })
      const units: ReadonlyArray<OutputUnit> = output.valid ? [] : output.errors ?? []
      return { _tag: "Invalid", issues: issuesOf(units, compiled.ast as unknown as Ast, instance, limits.maxIssues) }
    } catch (error) {
      if (error === EXHAUSTED) return budgetExceeded
      if (error instanceof RangeError) return tooDeep
      throw error
    }
  }
}
