/**
 * A module of the package loaded by its `import()` at first use, then at once: what a server
 * needs only for a feature it may not use (the basic JSON Schema compiler, the initialize era's
 * input requests, a listen stream, …) stays out of the eager chunk (scripts/bundle-dist.ts
 * leaves every module reached by `import()` out of it), so a server that does not use it does not
 * read or parse it at start.
 *
 * The `import("./X.ts")` is written at the call site (`LazyModule.make(() => import("./X.ts"))`):
 * the build finds lazy modules by that text.
 *
 * @internal
 */
import { Effect } from "effect"

/**
 * A module loaded at first use could not be imported: a packaging fault (a bundle or deployment
 * that left out a file of `dist/`), so a defect, with Node's error as its cause.
 */
export class LazyModuleMissing extends Error {
  override readonly name = "LazyModuleMissing"
  constructor(cause: unknown) {
    super(
      `@snodo/core: a module it loads at first use could not be imported (${cause instanceof Error ? cause.message : String(cause)}); ` +
        "if you bundle or copy the package, keep every file of its dist/ (a bundler: keep its import() chunks, e.g. esbuild --splitting)",
      { cause }
    )
  }
}

export interface LazyModule<M> {
  /** The module: imported the first time, then the same module at once. */
  readonly load: Effect.Effect<M>
  /** The module if it was loaded, for a synchronous caller that runs only after a `load`. */
  readonly loaded: () => M | undefined
}

export const make = <M>(importer: () => Promise<M>): LazyModule<M> => {
  let module: M | undefined
  return {
    load: Effect.suspend(() =>
      module === undefined
        ? Effect.map(
          Effect.orDie(Effect.tryPromise({ try: importer, catch: (cause) => new LazyModuleMissing(cause) })),
          (loaded) => (module = loaded)
        )
        : Effect.succeed(module)
    ),
    loaded: () => module
  }
}

/** `run` of the module: at once when it is loaded (no fiber needed), else once it is. */
export const use = <M, A, E, R>(lazy: LazyModule<M>, run: (module: M) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const module = lazy.loaded()
  return module === undefined ? Effect.flatMap(lazy.load, run) : run(module)
}
