/**
 * The one error of a configuration mistake: a server, registry or extension set up in a way that
 * cannot work (an unknown protocol version, a duplicate, a cache hint for a method that is not
 * cacheable). Building the Layer fails with it; constructors never throw. Mistakes in the catalog's
 * definitions fail with `CatalogError` instead, which names the component.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConfigurationError } from "@snodo/core"
 *
 * const program = Effect.fail(new ConfigurationError({ message: "dialects: unknown version 1999-01-01" }))
 * ```
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * @category errors
 * @since 0.1.0
 */
export class ConfigurationError extends Schema.TaggedError<ConfigurationError>()("ConfigurationError", {
  message: Schema.String
}) {}
