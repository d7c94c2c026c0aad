/**
 * What `StdioTransport.runStdio` needs of Effect's `Stdio` and `Stream` modules, loaded by its
 * `import()` when it runs: a program that loads `@snodo/core` without serving through the `Stdio`
 * service (an HTTP server; a stdio server on Node's process streams) does not load `Stream`,
 * `Channel`, `Sink` and `Queue` for it.
 *
 * @internal
 */
import { Effect, type PlatformError, Stdio, Stream } from "effect"

/** The `Stdio` service of the context. */
export const service: Effect.Effect<Stdio.Stdio, never, Stdio.Stdio> = Effect.service(Stdio.Stdio)

/** Writes one text to the service's stdout. */
export const write = (stdio: Stdio.Stdio, text: string): Effect.Effect<void, PlatformError.PlatformError> =>
  Stream.run(Stream.succeed(text), stdio.stdout())

/** Reads the service's stdin, running `f` on each chunk in turn. */
export const readEach = <E, R>(
  stdio: Stdio.Stdio,
  f: (chunk: Uint8Array) => Effect.Effect<void, E, R>
): Effect.Effect<void, PlatformError.PlatformError | E, R> => stdio.stdin.pipe(Stream.runForEach(f))
