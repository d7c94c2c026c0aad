/**
 * Options of the Streamable HTTP transport, with safe defaults for every limit.
 *
 * | option | default | refusal |
 * |---|---|---|
 * | `maxBodyBytes` | 2 MiB | 413 |
 * | `maxBufferedBodyBytes` | 64 MiB, every body being read together | 503, connection closed |
 * | `maxHeaderBytes` | 32 KiB | 431 |
 * | `deadline` | 30 s | 504, or the terminal JSON-RPC error of an open SSE stream |
 * | `maxConcurrent` | 1,024 requests in flight | 503 |
 * | `maxSubscriptions` | 256 open `subscriptions/listen` streams (no deadline) | 503 |
 * | `maxSubscriptionBytes` | 32 Mi characters of resource URIs held by open streams | 503 |
 * | `allowedHosts` | loopback names | 403 |
 * | `allowedOrigins` | loopback origins | 403 |
 * | `sessions` | off: initialize-era requests stand alone | 503 beyond `max` sessions, 404 for an unknown or expired one |
 *
 * @example
 * ```ts
 * import * as McpHttp from "@snodo/http/McpHttp"
 *
 * McpHttp.layerRoute({ path: "/mcp", maxBodyBytes: 512 * 1024, deadline: "10 seconds" })
 * ```
 *
 * @since 0.1.0
 */
import { Duration } from "effect"
import type { HttpRouter } from "effect/http"
import * as Security from "./Security.ts"

/**
 * Transport options; every field is optional.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The MCP endpoint (default `/mcp`). */
  readonly path?: HttpRouter.PathInput
  /** Longest accepted request body, counted while it streams in (default 2 MiB). */
  readonly maxBodyBytes?: number
  /**
   * Bytes every request body being read may hold together (default 64 MiB); a body that does not
   * fit is refused with 503 before more of it is read.
   */
  readonly maxBufferedBodyBytes?: number
  /** Largest accepted request head: the names and values of every header (default 32 KiB). */
  readonly maxHeaderBytes?: number
  /** How long one request may take, body included (default 30 s). */
  readonly deadline?: Duration.Input
  /** Requests in flight at once before new ones are refused with 503 (default 1,024). */
  readonly maxConcurrent?: number
  /** Open `subscriptions/listen` streams at once before new ones are refused with 503 (default 256). */
  readonly maxSubscriptions?: number
  /**
   * Characters of resource URIs the open listen streams may hold in their filters together
   * before new ones are refused with 503 (default 32 Mi).
   */
  readonly maxSubscriptionBytes?: number
  /** `Host` values accepted (DNS rebinding protection). Default: loopback names only. */
  readonly allowedHosts?: Security.HostPolicy
  /** `Origin` values accepted when the header is present. Default: loopback origins only. */
  readonly allowedOrigins?: Security.OriginPolicy
  /**
   * Sessions for the initialize-era dialects (2025-11-25; nothing changes for 2026-07-28, which has
   * none): `initialize` issues an `Mcp-Session-Id`, later requests must carry it, `DELETE` ends
   * the session, and a GET opens its stream of server-initiated messages (list changes, resource
   * updates). They are what lets `logging/setLevel`, `resources/subscribe` and server-to-client
   * requests (`Input.elicit` answered by the client) work over HTTP. Default off: sessionless, as
   * 2025-11-25 allows (each request stands alone). A session belongs to the principal that
   * initialized it, lives in this process (route a client to the same instance), and expires after
   * `idleTimeout` without a request.
   */
  readonly sessions?: boolean | SessionOptions
}

/**
 * Limits of initialize-era sessions.
 *
 * @category models
 * @since 0.1.0
 */
export interface SessionOptions {
  /** Sessions at once (default 1,024); `initialize` beyond is answered 503. */
  readonly max?: number
  /** How long a session lives without a request or an open stream (default 30 minutes). */
  readonly idleTimeout?: Duration.Input
}

/**
 * Session limits with their defaults applied.
 *
 * @category models
 * @since 0.1.0
 */
export interface SessionSettings {
  readonly max: number
  readonly idleMillis: number
}

/**
 * Options with every default applied.
 *
 * @category models
 * @since 0.1.0
 */
export interface Settings {
  readonly path: HttpRouter.PathInput
  readonly maxBodyBytes: number
  readonly maxBufferedBodyBytes: number
  readonly maxHeaderBytes: number
  readonly deadlineMillis: number
  readonly maxConcurrent: number
  readonly maxSubscriptions: number
  readonly maxSubscriptionBytes: number
  readonly allowedHosts: Security.HostPolicy
  readonly allowedOrigins: Security.OriginPolicy
  /** `undefined` when sessions are off. */
  readonly sessions: SessionSettings | undefined
}

/**
 * The defaults.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaults: Settings = {
  path: "/mcp",
  maxBodyBytes: 2 * 1024 * 1024,
  maxBufferedBodyBytes: 64 * 1024 * 1024,
  maxHeaderBytes: 32 * 1024,
  deadlineMillis: 30_000,
  maxConcurrent: 1024,
  maxSubscriptions: 256,
  maxSubscriptionBytes: 32 * 1024 * 1024,
  allowedHosts: "loopback",
  allowedOrigins: "loopback",
  sessions: undefined
}

/**
 * Session limits by default: 1,024 sessions, 30 minutes idle.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultSessions: SessionSettings = { max: 1024, idleMillis: 30 * 60_000 }

const sessionsOf = (option: Options["sessions"]): SessionSettings | undefined => {
  if (option === undefined || option === false) return undefined
  if (option === true) return defaultSessions
  return {
    max: positive("sessions.max", option.max, defaultSessions.max),
    idleMillis: option.idleTimeout === undefined
      ? defaultSessions.idleMillis
      : positive("sessions.idleTimeout", Math.ceil(Duration.toMillis(Duration.fromInputUnsafe(option.idleTimeout))), defaultSessions.idleMillis)
  }
}

const positive = (name: string, value: number | undefined, fallback: number): number => {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer, got ${value}`)
  return value
}

/**
 * Applies the defaults; throws a `RangeError` for a limit that is not a positive integer.
 *
 * @category combinators
 * @since 0.1.0
 */
export const resolve = (options: Options | undefined): Settings => ({
  path: options?.path ?? defaults.path,
  maxBodyBytes: positive("maxBodyBytes", options?.maxBodyBytes, defaults.maxBodyBytes),
  maxBufferedBodyBytes: positive("maxBufferedBodyBytes", options?.maxBufferedBodyBytes, defaults.maxBufferedBodyBytes),
  maxHeaderBytes: positive("maxHeaderBytes", options?.maxHeaderBytes, defaults.maxHeaderBytes),
  deadlineMillis: options?.deadline === undefined
    ? defaults.deadlineMillis
    : positive("deadline", Math.ceil(Duration.toMillis(Duration.fromInputUnsafe(options.deadline))), defaults.deadlineMillis),
  maxConcurrent: positive("maxConcurrent", options?.maxConcurrent, defaults.maxConcurrent),
  maxSubscriptions: positive("maxSubscriptions", options?.maxSubscriptions, defaults.maxSubscriptions),
  maxSubscriptionBytes: positive("maxSubscriptionBytes", options?.maxSubscriptionBytes, defaults.maxSubscriptionBytes),
  allowedHosts: options?.allowedHosts ?? defaults.allowedHosts,
  allowedOrigins: options?.allowedOrigins ?? defaults.allowedOrigins,
  sessions: sessionsOf(options?.sessions)
})
