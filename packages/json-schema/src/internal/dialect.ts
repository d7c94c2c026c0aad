/**
 * Which dialect a schema declares, without hyperjump: the compiler refuses an unsupported one, and
 * the validator's precheck refuses it before anything is compiled.
 *
 * @since 0.1.0
 */

/**
 * The dialect of a schema without `$schema`.
 *
 * @category constants
 * @since 0.1.0
 */
export const DIALECT = "https://json-schema.org/draft/2020-12/schema"

/**
 * The schema's `$schema` as written, if it has one.
 *
 * @category combinators
 * @since 0.1.0
 */
export const dialectOf = (schema: unknown): string | undefined =>
  typeof schema === "object" && schema !== null && typeof (schema as Record<string, unknown>)["$schema"] === "string"
    ? (schema as Record<string, string>)["$schema"]
    : undefined

/**
 * The refusal of a schema whose declared dialect is neither Draft 2020-12 nor one of `known`
 * (dialect URIs without a trailing `#`), or `undefined`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const unsupportedDialect = (schema: unknown, known: ReadonlySet<string>): string | undefined => {
  const written = dialectOf(schema)
  const declared = written?.replace(/#$/, "")
  if (declared === undefined || declared === DIALECT || known.has(declared)) return undefined
  return `the dialect ${JSON.stringify(written)} is not supported; @snodo/json-schema supports Draft 2020-12 ` +
    `(${DIALECT}) and dialects registered in its catalog`
}
