/**
 * The stdio transport: newline-delimited JSON-RPC on the `Stdio` service.
 *
 * Lines up to 2 MiB (longer ones are answered -32700 and skipped, nothing else lost); writes are
 * serialized through one bounded queue, so a request's notifications are written before its
 * response; a write that stalls past 5 s ends the transport and interrupts its work; at most 32
 * listen streams are open at once (-32603 beyond); EOF closes the listen streams (each answered,
 * then ended with `notifications/cancelled`), drains the requests in flight, flushes, and returns
 * (exit 0 under `NodeRuntime.runMain`). Logs go to stderr: stdout carries nothing but protocol.
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
import { ParseError } from "../pipeline/McpError.ts"
import { SinkClosed } from "../runtime/RequestSink.ts"
import type { ServerRuntime } from "../runtime/ServerRuntime.ts"
import * as Connection from "./Connection.ts"
import * as LineFramer from "./LineFramer.ts"

/** Transport options. @since 0.1.0 */
export interface Options {
  /** Longest accepted line in bytes (default 2 MiB). */
  readonly maxLineBytes?: number
  /** How long one write may wait for stdout before the transport gives up (default 5 s). */
  readonly writeTimeout?: Duration.Input
  /** Frames that may wait for stdout (default 1,024). */
  readonly writeQueue?: number
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

interface Pending {
  readonly frame: string
  readonly written: Deferred.Deferred<void>
}

/** Loggers that write to stderr, for processes whose stdout is the protocol. @since 0.1.0 */
export const stderrLogger: Layer.Layer<never> = Logger.layer([Logger.withConsoleError(Logger.formatSimple)])

/**
 * Serves the `ServerRuntime` on stdin/stdout until EOF.
 *
 * @since 0.1.0
 */
export const run = (options?: Options): Effect.Effect<void, StdoutStalled, ServerRuntime | Stdio.Stdio> =>
  Effect.scoped(Effect.gen(function*() {
    const stdio = yield* Stdio.Stdio
    const writeTimeout = Duration.fromInputUnsafe(options?.writeTimeout ?? "5 seconds")
    const queue = yield* Queue.bounded<Pending>(options?.writeQueue ?? 1024)
    const stopped = yield* Deferred.make<void, StdoutStalled>()
    const stop = (message: string) => Deferred.fail(stopped, new StdoutStalled({ message }))

    yield* Stream.fromQueue(queue).pipe(
      Stream.map((pending) => {
        Deferred.doneUnsafe(pending.written, Effect.void)
        return pending.frame + "\n"
      }),
      Stream.run(stdio.stdout()),
      Effect.catch(() => stop("stdout failed")),
      Effect.forkScoped
    )

    const write = (frame: string): Effect.Effect<void, SinkClosed> =>
      Effect.gen(function*() {
        const written = yield* Deferred.make<void>()
        yield* Queue.offer(queue, { frame, written }).pipe(
          Effect.andThen(Deferred.await(written)),
          Effect.timeoutOrElse({
            duration: writeTimeout,
            orElse: () => stop("stdout did not accept a write in time").pipe(
              Effect.andThen(Effect.fail(new SinkClosed({ message: "stdout stalled" })))
            )
          })
        )
      })

    const connection = yield* Connection.make({
      transport: "stdio",
      sink: { write },
      ...(options?.maxSubscriptions === undefined ? {} : { maxSubscriptions: options.maxSubscriptions })
    })
    const framer = LineFramer.make(options?.maxLineBytes ?? LineFramer.defaultMaxLineBytes)
    const onFrame = (frame: LineFramer.Frame): Effect.Effect<void> => {
      switch (frame._tag) {
        case "Line":
          return connection.receive(frame.text)
        case "TooLong":
          return Effect.ignore(write(Connection.rejectFrame(new ParseError({ message: "Parse error: line exceeds the size limit" }))))
        case "InvalidUtf8":
          return Effect.ignore(write(Connection.rejectFrame(new ParseError({ message: "Parse error: invalid UTF-8" }))))
      }
    }

    const serve = stdio.stdin.pipe(
      Stream.runForEach((chunk) => Effect.forEach(framer.push(chunk), onFrame, { discard: true })),
      Effect.catch(() => Effect.logWarning("stdin failed; treating as end of input")),
      Effect.andThen(Effect.forEach(framer.end(), onFrame, { discard: true })),
      Effect.andThen(connection.end),
      Effect.andThen(Effect.ignore(write(""))) // flushes: completes once everything before it is written
    )
    yield* Effect.raceFirst(serve, Deferred.await(stopped))
  })).pipe(Effect.provide(stderrLogger))
