/**
 * The stdio transport: newline-delimited JSON-RPC on stdin/stdout.
 *
 * Lines up to 2 MiB (longer ones are answered -32700 and skipped, nothing else lost; invalid UTF-8
 * is answered -32700); writes are serialized, so a request's notifications are written before its
 * response; a frame is written at once when no write is in flight, and the frames produced
 * meanwhile leave together in one write; a stdout that accepts nothing for 5 s while frames wait
 * ends the transport and interrupts its work (their finalizers run); at most
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
 * import * as StdioTransport from "@snodo/core/transport/StdioTransport"
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
import { Deferred, Duration, Effect, Layer, Logger, Queue, Schema, Stdio, Stream } from "effect"
import type { Readable, Writable } from "node:stream"
import { ParseError } from "../pipeline/McpError.ts"
import type { ServerRuntime } from "../runtime/ServerRuntime.ts"
import * as Connection from "./Connection.ts"
import * as FrameWriter from "../internal/FrameWriter.ts"
import * as LineFramer from "../internal/LineFramer.ts"

/** Transport options. @since 0.1.0 */
export interface Options {
  /** Longest accepted line in bytes (default 2 MiB). */
  readonly maxLineBytes?: number
  /** How long stdout may accept nothing while frames wait before the transport gives up (default 5 s). */
  readonly writeTimeout?: Duration.Input
  /** Frames that may wait for stdout before writers wait too (default 1,024). */
  readonly writeQueue?: number
  /** Characters that may wait for stdout before writers wait too (default 1 Mi). */
  readonly writeQueueChars?: number
  /** Open `subscriptions/listen` streams at once (default 32); more are refused with -32603. */
  readonly maxSubscriptions?: number
}

/**
 * Raised when stdout stopped accepting writes for longer than the write timeout, or failed.
 *
 * @since 0.1.0
 */
export class StdoutStalled extends Schema.TaggedError<StdoutStalled>()("StdoutStalled", {
  message: Schema.String
}) {}

/** The Node streams {@link runStreams} serves on. @since 0.1.0 */
export interface NodeStreams {
  readonly stdin: Pick<Readable, "on" | "off" | "pause" | "resume">
  readonly stdout: Pick<Writable, "write" | "on" | "off">
}

/** Loggers that write to stderr, for processes whose stdout is the protocol. @since 0.1.0 */
export const stderrLogger: Layer.Layer<never> = Logger.layer([Logger.withConsoleError(Logger.formatSimple)])

const tooLong = Connection.rejectFrame(new ParseError({ message: "Parse error: line exceeds the size limit" }))
const invalidUtf8 = Connection.rejectFrame(new ParseError({ message: "Parse error: invalid UTF-8" }))

/** Reads input: calls `onChunk` for each chunk, completes at the end of input (or its failure). */
type Input = (onChunk: (chunk: Uint8Array) => void) => Effect.Effect<void>

const inputFailed = Effect.logWarning("stdin failed; treating as end of input")

const serve = (
  input: Input,
  output: FrameWriter.Output,
  options: Options | undefined
): Effect.Effect<void, StdoutStalled, ServerRuntime> =>
  Effect.scoped(Effect.gen(function*() {
    const stopped = yield* Deferred.make<never, StdoutStalled>()
    const writer = FrameWriter.make(output, {
      queue: options?.writeQueue ?? 1024,
      queueChars: options?.writeQueueChars ?? 1024 * 1024,
      stallMillis: Duration.toMillis(Duration.fromInputUnsafe(options?.writeTimeout ?? "5 seconds")),
      onFail: (message) => Deferred.doneUnsafe(stopped, Effect.fail(new StdoutStalled({ message: `stdout: ${message}` })))
    })
    yield* Effect.addFinalizer(() => Effect.sync(writer.close))
    const connection = yield* Connection.make({
      transport: "stdio",
      sink: writer,
      ...(options?.maxSubscriptions === undefined ? {} : { maxSubscriptions: options.maxSubscriptions })
    })
    const framer = LineFramer.make(options?.maxLineBytes ?? LineFramer.defaultMaxLineBytes)
    const onFrames = (frames: ReadonlyArray<LineFramer.Frame>): void => {
      for (const frame of frames) {
        switch (frame._tag) {
          case "Line":
            connection.receiveUnsafe(frame.text)
            break
          case "TooLong":
            writer.writeUnsafe(tooLong)
            break
          case "InvalidUtf8":
            writer.writeUnsafe(invalidUtf8)
            break
        }
      }
    }
    const serving = input((chunk) => onFrames(framer.push(chunk))).pipe(
      Effect.andThen(Effect.sync(() => onFrames(framer.end()))),
      Effect.andThen(connection.end),
      Effect.andThen(writer.flushed)
    )
    yield* Effect.raceFirst(serving, Deferred.await(stopped))
  })).pipe(Effect.provide(stderrLogger))

const nodeInput = (stdin: NodeStreams["stdin"]): Input => (onChunk) =>
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
    stdin.resume() // also when someone paused it before
    return Effect.sync(() => {
      detach()
      stdin.pause()
    })
  })

/**
 * Serves the `ServerRuntime` on a pair of Node streams until the input ends.
 *
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

/**
 * Serves the `ServerRuntime` through the `Stdio` service until EOF (platforms without Node's
 * process streams, or a `Stdio` of your own).
 *
 * @since 0.1.0
 */
export const runStdio = (options?: Options): Effect.Effect<void, StdoutStalled, ServerRuntime | Stdio.Stdio> =>
  Effect.gen(function*() {
    const stdio = yield* Stdio.Stdio
    const queue = yield* Queue.unbounded<readonly [text: string, done: (error?: unknown) => void]>()
    yield* Queue.take(queue).pipe(
      Effect.flatMap(([text, done]) =>
        Stream.run(Stream.succeed(text), stdio.stdout()).pipe(
          Effect.match({ onFailure: (error) => done(error), onSuccess: () => done() })
        )
      ),
      Effect.forever,
      Effect.forkScoped
    )
    const input: Input = (onChunk) =>
      stdio.stdin.pipe(
        Stream.runForEach((chunk) => Effect.sync(() => onChunk(chunk))),
        Effect.catch(() => inputFailed)
      )
    return yield* serve(input, { write: (text, done) => void Queue.offerUnsafe(queue, [text, done]) }, options)
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
 * import * as StdioTransport from "@snodo/core/transport/StdioTransport"
 *
 * const Stdio = StdioTransport.layer().pipe(Layer.provide(Server.layer), Layer.provide(NodeStdio.layer))
 * ```
 *
 * @since 0.1.0
 */
export const layer = (options?: Options): Layer.Layer<never, never, ServerRuntime | Stdio.Stdio> =>
  Layer.effectDiscard(Effect.forkScoped(
    run(options).pipe(
      Effect.catchTag("StdoutStalled", (error) => Effect.logError("stdio transport ended", error.message)),
      Effect.provide(stderrLogger)
    )
  ))
