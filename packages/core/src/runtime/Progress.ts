/**
 * Progress reports from a handler, as a scoped resource of its request.
 *
 * `Progress` is in every handler's context. A report is sent only when the request carried
 * `_meta.progressToken` and the transport installed a sink; otherwise a valid report succeeds
 * without sending. Values must increase strictly. At most `maxOutstanding` reports are in flight
 * (a report completes once the transport wrote it), at most `maxUpdates` per request, messages at
 * most `maxMessageBytes`; a report not written within `ackTimeout` fails with `Timeout` and keeps
 * its slot, so a stuck client is not retried without bound. When the request ends (success,
 * failure, interruption, disconnect, deadline) the sink closes and reports fail with `Closed`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Progress } from "@snodo/core/Progress"
 *
 * const work = Effect.gen(function*() {
 *   for (let step = 1; step <= 3; step++) {
 *     yield* Progress.report(step, { total: 3, message: `step ${step}` })
 *   }
 * })
 * ```
 *
 * @since 0.1.0
 */
import { Context, type Duration, Effect, Schema } from "effect"
import * as Encoder from "@snodo/protocol/jsonrpc/Encoder"
import type { ProgressObserver } from "./internal/Observers.ts"
import type { RequestSink } from "@snodo/protocol/peer/RequestSink"

/**
 * Why a report was refused.
 *
 * @category models
 * @since 0.1.0
 */
type ProgressErrorReason = "Busy" | "Timeout" | "LimitReached" | "NotIncreasing" | "Closed" | "MessageTooLong"

/**
 * A refused progress report. The handler decides whether to carry on without progress or stop.
 *
 * @category errors
 * @since 0.1.0
 */
export class ProgressError extends Schema.TaggedError<ProgressError>()("ProgressError", {
  reason: Schema.Literals(["Busy", "Timeout", "LimitReached", "NotIncreasing", "Closed", "MessageTooLong"]),
  message: Schema.String
}) {}

/**
 * Progress limits, configurable per server.
 *
 * @category models
 * @since 0.1.0
 */
export interface Limits {
  readonly maxOutstanding: number
  readonly maxUpdates: number
  readonly maxMessageBytes: number
  readonly ackTimeout: Duration.Input
}

/**
 * Defaults: 1 outstanding, 1,000 updates, 4 KiB message, 5 s acknowledgement.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultLimits: Limits = { maxOutstanding: 1, maxUpdates: 1000, maxMessageBytes: 4096, ackTimeout: "5 seconds" }

/**
 * Options of one report.
 *
 * @category models
 * @since 0.1.0
 */
export interface ReportOptions {
  readonly total?: number
  readonly message?: string
}

/**
 * The per-request progress reporter.
 *
 * @category models
 * @since 0.1.0
 */
export interface Reporter {
  readonly report: (progress: number, options?: ReportOptions) => Effect.Effect<void, ProgressError>
  /** Whether reports reach the client (a token was sent and a sink exists). */
  readonly enabled: boolean
}

/**
 * @category services
 * @since 0.1.0
 */
export class Progress extends Context.Service<Progress, Reporter>()("@snodo/core/Progress") {
  /** Reports progress for the current request. */
  static readonly report = (progress: number, options?: ReportOptions): Effect.Effect<void, ProgressError, Progress> =>
    Progress.use((reporter) => reporter.report(progress, options))
}

const refuse = (reason: ProgressErrorReason, message: string) => Effect.fail(new ProgressError({ reason, message }))

/**
 * A reporter for one request. `close` is called by the runtime when the request ends.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeReporter = (
  token: string | number | undefined,
  sink: RequestSink | undefined,
  limits: Limits = defaultLimits,
  observer?: ProgressObserver | undefined
): Reporter & { readonly close: Effect.Effect<void> } => {
  const enabled = token !== undefined && sink !== undefined
  let last = -Infinity
  let sent = 0
  let outstanding = 0
  let closed = false
  const report = (progress: number, options?: ReportOptions): Effect.Effect<void, ProgressError> =>
    Effect.suspend(() => {
      if (closed) return refuse("Closed", "The request has ended")
      if (!Number.isFinite(progress) || progress <= last) {
        return refuse("NotIncreasing", "Progress must increase with every report")
      }
      if (options?.message !== undefined && Buffer.byteLength(options.message, "utf8") > limits.maxMessageBytes) {
        return refuse("MessageTooLong", `Progress message longer than ${limits.maxMessageBytes} bytes`)
      }
      if (sent >= limits.maxUpdates) {
        observer?.limited()
        return refuse("LimitReached", `At most ${limits.maxUpdates} progress updates per request`)
      }
      if (outstanding >= limits.maxOutstanding) return refuse("Busy", "A previous progress report is still being written")
      last = progress
      sent++
      if (!enabled) return Effect.void
      const params: Record<string, unknown> = { progressToken: token, progress }
      if (options?.total !== undefined) params["total"] = options.total
      if (options?.message !== undefined) params["message"] = options.message
      outstanding++
      return sink.write(Encoder.notification("notifications/progress", params)).pipe(
        Effect.timeoutOrElse({
          duration: limits.ackTimeout,
          // The slot stays taken: a client that stopped reading is not retried without bound.
          orElse: () => Effect.fail(new ProgressError({ reason: "Timeout", message: "The progress report was not written in time" }))
        }),
        Effect.tap(() =>
          Effect.sync(() => {
            outstanding--
            observer?.reported()
          })
        ),
        Effect.catchTag("SinkClosed", () => {
          closed = true
          return refuse("Closed", "The transport closed")
        })
      )
    })
  return { report, enabled, close: Effect.sync(() => void (closed = true)) }
}

/**
 * Reports progress for the current request (the module-level form of `Progress.report`).
 *
 * @category constants
 * @since 0.1.0
 */
export const report = Progress.report
