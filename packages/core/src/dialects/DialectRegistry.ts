/**
 * The allowlist of enabled dialects: a request whose `_meta` names no registered dialect is refused
 * with -32022 listing what is supported. Only 2026-07-28 is registered by default; installing a
 * package never enables another revision by itself.
 *
 * The 2025-11-25 dialect (its `initialize`, `logging/setLevel` and `resources/subscribe` routes)
 * is imported with this module, not behind an `import()`: in a server bundled into one file, an
 * `import()` makes esbuild defer the evaluation of the imported module and of everything it imports
 * (every module of both chunks), which V8 then parses twice (docs/startup.md).
 *
 * @example
 * ```ts
 * import { Dialect2025_11_25, Dialect2026_07_28, DialectRegistry } from "@snodo/core/dialect"
 *
 * // Both eras, 2026-07-28 preferred; a Layer that fails with ConfigurationError on a mistake
 * const Both = DialectRegistry.layer([Dialect2026_07_28, Dialect2025_11_25])
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { ConfigurationError } from "../pipeline/ConfigurationError.ts"
import type { Dialect } from "../routes/Dialect.ts"
import type { Registry } from "../routes/Revision.ts"
import { Dialect2025_11_25 } from "./Dialect2025_11_25.ts"
import { Dialect2026_07_28 } from "./Dialect2026_07_28.ts"

/**
 * The versions snodo ships a dialect for.
 *
 * @category models
 * @since 0.1.0
 */
export type BuiltInVersion = "2026-07-28" | "2025-11-25"

/** The built-in dialects. */
const builtIn: Readonly<Record<BuiltInVersion, Effect.Effect<Dialect>>> = {
  "2026-07-28": Effect.succeed(Dialect2026_07_28),
  "2025-11-25": Effect.succeed(Dialect2025_11_25)
}

const isBuiltIn = (version: string): version is BuiltInVersion => Object.hasOwn(builtIn, version)

const registryOf = (dialects: ReadonlyArray<Dialect>): Registry<Dialect> => {
  const byVersion = new Map(dialects.map((dialect) => [dialect.version, dialect]))
  return {
    supported: dialects.map((dialect) => dialect.version),
    dialects,
    legacy: dialects.filter((dialect) => dialect.session !== undefined),
    get: (version) => byVersion.get(version)
  }
}

/**
 * @category services
 * @since 0.1.0
 */
export class DialectRegistry extends Context.Service<DialectRegistry, Registry<Dialect>>()("@snodo/core/DialectRegistry") {}

/**
 * A registry of exactly these dialects, or built-in versions by name: the first is the preferred
 * one; at least one, each version once.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (
  dialects: ReadonlyArray<BuiltInVersion | Dialect>
): Effect.Effect<Registry<Dialect>, ConfigurationError> =>
  Effect.suspend(() => {
    const unknown = dialects.find((entry) => typeof entry === "string" && !isBuiltIn(entry))
    if (unknown !== undefined) {
      return Effect.fail(
        new ConfigurationError({ message: `dialects: unknown version ${String(unknown)} (built in: ${Object.keys(builtIn).join(", ")})` })
      )
    }
    return Effect.forEach(dialects, (entry) => typeof entry === "string" ? builtIn[entry] : Effect.succeed(entry)).pipe(
      Effect.flatMap((resolved) => {
        const versions = resolved.map((dialect) => dialect.version)
        if (versions.length === 0 || new Set(versions).size !== versions.length) {
          return Effect.fail(
            new ConfigurationError({ message: `dialects: name at least one version, each once (got ${JSON.stringify(versions)})` })
          )
        }
        return Effect.succeed(registryOf(resolved))
      })
    )
  })

/**
 * The default registry: 2026-07-28 alone.
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultRegistry: Registry<Dialect> = registryOf([Dialect2026_07_28])

/**
 * The registry as a Layer; fails with {@link ConfigurationError} when {@link make} would.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (dialects: ReadonlyArray<BuiltInVersion | Dialect>): Layer.Layer<DialectRegistry, ConfigurationError> =>
  Layer.effect(DialectRegistry, make(dialects))
