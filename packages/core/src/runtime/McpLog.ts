/**
 * MCP log messages (`notifications/message`) from a handler to the client of its request.
 *
 * Deprecated by the 2026-07-28 revision (servers should log to stderr) but kept for clients that
 * opt in: a message is sent only when the server enables the `logging` capability, the request
 * set `_meta["io.modelcontextprotocol/logLevel"]`, the message is at least that severe, and the
 * transport can deliver request-scoped notifications. Otherwise logging succeeds silently.
 *
 * @example
 * ```ts
 * import { McpLog } from "@snodo/core/McpLog"
 *
 * const note = McpLog.log("info", { step: "fetching" }, "weather")
 * ```
 *
 * @since 0.1.0
 */
import { Context, Effect } from "effect"
import * as Encoder from "@snodo/protocol/jsonrpc/Encoder"
import * as Meta from "@snodo/protocol/wire/Meta"
import type { LoggingLevel } from "@snodo/protocol/wire/Meta"
import type { RequestSink } from "@snodo/protocol/peer/RequestSink"

/** Severity rank, from the order of `LoggingLevel` (least to most severe). */
const severity = new Map<LoggingLevel, number>(Meta.LoggingLevel.literals.map((level, rank) => [level, rank]))

/**
 * @category models
 * @since 0.1.0
 */
export interface Logger {
  readonly log: (level: LoggingLevel, data: unknown, logger?: string) => Effect.Effect<void>
}

/**
 * @category services
 * @since 0.1.0
 */
export class McpLog extends Context.Service<McpLog, Logger>()("@snodo/core/McpLog") {
  /** Sends a log message to the client of the current request, if it asked for them. */
  static readonly log = (level: LoggingLevel, data: unknown, logger?: string): Effect.Effect<void, never, McpLog> =>
    McpLog.use((service) => service.log(level, data, logger))
}

/** The logger of a request that asked for no log messages (or cannot receive them). */
const silent: Logger = { log: () => Effect.void }

/**
 * A logger for one request.
 *
 * @category constructors
 * @since 0.1.0
 */
export const makeLogger = (
  enabled: boolean,
  requested: LoggingLevel | undefined,
  sink: RequestSink | undefined
): Logger => {
  if (!enabled || requested === undefined || sink === undefined) return silent
  const threshold = severity.get(requested) ?? 0
  return {
    log: (level, data, logger) => {
      if ((severity.get(level) ?? 0) < threshold) return Effect.void
      const params: Record<string, unknown> = { level, data }
      if (logger !== undefined) params["logger"] = logger
      return Effect.ignore(sink.write(Encoder.notification("notifications/message", params)))
    }
  }
}

/**
 * Sends a log message to the client of the current request, if it asked for them.
 *
 * @category constants
 * @since 0.1.0
 */
export const log = McpLog.log
