/**
 * The stdio transport: newline-delimited JSON-RPC on stdin/stdout.
 *
 * Lines up to 2 MiB (longer ones are answered -32700 and skipped, nothing else lost; invalid UTF-8
 * is answered -32700); writes are serialized, so a request's notifications are written before its
 * response; a frame is written at once when no write is in flight, and the frames produced
 * meanwhile leave together in one write; a stdout that accepts nothing for 5 s while frames wait
 * ends the transport and interrupts its work (their finalizers run); requests are held while 64
 * are in flight, or while their frames plus the output waiting for stdout reach 1 Mi characters,
 * and stdin is not read once 64 Ki characters are held (a client that sends without reading its
 * answers fills its own pipe, not the server's memory); a `notifications/cancelled` or a response
 * to the server's own request goes past the held requests, so a client can still cancel; reading
 * resumes once the held requests are handled. Output waits for stdout up to 256 Ki
 * characters, then writers wait too: what waits is at most that plus one answer per request in
 * flight, which is why both are small (answers that wait long outlive the young generation, and a
 * flood's RSS grows with them; see docs/reliability.md); at most
 * 32 listen streams are open at once (-32603 beyond); EOF closes the listen streams (each answered,
 * then ended with `notifications/cancelled`), drains the requests in flight, flushes, and returns
 * (exit 0 under `NodeRuntime.runMain`). Logs go to stderr: stdout carries nothing but protocol.
 *
 * On Node, {@link run} reads `process.stdin` and writes `process.stdout` directly (one `data`
 * listener; requests start from it without a fiber hop; one `write` per batch); the `Stdio`
 * service is used where those streams do not exist. {@link runStreams} serves any pair of Node
 * streams, {@link runStdio} always goes through `Stdio`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import * as NodeStdio from "@effect/platform-node/NodeStdio"
 * import * as StdioTransport from "@snodo/core/StdioTransport"
 *
 * StdioTransport.run().pipe(
 *   Effect.provide(Server.layer),
 *   Effect.provide(NodeStdio.layer),
 *   Effect.provide(StdioTransport.stderrLogger), // logs of Layer construction too
 *   NodeRuntime.runMain
 * )
 * ```
 *
 * @since 0.1.0
 */
import { Cause, Deferred, Duration, Effect, Exit, Latch, Layer, Option, References, Runtime, Schema, type Stdio } from "effect"
import type { Readable, Writable } from "node:stream"
import { ParseError } from "@snodo/protocol/jsonrpc/McpError"
import type { ServerRuntime } from "../server/ServerRuntime.ts"
import * as Connection from "./Connection.ts"
import * as FrameWriter from "@snodo/protocol/peer/FrameWriter"
import * as LineFramer from "@snodo/protocol/peer/LineFramer"
import * as Mailbox from "@snodo/protocol/peer/Mailbox"

/**
 * Transport options.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** Longest accepted line in bytes (default 2 MiB). */
  readonly maxLineBytes?: number
  /** How long stdout may accept nothing while frames wait before the transport gives up (default 5 s). */
  readonly writeTimeout?: Duration.Input
  /** Frames that may wait for stdout before writers wait too (default 1,024). */
  readonly writeQueue?: number
  /** Characters that may wait for stdout before writers wait too (default 256 Ki). */
  readonly writeQueueChars?: number
  /** Open `subscriptions/listen` streams at once (default 32); more are refused with -32603. */
  readonly maxSubscriptions?: number
  /**
   * Requests in flight at which stdin stops being read until one is answered (default 64). Each
   * may add its answer to the output waiting for stdout, so this bounds that too.
   */
  readonly maxInFlight?: number
  /**
   * Characters held by the requests in flight plus those waiting for stdout at which stdin stops
   * being read until they drain (default 1 Mi).
   */
  readonly maxPendingChars?: number
  /**
   * Characters of input held past those bounds at which stdin stops being read (default 64 Ki).
   * Below it a `notifications/cancelled` or a response to the server's own request still reaches
   * the server, ahead of the held requests.
   */
  readonly maxHeldChars?: number
}

/**
 * Defaults of the read backpressure: 64 requests in flight, 1 Mi characters pending (input in
 * flight and output waiting); output waits up to 256 Ki characters before writers wait.
 *
 * @category constants
 * @since 0.1.0
 */
const readBounds = {
  maxInFlight: Connection.defaultBackpressure.maxInFlight,
  maxPendingChars: Connection.defaultBackpressure.maxPendingChars,
  writeQueueChars: 256 * 1024
} as const

/**
 * Raised when stdout stopped accepting writes for longer than the write timeout, or failed.
 *
 * @category errors
 * @since 0.1.0
 */
export class StdoutStalled extends Schema.TaggedError<StdoutStalled>()("StdoutStalled", {
  message: Schema.String
}) {
  /** The transport logged it on stderr already: `runMain` must not log it again (on stdout). */
  override readonly [Runtime.errorReported] = false
}

/**
 * The Node streams {@link runStreams} serves on.
 *
 * @category models
 * @since 0.1.0
 */
export interface NodeStreams {
  readonly stdin: Pick<Readable, "on" | "off" | "pause" | "resume">
  readonly stdout: Pick<Writable, "write" | "on" | "off">
}

/**
 * Effect's loggers on stderr, for processes whose stdout is the protocol: the default logger
 * writes with `console.error` (`References.LogToStderr`). It needs no module beyond those every
 * Effect program loads (`effect/Logger` brings the file logger's file system modules with it).
 *
 * @category constants
 * @since 0.1.0
 */
export const stderrLogger: Layer.Layer<never> = Layer.succeed(References.LogToStderr, true)

/**
 * How a platform runs a main Effect (`NodeRuntime.runMain` has this shape).
 *
 * @category models
 * @since 0.1.0
 */
export type RunMain = <E, A>(effect: Effect.Effect<A, E>, options?: { readonly disableErrorReporting?: boolean }) => void

/**
 * Runs a stdio server's main Effect with the platform's runner, with the stderr logger installed
 * around it: every log, the Layer construction's and the failure report included, goes to stderr
 * (the runner's own report would go through the default logger to stdout, the protocol's
 * channel). A failure the transport reported already (a stalled stdout) is not reported twice.
 *
 * @example
 * ```ts
 * import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
 * import * as NodeStdio from "@effect/platform-node/NodeStdio"
 * import * as StdioTransport from "@snodo/core/StdioTransport"
 *
 * StdioTransport.run().pipe(
 *   Effect.provide(Server.layer),
 *   Effect.provide(NodeStdio.layer),
 *   StdioTransport.runMain(NodeRuntime.runMain)
 * )
 * ```
 *
 * @category combinators
 * @since 0.1.0
 */
export const runMain = (runner: RunMain) => <E, A>(effect: Effect.Effect<A, E>): void =>
  runner(
    effect.pipe(
      Effect.tapCause((cause) =>
        Cause.hasInterruptsOnly(cause) || !Runtime.getErrorReported(Cause.squash(cause))
          ? Effect.void
          : Effect.logError("stdio server failed", cause)
      ),
      Effect.provide(stderrLogger)
    ),
    { disableErrorReporting: true }
  )

const tooLong = () => new ParseError({ message: "Parse error: line exceeds the size limit" })
const invalidUtf8 = () => new ParseError({ message: "Parse error: invalid UTF-8" })

/**
 * Reads input: `run` calls `onChunk` for each chunk and completes at the end of input (or its
 * failure); between `pause` and `resume` no chunk is delivered and nothing more is read.
 */
interface Input {
  readonly run: (onChunk: (chunk: Uint8Array) => void) => Effect.Effect<void>
  readonly pause: () => void
  readonly resume: () => void
}

const inputFailed = Effect.logWarning("stdin failed; treating as end of input")

const serve = (
  input: Input,
  output: FrameWriter.Output,
  options: Options | undefined
): Effect.Effect<void, StdoutStalled, ServerRuntime> =>
  Effect.scoped(Effect.gen(function*() {
    const stopped = yield* Deferred.make<never, StdoutStalled>()
    let written = (): void => {}
    const writer = FrameWriter.make(output, {
      queue: options?.writeQueue ?? 1024,
      queueChars: options?.writeQueueChars ?? readBounds.writeQueueChars,
      stallMillis: Duration.toMillis(Duration.fromInputUnsafe(options?.writeTimeout ?? "5 seconds")),
      onWritten: () => written(),
      onFail: (message) => Deferred.doneUnsafe(stopped, Effect.fail(new StdoutStalled({ message: `stdout: ${message}` })))
    })
    yield* Effect.addFinalizer(() => Effect.sync(writer.close))
    // Read backpressure is the connection's: past either bound the frames are held there (a
    // cancellation or a response goes past them), and once they reach `maxHeldChars` stdin is
    // paused (the pipe fills and the client's writes block); each answer or completed write looks
    // again, and once the held frames are handled, reading resumes.
    const connection = yield* Connection.make({
      transport: "stdio",
      sink: writer,
      backpressure: {
        maxInFlight: options?.maxInFlight ?? readBounds.maxInFlight,
        maxPendingChars: options?.maxPendingChars ?? readBounds.maxPendingChars,
        maxHeldChars: options?.maxHeldChars ?? Connection.defaultBackpressure.maxHeldChars,
        pendingOutput: writer.pendingChars,
        pause: input.pause,
        resume: input.resume
      },
      ...(options?.maxSubscriptions === undefined ? {} : { maxSubscriptions: options.maxSubscriptions })
    })
    written = connection.writtenUnsafe
    const framer = LineFramer.make(options?.maxLineBytes ?? LineFramer.defaultMaxLineBytes)
    const receive = (frame: LineFramer.Frame): void => {
      switch (frame._tag) {
        case "Line":
          return connection.receiveUnsafe(frame.text)
        case "TooLong":
          return connection.rejectUnsafe(tooLong())
        case "InvalidUtf8":
          return connection.rejectUnsafe(invalidUtf8())
      }
    }
    const serving = input.run((chunk) => {
      for (const frame of framer.push(chunk)) receive(frame)
    }).pipe(
      Effect.andThen(Effect.logInfo("stdio: end of input; answering the requests in flight, then exiting")),
      // The last line, if unterminated, is handled with what is held (`end` handles it at once).
      Effect.andThen(Effect.sync(() => {
        for (const frame of framer.end()) receive(frame)
      })),
      Effect.andThen(connection.end),
      Effect.andThen(writer.flushed)
    )
    yield* Effect.raceFirst(serving, Deferred.await(stopped))
  })).pipe(
    Effect.onExit((exit) => {
      if (Exit.isSuccess(exit)) return Effect.logInfo("stdio: every answer written; exiting")
      if (Cause.hasInterruptsOnly(exit.cause)) return Effect.logInfo("stdio: interrupted; the requests in flight were interrupted")
      const failure = Cause.findErrorOption(exit.cause)
      return Option.isSome(failure)
        ? Effect.logError(`stdio: ${failure.value.message}; the requests in flight were interrupted; exiting`)
        : Effect.logError("stdio: transport defect; exiting", exit.cause)
    }),
    Effect.provide(stderrLogger)
  )

const nodeInput = (stdin: NodeStreams["stdin"]): Input => {
  let paused = false
  return {
    run: (onChunk) =>
      Effect.callback<void>((resume) => {
        const detach = () => {
          stdin.off("data", onChunk)
          stdin.off("end", onEnd)
          stdin.off("close", onEnd)
          stdin.off("error", onError)
        }
        const onEnd = () => {
          detach()
          resume(Effect.void)
        }
        const onError = () => {
          detach()
          resume(inputFailed)
        }
        stdin.on("data", onChunk)
        stdin.on("end", onEnd)
        stdin.on("close", onEnd)
        stdin.on("error", onError)
        if (!paused) stdin.resume() // also when someone paused it before
        return Effect.sync(() => {
          detach()
          stdin.pause()
        })
      }),
    pause: () => {
      paused = true
      stdin.pause()
    },
    resume: () => {
      paused = false
      stdin.resume()
    }
  }
}

/**
 * Serves the `ServerRuntime` on a pair of Node streams until the input ends.
 *
 * @category combinators
 * @since 0.1.0
 */
export const runStreams = (
  streams: NodeStreams,
  options?: Options
): Effect.Effect<void, StdoutStalled, ServerRuntime> =>
  Effect.suspend(() => {
    const { stdin, stdout } = streams
    const onError = () => {} // a failed write also reaches its callback, which ends the transport
    stdout.on("error", onError)
    return serve(nodeInput(stdin), { write: (text, done) => void stdout.write(text, done) }, options).pipe(
      Effect.ensuring(Effect.sync(() => void stdout.off("error", onError)))
    )
  })

/** A batch of the writer for the `Stdio` sink, and its callback. */
type Batch = readonly [text: string, done: (error?: unknown) => void]

/** Writes that may wait for the `Stdio` sink, per frame the writer lets wait. */
const outputBatches = 4

/**
 * Serves the `ServerRuntime` through the `Stdio` service until EOF (platforms without Node's
 * process streams, or a `Stdio` of your own). What it needs of Effect's `Stdio` and `Stream`
 * modules is loaded when it runs, not by every program that loads `@snodo/core`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const runStdio = (options?: Options): Effect.Effect<void, StdoutStalled, ServerRuntime | Stdio.Stdio> =>
  Effect.gen(function*() {
    const Streams = yield* Effect.promise(() => import("./internal/StdioStreams.ts"))
    const stdio = yield* Streams.service
    // The writer's batches wait here for the Stdio sink, in order. The writer bounds them, and their
    // characters (its writers wait past `writeQueue` frames or `writeQueueChars`), so this bound is
    // only reached by a sink that fell far behind: the write fails, and the transport ends as on a
    // stalled stdout.
    const capacity = outputBatches * (options?.writeQueue ?? 1024)
    const batches = Mailbox.makeUnsafe<Batch>({ capacity, overflow: "close" })
    yield* batches.take.pipe(
      Effect.flatMap(([text, done]) =>
        Streams.write(stdio, text).pipe(
          Effect.match({ onFailure: (error) => done(error), onSuccess: () => done() })
        )
      ),
      Effect.forever,
      Effect.ignore,
      Effect.forkScoped
    )
    const write = (text: string, done: (error?: unknown) => void): void => {
      const offered = batches.offer([text, done])
      if (offered === "overflow" || offered === "closed") done(new Error(`more than ${capacity} writes wait for stdout`))
    }
    // Paused, the next chunk is not pulled until `resume` opens the gate.
    const gate = Latch.makeUnsafe(true)
    const input: Input = {
      run: (onChunk) =>
        Streams.readEach(stdio, (chunk) => Effect.andThen(Effect.sync(() => onChunk(chunk)), gate.await)).pipe(
          Effect.catch(() => inputFailed)
        ),
      pause: () => gate.closeUnsafe(),
      resume: () => gate.openUnsafe()
    }
    return yield* serve(input, { write }, options)
  }).pipe(Effect.scoped)

const processStreams = (): NodeStreams | undefined => {
  const process = (globalThis as { readonly process?: Partial<NodeStreams> }).process
  const stdin = process?.stdin
  const stdout = process?.stdout
  return typeof stdin?.on === "function" && typeof stdin.resume === "function" && typeof stdout?.write === "function"
    ? { stdin, stdout }
    : undefined
}

/**
 * Serves the `ServerRuntime` on stdin/stdout until EOF: on Node the process streams directly,
 * elsewhere through the `Stdio` service. As the main effect of a process (`NodeRuntime.runMain`),
 * the process exits 0 at EOF.
 *
 * @category combinators
 * @since 0.1.0
 */
export const run = (options?: Options): Effect.Effect<void, StdoutStalled, ServerRuntime | Stdio.Stdio> =>
  Effect.suspend(() => {
    const streams = processStreams()
    return streams === undefined ? runStdio(options) : runStreams(streams, options)
  })

/**
 * The stdio transport as a Layer: serves in the background for as long as the Layer's scope lives
 * (for an application that also runs something else, say an HTTP server). The transport ends at
 * EOF or on a stalled stdout (logged on stderr); the application decides when to exit. A process
 * that is only a stdio server runs {@link run} as its main effect instead, and exits at EOF.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import * as StdioTransport from "@snodo/core/StdioTransport"
 *
 * const Stdio = StdioTransport.layer().pipe(Layer.provide(Server.layer), Layer.provide(NodeStdio.layer))
 * ```
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: Options): Layer.Layer<never, never, ServerRuntime | Stdio.Stdio> =>
  Layer.effectDiscard(Effect.forkScoped(
    run(options).pipe(
      Effect.catchTag("StdoutStalled", (error) => Effect.logError("stdio transport ended", error.message)),
      Effect.provide(stderrLogger)
    )
  ))
