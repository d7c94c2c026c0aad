/**
 * The stdio transport: spawns the server as a child process of the current scope, writes one
 * JSON-RPC frame per line to its stdin and reads frames line by line from its stdout. The
 * server's stderr is surfaced (each line to `onStderr`, and the last lines in the error when it
 * exits); the process exiting is a typed failure ({@link TransportError} `Exited`, with its exit
 * code) of every request waiting. Closing the scope ends the process.
 *
 * {@link layer} uses `effect/process`'s `ChildProcessSpawner` (any platform's); {@link layerNode}
 * uses Node's `child_process` directly (faster per frame: no stream, queue or fiber hop per line).
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { McpClient, StdioClientTransport } from "@snodo/client"
 *
 * const Client = McpClient.layer().pipe(
 *   Layer.provide(StdioClientTransport.layerNode({ command: "node", args: ["server.ts", "--stdio"] }))
 * )
 * ```
 *
 * @since 0.1.0
 */
import { Effect, Fiber, Layer, Queue, Stream } from "effect"
import * as LineFramer from "@snodo/protocol/peer/LineFramer"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { type ClientTransport, Transport } from "./ClientTransport.ts"
import * as NodeStdio from "./internal/nodeStdio.ts"
import { TransportError } from "./McpClientError.ts"

const encoder = new TextEncoder()

/**
 * The command to run.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly command: string
  readonly args?: ReadonlyArray<string>
  readonly cwd?: string
  /** Variables added to (or, `undefined`, removed from) the inherited environment. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Called with each line the server writes to stderr. */
  readonly onStderr?: (line: string) => void
  /** Lines of stderr kept for the exit error (default 20). */
  readonly stderrTail?: number
  /** The longest line the server may write (default 16 MiB, as `maxResponseBytes` over HTTP); a longer one ends the connection. */
  readonly maxLineBytes?: number
  /**
   * How long closing waits for the process: {@link layerNode} after closing its stdin, and again
   * after SIGTERM, before SIGKILL; {@link layer} after SIGTERM before SIGKILL (default 2000 ms).
   */
  readonly shutdownMillis?: number
}

/**
 * A transport spawning `options.command` for each connection.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options): Effect.Effect<ClientTransport, never, ChildProcessSpawner.ChildProcessSpawner> =>
  Effect.map(Effect.service(ChildProcessSpawner.ChildProcessSpawner), (spawner): ClientTransport => ({
    open: (receive) =>
      Effect.gen(function*() {
        const command = ChildProcess.make(options.command, [...(options.args ?? [])], {
          ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
          ...(options.env === undefined ? {} : { env: { ...options.env }, extendEnv: true }),
          stdin: "pipe",
          stdout: "pipe",
          stderr: "pipe",
          // closing never waits unbounded for a child that ignores SIGTERM
          forceKillAfter: options.shutdownMillis ?? 2000
        })
        const label = NodeStdio.commandLine(options.command, options.args)
        const handle = yield* Effect.mapError(
          spawner.spawn(command),
          (error) => new TransportError({ reason: "Spawn", message: `Could not start ${options.command}: ${error.message}` })
        )
        const tail: Array<string> = []
        const keep = options.stderrTail ?? 20
        // stderr is diagnostics: lines over 64 KiB (or not UTF-8) are skipped, never held.
        const stderrLines = LineFramer.make(64 * 1024)
        const surface = (frames: ReadonlyArray<LineFramer.Frame>) =>
          Effect.sync(() => {
            for (const frame of frames) {
              if (frame._tag !== "Line") continue
              tail.push(frame.text)
              if (tail.length > keep) tail.shift()
              options.onStderr?.(frame.text)
            }
          })
        yield* handle.stderr.pipe(
          Stream.runForEach((chunk) => surface(stderrLines.push(chunk))),
          Effect.andThen(Effect.suspend(() => surface(stderrLines.end()))),
          Effect.ignore,
          Effect.forkScoped
        )
        // stdout: the core's framer holds at most `maxLineBytes` of a line; a longer one ends the connection.
        const maxLineBytes = options.maxLineBytes ?? 16 * 1024 * 1024
        const framer = LineFramer.make(maxLineBytes)
        let refused: TransportError | undefined
        const deliver = (frames: ReadonlyArray<LineFramer.Frame>): Effect.Effect<void, TransportError> =>
          Effect.suspend(() => {
            for (const frame of frames) {
              if (frame._tag === "Line") {
                if (frame.text.trim() !== "") receive(frame.text)
                continue
              }
              refused = new TransportError({
                reason: "Closed",
                message: frame._tag === "TooLong"
                  ? `The server wrote a line longer than ${maxLineBytes} bytes (maxLineBytes) (${label})`
                  : `The server wrote a line that is not UTF-8 (${label})`
              })
              return Effect.fail(refused)
            }
            return Effect.void
          })
        const stdoutDone = yield* handle.stdout.pipe(
          Stream.mapError((error) => new TransportError({ reason: "Closed", message: `Reading the server's stdout failed: ${error.message} (${label})` })),
          Stream.runForEach((chunk) => deliver(framer.push(chunk))),
          Effect.andThen(Effect.suspend(() => deliver(framer.end()))),
          Effect.forkScoped
        )
        // Frames wait for the child's stdin here; a writer past 1024 waiting frames waits too.
        const frames = yield* Queue.bounded<string>(1024)
        yield* Stream.fromQueue(frames).pipe(
          Stream.map((frame) => encoder.encode(`${frame}\n`)),
          Stream.run(handle.stdin),
          Effect.ignore,
          Effect.forkScoped
        )
        const exited = (code: number | undefined) => {
          const stderr = tail.length === 0 ? "" : `; its stderr ended with:\n${tail.join("\n")}`
          return new TransportError({
            reason: "Exited",
            message: `The server process (${label}) exited${code === undefined ? "" : ` with code ${code}`}${stderr}`,
            ...(code === undefined ? {} : { exitCode: code })
          })
        }
        let exit: TransportError | undefined
        const ran: Effect.Effect<never, TransportError> = handle.exitCode.pipe(
          Effect.matchEffect({
            onFailure: () => Effect.fail(exited(undefined)),
            // the frames it wrote before exiting are delivered first
            onSuccess: (code) => Effect.andThen(Fiber.await(stdoutDone), Effect.fail(exited(code)))
          })
        )
        // A line over the bound ends the connection as the process exiting does.
        const closed: Effect.Effect<never, TransportError> = Effect.raceFirst(
          ran,
          Effect.flatMap(Fiber.join(stdoutDone), () => Effect.never)
        ).pipe(
          Effect.tapError((error) =>
            Effect.sync(() => void (exit = error)).pipe(Effect.andThen(refused === undefined ? Effect.void : Effect.ignore(handle.kill())))
          )
        )
        return {
          write: (frame) =>
            Effect.suspend(() =>
              exit === undefined ? Effect.asVoid(Queue.offer(frames, frame)) : Effect.fail(exit)
            ),
          closed: Effect.flatMap(Effect.cached(closed), (effect) => effect),
          label,
          end: () => Effect.runFork(Effect.ignore(handle.kill()))
        }
      })
  }))

/**
 * {@link make} as the client's {@link Transport}.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<Transport, never, ChildProcessSpawner.ChildProcessSpawner> =>
  Layer.effect(Transport, make(options))

/**
 * The transport on Node's `child_process` directly: lines split from the child's stdout as they
 * arrive and frames written to its stdin as strings, coalesced while a write is in flight (the
 * core's `LineFramer` and `FrameWriter`, as the server's stdio transport uses them). Closing the
 * scope closes the child's stdin, then sends SIGTERM and SIGKILL to a child that does not exit
 * within `shutdownMillis` of each step. What an application on Node uses; {@link layer} runs on any
 * `ChildProcessSpawner`.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerNode = (options: Options): Layer.Layer<Transport> => Layer.succeed(Transport, NodeStdio.make(options))
