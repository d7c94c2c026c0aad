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
 * | `subscriptionInterval` | 100 ms between two writes of one listen stream (an idle stream writes at once; changes meanwhile coalesce) | none |
 * | `allowedHosts` | loopback names | 403 |
 * | `allowedOrigins` | loopback origins | 403 |
 * | `sessions` | off: initialize-era requests stand alone | 503 beyond `max` (1,024) sessions or `maxPerPrincipal` (64, per principal or anonymous source address), or `maxStreams` / `maxStreamsPerPrincipal` GET streams (256 / 16), with `Retry-After`; 404 for an unknown or expired one |
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
import { Duration, Effect } from "effect"
import { ConfigurationError } from "@snodo/core/ConfigurationError"
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
  /**
   * The least time between two writes of one listen stream or session GET stream (default
   * 100 ms). A stream that wrote nothing within it writes a change at once; changes published
   * while it rests wait in its queue, repeated ones coalesce, and leave together at the end of the
   * interval, so one publisher cannot make a write per stream per change.
   */
  readonly subscriptionInterval?: Duration.Input
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
   * initialized it, lives in this process (route a client to the same instance) unless the
   * application provides a `SessionStore` (then any instance serves it), and expires after
   * `idleTimeout` without a request (see {@link SessionOptions} for every bound).
   */
  readonly sessions?: boolean | SessionOptions
}

/**
 * Limits of initialize-era sessions. Every refusal is a 503 with `Retry-After` (the time until the
 * first of the places counted frees up by itself) and a -32603 with `data: {retryable, limit}`.
 *
 * @category models
 * @since 0.1.0
 */
export interface SessionOptions {
  /** Sessions at once (default 1,024); `initialize` beyond is answered 503. */
  readonly max?: number
  /**
   * Sessions of one caller at once (default 64): of one authenticated principal, wherever it
   * connects from, or of one source address for anonymous callers (an IPv6 address by its /64;
   * the address a trusted proxy forwarded, if any); a shared `SessionStore` counts the same way
   * across instances.
   */
  readonly maxPerPrincipal?: number
  /** How long a session lives without a request (default 30 minutes); an open GET stream is no request. */
  readonly idleTimeout?: Duration.Input
  /** How long a session may go without `notifications/initialized` before it is ended (default 10 s). */
  readonly initializeTimeout?: Duration.Input
  /**
   * Session GET streams open at once (default 256, and at most a quarter of `maxConcurrent`: each
   * holds a request's place).
   */
  readonly maxStreams?: number
  /** Session GET streams of one principal open at once (default 16). */
  readonly maxStreamsPerPrincipal?: number
  /** How long a session GET stream stays open before it ends, for the client to open again (default 5 minutes). */
  readonly streamTimeout?: Duration.Input
}

/**
 * Session limits with their defaults applied.
 *
 * @category models
 * @since 0.1.0
 */
export interface SessionSettings {
  readonly max: number
  readonly maxPerPrincipal: number
  readonly idleMillis: number
  readonly initializeMillis: number
  readonly maxStreams: number
  readonly maxStreamsPerPrincipal: number
  readonly streamMillis: number
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
  readonly subscriptionIntervalMillis: number
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
  subscriptionIntervalMillis: 100,
  allowedHosts: "loopback",
  allowedOrigins: "loopback",
  sessions: undefined
}

/**
 * Session limits by default: 1,024 sessions, 64 per principal, 30 minutes idle, 10 s to send
 * `notifications/initialized`; 256 GET streams (a quarter of `maxConcurrent` at most), 16 per
 * principal, each open 5 minutes at most.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultSessions: SessionSettings = {
  max: 1024,
  maxPerPrincipal: 64,
  idleMillis: 30 * 60_000,
  initializeMillis: 10_000,
  maxStreams: 256,
  maxStreamsPerPrincipal: 16,
  streamMillis: 5 * 60_000
}

/** The problems found while resolving options, each naming the option. */
type Problems = Array<string>

const positive = (problems: Problems, name: string, value: number | undefined, fallback: number): number => {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value <= 0) problems.push(`${name} must be a positive integer, got ${value}`)
  return value
}

/** Whole milliseconds of a duration input; `undefined`, with the problem noted, for one that is not a duration. */
const durationMillis = (problems: Problems, name: string, value: Duration.Input): number | undefined => {
  const duration = Duration.fromInput(value)
  if (duration._tag === "Some") return Math.ceil(Duration.toMillis(duration.value))
  problems.push(`${name} must be a duration, got ${String(value)}`)
  return undefined
}

const millis = (problems: Problems, name: string, value: Duration.Input | undefined, fallback: number): number => {
  if (value === undefined) return fallback
  const given = durationMillis(problems, name, value)
  return given === undefined ? fallback : positive(problems, name, given, fallback)
}

/** The pause between two writes of a stream: 0 (no pacing) or more. */
const interval = (problems: Problems, value: Duration.Input | undefined): number => {
  const given = value === undefined ? undefined : durationMillis(problems, "subscriptionInterval", value)
  return given === undefined ? defaults.subscriptionIntervalMillis : Math.max(0, given)
}

const sessionsOf = (problems: Problems, option: Options["sessions"], maxConcurrent: number): SessionSettings | undefined => {
  if (option === undefined || option === false) return undefined
  const given: SessionOptions = option === true ? {} : option
  return {
    max: positive(problems, "sessions.max", given.max, defaultSessions.max),
    maxPerPrincipal: positive(problems, "sessions.maxPerPrincipal", given.maxPerPrincipal, defaultSessions.maxPerPrincipal),
    idleMillis: millis(problems, "sessions.idleTimeout", given.idleTimeout, defaultSessions.idleMillis),
    initializeMillis: millis(problems, "sessions.initializeTimeout", given.initializeTimeout, defaultSessions.initializeMillis),
    maxStreams: positive(problems, "sessions.maxStreams", given.maxStreams, Math.max(1, Math.min(defaultSessions.maxStreams, Math.floor(maxConcurrent / 4)))),
    maxStreamsPerPrincipal: positive(problems, "sessions.maxStreamsPerPrincipal", given.maxStreamsPerPrincipal, defaultSessions.maxStreamsPerPrincipal),
    streamMillis: millis(problems, "sessions.streamTimeout", given.streamTimeout, defaultSessions.streamMillis)
  }
}

/**
 * Applies the defaults; a limit that is not a positive integer (or a duration that is not one)
 * fails with a `ConfigurationError` naming every such option, so the transport's Layer fails
 * instead of throwing.
 *
 * @category combinators
 * @since 0.1.0
 */
export const resolve = (options: Options | undefined): Effect.Effect<Settings, ConfigurationError> =>
  Effect.suspend(() => {
    const problems: Problems = []
    const maxConcurrent = positive(problems, "maxConcurrent", options?.maxConcurrent, defaults.maxConcurrent)
    const settings: Settings = {
      path: options?.path ?? defaults.path,
      maxBodyBytes: positive(problems, "maxBodyBytes", options?.maxBodyBytes, defaults.maxBodyBytes),
      maxBufferedBodyBytes: positive(problems, "maxBufferedBodyBytes", options?.maxBufferedBodyBytes, defaults.maxBufferedBodyBytes),
      maxHeaderBytes: positive(problems, "maxHeaderBytes", options?.maxHeaderBytes, defaults.maxHeaderBytes),
      deadlineMillis: millis(problems, "deadline", options?.deadline, defaults.deadlineMillis),
      maxConcurrent,
      maxSubscriptions: positive(problems, "maxSubscriptions", options?.maxSubscriptions, defaults.maxSubscriptions),
      maxSubscriptionBytes: positive(problems, "maxSubscriptionBytes", options?.maxSubscriptionBytes, defaults.maxSubscriptionBytes),
      subscriptionIntervalMillis: interval(problems, options?.subscriptionInterval),
      allowedHosts: options?.allowedHosts ?? defaults.allowedHosts,
      allowedOrigins: options?.allowedOrigins ?? defaults.allowedOrigins,
      sessions: sessionsOf(problems, options?.sessions, maxConcurrent)
    }
    return problems.length === 0
      ? Effect.succeed(settings)
      : Effect.fail(new ConfigurationError({ message: `@snodo/http options: ${problems.join("; ")}` }))
  })
