/**
 * The stdio transport on Node's own `child_process`, what `StdioClientTransport.layerNode` gives:
 * the child's stdout is split into lines by the core's `LineFramer` straight from its `data`
 * events, and frames are written to its stdin by the core's `FrameWriter` (strings, coalesced
 * while a write is in flight), as the server's stdio transport does. Effect's `ChildProcessSpawner`
 * (the portable `StdioClientTransport.layer`) goes through a `Stream` and a `Sink` per direction:
 * a fiber hop, a queue and a byte encoding per frame, which made a sequential `tools/call` ~10 %
 * slower than the official client's (bench/client.ts).
 *
 * Lifetime, as the stdio transport of the spec says: closing the scope closes the child's stdin,
 * waits `shutdownMillis` for it to exit, then sends SIGTERM, waits as long again, then SIGKILL.
 * The child exiting on its own fails `closed` with `TransportError` `Exited` (its code, the last
 * lines of its stderr) once every line it wrote before is delivered. A line longer than
 * `maxLineBytes` (or not UTF-8) ends the connection with `TransportError` `Closed`: a response lost
 * silently would leave its request waiting forever.
 */
import { spawn } from "node:child_process"
import { Deferred, Effect, Exit } from "effect"
import * as FrameWriter from "@snodo/protocol/peer/FrameWriter"
import * as LineFramer from "@snodo/protocol/peer/LineFramer"
import type { ClientTransport } from "../ClientTransport.ts"
import { TransportError } from "../McpClientError.ts"

/** What the Node transport needs to know; `StdioClientTransport.Options` is a superset. */
export interface NodeOptions {
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  readonly cwd?: string | undefined
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  readonly onStderr?: ((line: string) => void) | undefined
  readonly stderrTail?: number | undefined
  readonly maxLineBytes?: number | undefined
  readonly shutdownMillis?: number | undefined
}

const environment = (overrides: Readonly<Record<string, string | undefined>> | undefined): NodeJS.ProcessEnv => {
  if (overrides === undefined) return process.env
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  return env
}

/** The command line as error messages show it (at most 200 characters). */
export const commandLine = (command: string, args: ReadonlyArray<string> | undefined): string => {
  const text = [command, ...(args ?? [])].map((part) => /[\s"]/.test(part) ? JSON.stringify(part) : part).join(" ")
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}

/** Builds the transport; each `open` spawns one child process for the scope. */
export const make = (options: NodeOptions): ClientTransport => ({
  open: (receive) =>
    Effect.gen(function*() {
      const label = commandLine(options.command, options.args)
      const child = spawn(options.command, [...(options.args ?? [])], {
        cwd: options.cwd,
        env: environment(options.env),
        stdio: ["pipe", "pipe", "pipe"]
      })
      yield* Effect.callback<void, TransportError>((resume) => {
        const failed = (error: Error) =>
          resume(Effect.fail(new TransportError({ reason: "Spawn", message: `Could not start ${options.command}: ${error.message}` })))
        child.once("error", failed)
        child.once("spawn", () => {
          child.off("error", failed)
          resume(Effect.void)
        })
      })

      const tail: Array<string> = []
      const keep = options.stderrTail ?? 20
      // stderr is diagnostics: split by the same framer, bounded, a line over 64 KiB (or not UTF-8) skipped.
      const stderrLines = LineFramer.make(64 * 1024)
      const surface = (frames: ReadonlyArray<LineFramer.Frame>) => {
        for (const frame of frames) {
          if (frame._tag !== "Line") continue
          tail.push(frame.text)
          if (tail.length > keep) tail.shift()
          options.onStderr?.(frame.text)
        }
      }
      child.stderr.on("data", (chunk: Uint8Array) => surface(stderrLines.push(chunk)))
      child.stderr.once("end", () => surface(stderrLines.end()))

      const ended = Deferred.makeUnsafe<never, TransportError>()
      const end = (error: TransportError) => void Deferred.doneUnsafe(ended, Exit.fail(error))
      const maxLineBytes = options.maxLineBytes ?? 16 * 1024 * 1024
      const framer = LineFramer.make(maxLineBytes)
      let stopped = false
      const deliver = (frames: ReadonlyArray<LineFramer.Frame>) => {
        for (const frame of frames) {
          if (stopped) return
          if (frame._tag === "Line") {
            if (frame.text.trim() !== "") receive(frame.text)
            continue
          }
          end(new TransportError({
            reason: "Closed",
            message: frame._tag === "TooLong"
              ? `The server wrote a line longer than ${maxLineBytes} bytes (maxLineBytes) (${label})`
              : `The server wrote a line that is not UTF-8 (${label})`
          }))
          child.kill("SIGTERM")
        }
      }
      child.stdout.on("data", (chunk: Uint8Array) => deliver(framer.push(chunk)))
      child.stdout.once("end", () => deliver(framer.end()))
      // `close` comes after the child's stdio streams ended: every line it wrote was delivered.
      child.once("close", (code: number | null) => {
        const stderr = tail.length === 0 ? "" : `; its stderr ended with:\n${tail.join("\n")}`
        end(new TransportError({
          reason: "Exited",
          message: `The server process (${label}) exited${code === null ? "" : ` with code ${code}`}${stderr}`,
          ...(code === null ? {} : { exitCode: code })
        }))
      })
      // A child that stops reading fails the write (EPIPE) through the writer, not as an unhandled error.
      child.stdin.on("error", () => undefined)
      const writer = FrameWriter.make({ write: (text, done) => child.stdin.write(text, done) }, {
        queue: 1024,
        queueChars: 4 * 1024 * 1024,
        stallMillis: 60_000,
        onFail: (message) => end(new TransportError({ reason: "Closed", message: `Writing to the server failed: ${message}` }))
      })

      const shutdownMillis = options.shutdownMillis ?? 2000
      const exited = Effect.callback<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
      })
      yield* Effect.addFinalizer(() =>
        Effect.gen(function*() {
          writer.close()
          child.stdin.end()
          yield* Effect.timeoutOrElse(exited, {
            duration: shutdownMillis,
            orElse: () =>
              Effect.sync(() => child.kill("SIGTERM")).pipe(
                Effect.andThen(Effect.timeoutOrElse(exited, {
                  duration: shutdownMillis,
                  orElse: () => Effect.sync(() => void child.kill("SIGKILL"))
                }))
              )
          })
        })
      )

      const closed: Effect.Effect<never, TransportError> = Deferred.await(ended)
      return {
        write: (frame) =>
          Effect.suspend(() => {
            const done = Deferred.isDoneUnsafe(ended)
            return done ? closed : Effect.mapError(writer.write(frame), (error) => new TransportError({ reason: "Closed", message: `${error.message} (${label})` }))
          }),
        closed,
        label,
        end: () => {
          stopped = true
          child.stdout.destroy()
          child.kill("SIGTERM")
        }
      }
    })
})
