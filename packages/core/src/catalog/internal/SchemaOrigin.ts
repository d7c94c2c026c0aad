/**
 * Whether an Effect Schema was made by the same copy of `effect` as the one `@snodo/core` uses.
 *
 * Two copies of `effect` in one application (a package that bundles its own, a `file:` dependency
 * with its own `node_modules`) look alike: a schema of the other copy passes `Schema.isSchema`, but
 * its AST nodes are that copy's classes, and decoding it with this copy answers wrong (a valid
 * number "is not a finite number"). The catalog refuses such a schema when it is built, saying so.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import * as SchemaOrigin from "@snodo/core/extension/SchemaOrigin"
 *
 * SchemaOrigin.isOurs(Schema.String) // true
 * ```
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** The base prototype every AST node of this copy of effect inherits. */
const astBase: object = Object.getPrototypeOf(Object.getPrototypeOf(Schema.String.ast)) as object

/**
 * Whether `schema`'s AST is this copy's.
 *
 * @category guards
 * @since 0.1.0
 */
export const isOurs = (schema: Schema.Top): boolean => Object.prototype.isPrototypeOf.call(astBase, schema.ast)

/**
 * The reason a schema from another copy is refused, for a catalog error.
 *
 * @category combinators
 * @since 0.1.0
 */
export const anotherCopy = (which: string): string =>
  `its ${which} schema was made by another copy of the effect package than the one @snodo/core uses. ` +
  "Two copies of effect are loaded: make effect a single dependency of the application " +
  "(snodo's packages take it as a peer dependency; `npm ls effect` shows the copies, `npm dedupe` may merge them)"
